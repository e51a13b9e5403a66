import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { ROOT } from '../support/server.ts';

/**
 * The signed-in console (issue 5): who sees which navigation items, quick search, the trial page
 * of an expired poc, a locked portal, and a crafted route parameter. Users sign in through the
 * one-time links of `npm run cli -- auth:link`.
 */
let env: MoatWithMail;

const COMMON = ['dashboard', 'security-events', 'mail-explorer', 'user-interaction', 'analytics'];
// A plain user has no Mail Explorer; of User Interaction, Quarantined Items shows their own mail.
const PLAIN = ['dashboard', 'security-events', 'user-interaction', 'analytics'];

async function setUpTenant(domain: string, mode: string, extra: string[] = []) {
  if (domain !== 'acme.test') {
    expect((await env.cli('tenant:create', '--name', domain, '--domain', domain)).code).toBe(0);
  }
  // Set up already (onboarding.spec.ts goes through onboarding): its admins open on the overview.
  const update = await env.cli(
    'tenant:update',
    '--tenant',
    domain,
    '--mode',
    mode,
    '--onboarded',
    'on',
    ...extra,
  );
  expect(update.code, update.stderr).toBe(0);
  const apps = await env.cli(
    'tenant:apps',
    '--tenant',
    domain,
    '--enable',
    'office365_emails',
    '--enable-tools',
    'ap_avanan,archiving',
  );
  expect(apps.code, apps.stderr).toBe(0);
  expect((await env.cli('features:set', '--tenant', domain, 'enableAddOnsStore=on')).code).toBe(0);
}

async function user(email: string, role: 'admin' | 'user', tenant: string, ...flags: string[]) {
  const created = await env.cli(
    'user:create',
    '--email',
    email,
    '--role',
    role,
    '--password',
    'a long password 1',
    '--tenant',
    tenant,
  );
  expect(created.code, created.stderr).toBe(0);
  if (flags.length > 0) expect((await env.cli('user:update', '--email', email, ...flags)).code).toBe(0);
}

async function signIn(page: Page, email: string) {
  const res = await env.cli('auth:link', '--email', email);
  expect(res.code, res.stderr).toBe(0);
  const link = res.stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
}

async function topLevelNav(page: Page) {
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  await expect(nav.locator('[data-nav-depth="0"]').first()).toBeVisible();
  return nav
    .locator('[data-nav-depth="0"]')
    .evaluateAll((items) => items.map((i) => i.getAttribute('data-nav-id')));
}

test.beforeAll(async () => {
  // Three tenants and five users through the CLI, on a machine shared with other runs: more than
  // a test's usual minute (a fresh-clone run once took longer).
  test.setTimeout(180_000);
  env = await startMoatWithMail();
  const farFuture = '2099-12-31';
  await setUpTenant('acme.test', 'paid', ['--paid-expires', farFuture]);
  await setUpTenant('msp.test', 'paid', ['--paid-expires', farFuture, '--msp', 'on']);
  await setUpTenant('demo.test', 'demo');
  await user('ivy@acme.test', 'user', 'acme.test');
  await user('support@acme.test', 'admin', 'acme.test', '--hidden', 'on');
  await env.cli('tenant:update', '--tenant', 'acme.test', '--support-access', 'on');
  await user('max@msp.test', 'admin', 'msp.test');
  await user('dora@demo.test', 'user', 'demo.test');
});
test.afterAll(async () => {
  await env.stop();
});

test.describe('side navigation by profile (SPEC §2.4, §6)', () => {
  const profiles: Array<[string, string, string[]]> = [
    [
      'admin',
      'admin@acme.test',
      [...COMMON, 'archiving', 'dmarc', 'policy', 'configuration', 'system-settings', 'add-ons-store'],
    ],
    ['user', 'ivy@acme.test', [...PLAIN, 'policy', 'configuration', 'system-settings']],
    [
      'hidden user',
      'support@acme.test',
      [...COMMON, 'archiving', 'dmarc', 'policy', 'configuration', 'system-settings', 'add-ons-store'],
    ],
    // The tenant's customer configs let the MSP sell add-ons (msp_allowed), so the store shows.
    [
      'MSP admin',
      'max@msp.test',
      [...COMMON, 'archiving', 'dmarc', 'policy', 'configuration', 'system-settings', 'add-ons-store'],
    ],
    [
      'demo customer',
      'dora@demo.test',
      [...PLAIN, 'archiving', 'policy', 'configuration', 'system-settings', 'add-ons-store'],
    ],
  ];
  for (const [profile, email, expected] of profiles) {
    test(`${profile} sees exactly the items allowed`, async ({ page, pageErrors }) => {
      await signIn(page, email);
      await expect(page).toHaveURL(/#\/dashboard$/);
      expect(await topLevelNav(page)).toEqual(expected);
      expect(pageErrors).toEqual([]);
    });
  }

  test('a plain user who opens an admin page by its address lands on the no-access page', async ({
    page,
    pageErrors,
  }) => {
    await signIn(page, 'ivy@acme.test');
    // The sign-in link ends on the Overview: wait for it, or its redirect would win over ours.
    await expect(page).toHaveURL(/#\/dashboard$/);
    await expect(page.getByRole('navigation', { name: 'Main navigation' })).toBeVisible();
    for (const path of ['/mail-explorer', '/user-interaction/reported-phishing', '/analytics/dashboard']) {
      await page.goto(`${env.moat.url}/#${path}`);
      await expect(page).toHaveURL(/#\/no-access-page$/);
      await expect(page.getByText('This page is not open to your account')).toBeVisible();
    }
    await page.getByRole('link', { name: 'Go to the Overview' }).click();
    await expect(page).toHaveURL(/#\/dashboard$/);
    expect(pageErrors).toEqual([]);
  });

  test('an MSP admin gets no Licenses page', async ({ page }) => {
    await signIn(page, 'max@msp.test');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.locator('[data-nav-id="system-settings"]').click();
    await expect(nav.locator('[data-nav-id="user-management"]')).toBeVisible();
    await expect(nav.locator('[data-nav-id="license-configuration"]')).toHaveCount(0);
  });

  test('a user does not see User Management or Licenses; an admin does', async ({ page }) => {
    await signIn(page, 'ivy@acme.test');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.locator('[data-nav-id="system-settings"]').click();
    await expect(nav.locator('[data-nav-id="system-logs"]')).toBeVisible();
    await expect(nav.locator('[data-nav-id="user-management"]')).toHaveCount(0);
    await expect(nav.locator('[data-nav-id="license-configuration"]')).toHaveCount(0);
  });
});

test('quick search finds a held message by its subject and opens its profile; Escape closes the panel', async ({
  page,
}) => {
  const imported = await env.cli(
    'quarantine:import',
    '--file',
    path.join(ROOT, 'e2e/fixtures/invoice.eml'),
    '--recipient',
    'ana@acme.test',
    '--verdict',
    'phishing',
  );
  expect(imported.code, imported.stderr).toBe(0);
  await signIn(page, 'admin@acme.test');
  await expect(page).toHaveURL(/#\/dashboard$/);
  const box = page.getByRole('combobox', { name: 'Quick search' });
  await box.fill('4711');
  const options = page.getByRole('option');
  await expect(options.first()).toBeVisible({ timeout: 5_000 });
  await expect(page.getByRole('option', { name: /Invoice 4711 overdue/ }).first()).toBeVisible();
  await expectNoAxeViolations(page);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('listbox')).toBeHidden();

  await box.fill('Invoice 4711');
  await page
    .getByRole('option', { name: /Invoice 4711 overdue/ })
    .first()
    .click();
  await expect(page).toHaveURL(/#\/profile\/email\/message\/[0-9a-f-]{36}/);
  await expect(page.getByRole('listbox')).toBeHidden();

  await page.goto(`${env.moat.url}/#/dashboard`);
  await box.fill('nothing-matches-this-zq');
  await expect(page.getByText('No results')).toBeVisible({ timeout: 5_000 });
});

test('a poc tenant whose trial ended lands on /trial; the admin asks for an extension and waits for approval', async ({
  page,
}) => {
  await env.cli('tenant:create', '--name', 'Trial', '--domain', 'trial.test');
  await env.cli(
    'tenant:update',
    '--tenant',
    'trial.test',
    '--onboarded',
    'on',
    '--mode',
    'poc',
    '--trial-start',
    '2020-01-01',
    '--trial-days',
    '30',
  );
  await user('tia@trial.test', 'admin', 'trial.test');
  await signIn(page, 'tia@trial.test');
  await expect(page).toHaveURL(/#\/trial/);
  await expect(page.getByRole('heading', { name: 'Your trial has expired' })).toBeVisible();
  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(page.getByRole('heading', { name: 'Waiting for approval' })).toBeVisible();
  await expectNoAxeViolations(page);

  const listed = await env.cli('trial:requests');
  expect(listed.stdout).toContain('"Trial"');
  expect(listed.stdout).toContain('tia@trial.test');
  // Every other page of the console still leads back to the trial page.
  await page.goto(`${env.moat.url}/#/security-events`);
  await expect(page).toHaveURL(/#\/trial/);

  // The provider approves: the console opens again.
  expect((await env.cli('trial:approve', '--tenant', 'trial.test', '--days', '14')).code).toBe(0);
  // The trial page lets go once the trial runs again.
  await page.reload();
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.goto(`${env.moat.url}/#/security-events`);
  await expect(page).toHaveURL(/#\/security-events/);
  await expect(page.getByText('14 days left')).toBeVisible();
});

test('a locked portal sends its users to access-blocked/customer-locked', async ({ page }) => {
  await env.cli('tenant:create', '--name', 'Locked', '--domain', 'locked.test');
  await user('lou@locked.test', 'admin', 'locked.test');
  expect((await env.cli('tenant:update', '--tenant', 'locked.test', '--portal-locked', 'on')).code).toBe(0);
  await signIn(page, 'lou@locked.test');
  await expect(page).toHaveURL(/#\/access-blocked\/customer-locked/);
  await page.goto(`${env.moat.url}/#/dashboard`);
  await expect(page).toHaveURL(/#\/access-blocked\/customer-locked/);
});

test('a crafted ?route= pointing outside the app is ignored; one inside it is followed', async ({ page }) => {
  await signIn(page, 'admin@acme.test');
  await expect(page).toHaveURL(/#\/dashboard$/);
  for (const target of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
    const route = encodeURIComponent(Buffer.from(encodeURIComponent(target)).toString('base64'));
    await page.goto(`${env.moat.url}/?route=${route}`);
    await page.waitForLoadState('networkidle');
    expect(new URL(page.url()).host, target).toBe(new URL(env.moat.url).host);
  }
  const inside = encodeURIComponent(Buffer.from(encodeURIComponent('/security-events')).toString('base64'));
  await page.goto(`${env.moat.url}/?route=${inside}`);
  await expect(page).toHaveURL(/#\/security-events/);
});

test('the shell at 360 px: no horizontal scroll and no axe violations, in both themes', async ({ page }) => {
  // A held message, so the overview has recent events: on a phone, one card each.
  await env.cli(
    'quarantine:import',
    '--file',
    path.join(ROOT, 'e2e/fixtures/invoice.eml'),
    '--recipient',
    'bo@acme.test',
  );
  await page.setViewportSize({ width: 360, height: 780 });
  await signIn(page, 'admin@acme.test');
  const recent = page.getByRole('list', { name: 'Recent events' });
  await expect(recent.getByRole('listitem').first()).toBeVisible();
  await expect(page.getByRole('table')).toHaveCount(0);
  await expect(page).toHaveURL(/#\/dashboard$/);
  for (const [theme, scheme] of [
    ['Dark theme', 'dark'],
    ['Mixed theme', 'light'],
  ] as const) {
    await page.getByRole('button', { name: 'Theme' }).click();
    await page.getByRole('menuitem', { name: theme }).click();
    await expect(page.getByRole('menu')).toBeHidden();
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(360);
    await expectNoAxeViolations(page);
  }
  // The choice is saved to the user's preferences on the server.
  const me = await page.evaluate(() => fetch('/api/v1/current_user').then((r) => r.json()));
  expect(me.user_preferences.applicationMode).toBe('mixed');
});
