import type { Page } from '@playwright/test';
import {
  startOidcProvider,
  TEST_OIDC_CLIENT,
  type TestOidcProvider,
} from '../../apps/api/src/test/oidc-provider.ts';
import { startSamlIdp, type TestSamlIdp } from '../../apps/api/src/test/saml-idp.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type RunningMoat, runCli, startMoat } from '../support/server.ts';
import { openSignInLink } from '../support/sign-in-link.ts';

/**
 * SAML single sign-on (issue 15) in Chromium against a real identity provider started here
 * (samlify's IdP role on loopback, its own key): an admin configures it in Settings from the IdP's
 * metadata; a user signs in through the popup of the sign-in page and lands on the overview; the
 * same SAML answer posted again is refused with 'SAML authentication failed.'.
 */
const ADMIN = 'admin@sso.test';
const USER = 'bob@sso.test';
let moat: RunningMoat;
let idp: TestSamlIdp;
let op: TestOidcProvider;
/** The browser's origin is PUBLIC_URL's (http://localhost:PORT): the IdP posts back there. */
let base: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  [moat, idp] = await Promise.all([
    // The identity providers run on this machine: a deployment of one's own may call them.
    startMoat({
      env: { ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: 'sso-admin-password', NEXT_HOP_NETWORKS: 'any' },
    }),
    startSamlIdp(),
  ]);
  base = moat.url.replace('127.0.0.1', 'localhost');
  op = await startOidcProvider({ redirectUris: [`${base}/api/v1/auth/oidc/microsoft/callback`] });
  for (const args of [
    ['tenant:update', '--tenant', 'sso.test', '--onboarded', 'on'],
    ['user:create', '--email', USER, '--role', 'user', '--password', 'bob-password-123'],
  ]) {
    const out = await runCli(args, { DATA_DIR: moat.dataDir });
    expect(out.code, out.stderr).toBe(0);
  }
});
/** The admin signs in through a sign-in link, sees the overview, and opens Configuration → Settings. */
async function openSettingsAsAdmin(page: Page) {
  await openSignInLink(page, { url: base, dataDir: moat.dataDir }, ADMIN);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await page.goto(`${base}/#/configuration/settings`);
}

test.afterAll(async () => {
  await moat?.stop();
  await idp?.close();
  await op?.close();
});

test('an admin sets up SAML from the IdP metadata; a user signs in through the popup; a replayed answer is refused', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await openSettingsAsAdmin(page);
  const sso = page.getByRole('region', { name: 'Single sign-on (SAML)' });
  await expect(sso).toBeVisible();
  const acsUrl = await sso
    .getByRole('textbox', { name: 'Assertion Consumer Service (reply) URL' })
    .inputValue();
  expect(acsUrl).toMatch(new RegExp(`^${base}/api/v1/auth/saml/acs/[0-9a-f-]{36}$`));
  const metadataUrl = await sso.getByRole('textbox', { name: 'Service provider metadata URL' }).inputValue();

  await sso.getByLabel('Identity provider metadata (XML)').fill(idp.metadataXml);
  await sso.getByRole('button', { name: 'Test the metadata' }).click();
  await expect(sso.getByText('Moat can use this identity provider:')).toBeVisible();
  await expect(sso.getByText(`Single sign-on URL: ${idp.url}/sso`).first()).toBeVisible();
  await sso.getByRole('switch', { name: 'Sign in with SAML' }).check();
  await sso.getByRole('button', { name: 'Save single sign-on' }).click();
  await expect(sso.getByText('Single sign-on saved.')).toBeVisible();
  await expect(sso.getByText('Identity provider in use')).toBeVisible();
  await expectNoAxeViolations(page);

  // The IdP imports Moat's metadata from the URL the page shows.
  const spXml = await (await fetch(metadataUrl.replace('localhost', '127.0.0.1'))).text();
  expect(spXml).toContain(acsUrl);
  idp.serve(spXml, USER);

  // A user, in a browser with no session, signs in through the popup.
  const context = await browser.newContext();
  const signIn = await context.newPage();
  await signIn.goto(`${base}/#/auth/login`);
  const popupOpened = signIn.waitForEvent('popup');
  await signIn.getByRole('link', { name: 'Sign in with SAML' }).click();
  const popup = await popupOpened;
  await expect(popup.getByRole('heading', { name: 'SAML sign-in' })).toBeVisible();
  await popup.getByLabel('Work email').fill(USER);
  await popup.getByRole('button', { name: 'Continue' }).click();
  await expect(popup.getByRole('heading', { name: `Test IdP: signing in ${USER}` })).toBeVisible();
  const samlResponse = await popup.locator('input[name="SAMLResponse"]').inputValue();
  const closed = popup.waitForEvent('close');
  await popup.getByRole('button', { name: 'Continue to Moat' }).click();
  await closed;
  await expect(signIn).toHaveURL(/#\/dashboard$/);
  await expect(signIn.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(signIn.getByText(USER).first()).toBeVisible();
  await context.close();

  // The same answer, posted again (an attacker who caught it): refused.
  const replay = await browser.newPage();
  await replay.setContent(
    `<form method="post" action="${acsUrl}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"><button>Post</button></form>`,
  );
  await replay.getByRole('button', { name: 'Post' }).click();
  await expect(replay).toHaveURL(/#\/auth\/saml\/login\?ssoError=saml$/);
  await expect(replay.getByText('SAML authentication failed.')).toBeVisible();
  await expect(replay.getByLabel('Work email')).toBeVisible();
  await replay.close();
});

test('an admin sets up Microsoft sign-in with the local OpenID provider; a user signs in through its popup', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await openSettingsAsAdmin(page);
  const microsoft = page.getByRole('region', { name: 'Sign-in with Microsoft' });
  await expect(
    microsoft.getByRole('textbox', { name: 'Redirect URI to register at the provider' }),
  ).toHaveValue(`${base}/api/v1/auth/oidc/microsoft/callback`);
  await microsoft.getByLabel('Issuer URL').fill(op.issuer);
  await microsoft.getByRole('button', { name: 'Test the issuer' }).click();
  await expect(microsoft.getByText(`The issuer answers: ${op.issuer}`)).toBeVisible();
  await microsoft.getByLabel('Client ID').fill(TEST_OIDC_CLIENT.id);
  await microsoft.getByLabel('Client secret').fill(TEST_OIDC_CLIENT.secret);
  await microsoft.getByRole('switch', { name: 'Sign in with Microsoft' }).check();
  await microsoft.getByRole('button', { name: 'Save Microsoft sign-in' }).click();
  await expect(microsoft.getByText('Sign-in settings saved.')).toBeVisible();
  await expect(
    microsoft.getByText('A secret is saved (encrypted; it is never shown).', { exact: false }),
  ).toBeVisible();
  await expectNoAxeViolations(page);

  op.signInAs(USER);
  const context = await browser.newContext();
  const signIn = await context.newPage();
  await signIn.goto(`${base}/#/auth/login`);
  const popupOpened = signIn.waitForEvent('popup');
  await signIn.getByRole('link', { name: 'Sign in with Microsoft' }).click();
  const popup = await popupOpened;
  await expect(popup.getByRole('heading', { name: 'Microsoft sign-in' })).toBeVisible();
  await popup.getByLabel('Work email').fill(USER);
  const closed = popup.waitForEvent('close');
  await popup.getByRole('button', { name: 'Continue' }).click();
  await closed;
  await expect(signIn).toHaveURL(/#\/dashboard$/);
  await expect(signIn.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await context.close();
});
