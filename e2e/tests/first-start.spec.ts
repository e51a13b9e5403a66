import type { Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type RunningMoat, startMoat } from '../support/server.ts';

/**
 * A fresh install started WITHOUT ADMIN_PASSWORD, as a new user meets it (issue 33): the password
 * is read from the terminal, its first sign-in must choose a new one (on the public login page and
 * inside the console alike) before anything else works, MFA is then offered and can be skipped,
 * the generated password no longer works and the new one does.
 */
const ADMIN = 'owner@first-start.test';
let moat: RunningMoat;
let generated: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  // The default log level: no line per request (the output is read below).
  moat = await startMoat({ env: { ADMIN_EMAIL: ADMIN, LOG_LEVEL: 'info' } });
  const box = moat.output();
  generated = /Generated admin password \(shown only this once, store it now\): (\S+)/.exec(box)![1]!;
  expect(box).toContain('It works once: the first sign-in asks you to choose your own password.');
  // Where the sign-in link comes from: PUBLIC_URL (here its default), which emails use too.
  expect(box).toMatch(/Sign in at http:\/\/localhost:\d+\/#\/auth\/login/);
  expect(box).toContain("That address is PUBLIC_URL's default (PUBLIC_URL is not set)");
});
test.afterAll(async () => {
  await moat?.stop();
});

async function signIn(page: Page, password: string) {
  await page.getByLabel('Email').fill(ADMIN);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const newPassword = 'my own first-start password';

test('the generated password signs in once, to choose a new one; then MFA is offered and can wait', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  // Inside the console (its own login page): the step shows, and signing out ends it.
  await page.goto(`${moat.url}/#/auth/login?signIn=console`);
  await signIn(page, generated);
  const step = page.getByRole('heading', { level: 1, name: 'Choose a new password' });
  await expect(step).toBeVisible();
  await expect(page.getByText('generated when Moat first started and works only once')).toContainText(ADMIN);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();

  // Opened afresh (the public bundle's login page): the same step, handed to the console.
  await page.goto(`${moat.url}/#/auth/login`);
  await signIn(page, generated);
  await expect(step).toBeVisible();
  await expectNoAxeViolations(page);
  // Nothing else opens meanwhile: the console comes back to the step.
  await page.goto(`${moat.url}/#/dashboard`);
  await expect(step).toBeVisible();
  await expect(page).toHaveURL(/#\/auth\/login/);
  const refused = await page.request.get(`${moat.url}/api/v1/current_user`);
  expect(refused.status()).toBe(403);
  expect((await refused.json()).code).toBe('password_change_required');

  // The rules of every new password, and not the generated one.
  const fresh = page.getByRole('textbox', { name: 'New password' });
  const confirm = page.getByRole('textbox', { name: 'Confirm password' });
  const save = page.getByRole('button', { name: 'Save and continue' });
  await fresh.fill('short');
  await confirm.fill('short');
  await save.click();
  await expect(page.getByText('The password must be at least 8 characters long.')).toBeVisible();
  await fresh.fill(generated);
  await confirm.fill(generated);
  await save.click();
  await expect(page.getByText('Choose a password other than the one you signed in with.')).toBeVisible();
  await fresh.fill(newPassword);
  await confirm.fill(`${newPassword}!`);
  await save.click();
  await expect(page.getByText('The passwords do not match.')).toBeVisible();
  await confirm.fill(newPassword);
  await save.click();

  // MFA is offered; this tenant does not require it, so it can wait.
  const mfa = page.getByRole('dialog', { name: 'Multi-factor authentication' });
  await expect(mfa.getByText('Protect your account with a second step')).toBeVisible();
  await expect(mfa.getByRole('button', { name: 'Set up' })).toBeVisible();
  await expectNoAxeViolations(page);
  await mfa.getByRole('button', { name: 'Skip for now' }).click();
  // A new organisation: its admin is led to onboarding.
  await expect(page).toHaveURL(/#\/onboarding$/);
  await expect(page.getByRole('heading', { name: 'Set up Moat for your organisation' })).toBeVisible();

  // Another browser: the generated password is gone, the new one signs straight in.
  const other = await browser.newPage();
  try {
    await other.goto(`${moat.url}/#/auth/login`);
    await signIn(other, generated);
    await expect(other.getByText('Invalid email or password.')).toBeVisible();
    await other.getByRole('textbox', { name: 'Password' }).fill(newPassword);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other).toHaveURL(/#\/onboarding$/);
    await expect(other.getByRole('heading', { name: 'Choose a new password' })).toBeHidden();
  } finally {
    await other.close();
  }

  // All of this wrote no line per request at the default log level.
  expect(moat.output()).not.toMatch(/"msg":"(request|incoming request|request completed)"/);
});
