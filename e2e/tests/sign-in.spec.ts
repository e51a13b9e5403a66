import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import type { RunningMoat } from '../support/server.ts';

const step = () => Math.floor(Date.now() / 30_000);
/**
 * The TOTP code of a time step, computed by oathtool (independently of Moat's own code). Naming
 * the step keeps a test from racing a 30 s boundary.
 */
const oathtool = (secret: string, atStep: number) => {
  const at = `${new Date(atStep * 30_000).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  return execFileSync('oathtool', ['--totp', '-b', '--now', at, secret], { encoding: 'utf8' }).trim();
};
const codeOf = (text: string) => /^(\d{6})$/m.exec(text)?.[1] ?? '';

async function signIn(page: Page, moat: RunningMoat, email: string, password: string) {
  await page.goto(`${moat.url}/#/auth/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function logout(page: Page) {
  await page.getByRole('button', { name: /User menu of/ }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/#\/auth\/login/);
}

test.describe('sign-in with MFA required by the admin', () => {
  test.describe.configure({ mode: 'serial' });
  let env: MoatWithMail;
  test.beforeAll(async () => {
    env = await startMoatWithMail();
    expect((await env.cli('tenant:update', '--tenant', 'acme.test', '--mfa-required', 'on')).code).toBe(0);
    expect(
      (
        await env.cli(
          'user:create',
          '--email',
          'bob@acme.test',
          '--role',
          'user',
          '--password',
          'bob-password-1',
        )
      ).code,
    ).toBe(0);
    expect((await env.cli('tenant:create', '--name', 'Beta', '--domain', 'beta.test')).code).toBe(0);
    expect(
      (
        await env.cli(
          'user:create',
          '--email',
          'carol@beta.test',
          '--role',
          'user',
          '--password',
          'carol-password-1',
        )
      ).code,
    ).toBe(0);
  });
  test.afterAll(async () => {
    await env.stop();
  });

  test('emailed code, then MFA setup with oathtool, dashboard; the next sign-in takes the next code and refuses a replay', async ({
    page,
    pageErrors,
  }) => {
    test.setTimeout(120_000);
    await signIn(page, env.moat, 'admin@acme.test', 'admin-password-1');
    const mailDialog = page.getByRole('dialog', { name: 'Confirm your email address' });
    await expect(mailDialog).toBeVisible();
    const mail = await env.sink.waitFor(
      'admin@acme.test',
      (m) => m.subject === 'Your Moat verification code',
    );
    expect(mail.html).toContain('Confirm your email address');
    await mailDialog.getByLabel('Code from the email').fill(codeOf(mail.text));
    await mailDialog.getByRole('button', { name: 'Verify' }).click();

    const setup = page.getByRole('dialog', { name: 'Set up multi-factor authentication' });
    await expect(
      setup.getByRole('img', { name: 'QR code to add your account to an authenticator app' }),
    ).toBeVisible();
    const secret = (await setup.locator('.mfa-secret').innerText()).replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const setupStep = step();
    await setup.getByLabel('Code from the app').fill(oathtool(secret, setupStep));
    await setup.getByRole('button', { name: 'Verify and sign in' }).click();
    await expect(page).toHaveURL(/#\/dashboard$/);

    await logout(page);
    // A code of a later time step than the one just used (the server accepts ±1 step).
    while (step() <= setupStep) await page.waitForTimeout(500);
    const next = oathtool(secret, setupStep + 1);
    await signIn(page, env.moat, 'admin@acme.test', 'admin-password-1');
    await expect(page.getByRole('heading', { name: 'Enter your verification code' })).toBeVisible();
    await page.getByRole('textbox', { name: 'Verification code' }).fill(next);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(/#\/dashboard$/);

    await logout(page);
    await signIn(page, env.moat, 'admin@acme.test', 'admin-password-1');
    await page.getByRole('textbox', { name: 'Verification code' }).fill(next);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByText('The code is not valid. Try again with the current code.')).toBeVisible();
    await expect(page).toHaveURL(/#\/auth\/login/);
    expect(pageErrors).toEqual([]);
  });

  test('three wrong emailed codes disable the submit with the max-attempts message', async ({ page }) => {
    await signIn(page, env.moat, 'bob@acme.test', 'bob-password-1');
    const dialog = page.getByRole('dialog', { name: 'Confirm your email address' });
    await expect(dialog).toBeVisible();
    const right = codeOf((await env.sink.waitFor('bob@acme.test')).text);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) {
      await dialog.getByLabel('Code from the email').fill(wrong);
      await dialog.getByRole('button', { name: 'Verify' }).click();
      if (i < 2)
        await expect(
          dialog.getByText('The code is not correct. Check the email and try again.'),
        ).toBeVisible();
    }
    await expect(
      dialog.getByText('You have entered a wrong code 3 times. Send a new code or sign in again.'),
    ).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Verify' })).toBeDisabled();
  });

  test('forgot password: email, link, new password, sign in; the same link again is refused', async ({
    page,
  }) => {
    await page.goto(`${env.moat.url}/#/auth/forgot-password`);
    await page.getByLabel('Email').fill('carol@beta.test');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(
      page.getByText('If an account exists for this address, an email with a reset link is on its way.'),
    ).toBeVisible();
    const mail = await env.sink.waitFor('carol@beta.test', (m) => m.subject === 'Reset your Moat password');
    const link = /(http\S+#\/auth\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
    expect(link).toBeDefined();
    const sameOrigin = link!.replace(/^https?:\/\/[^/]+/, env.moat.url);
    await page.goto(sameOrigin);
    await page.getByRole('textbox', { name: 'New password' }).fill('carol-new-password');
    await page.getByRole('textbox', { name: 'Confirm password' }).fill('carol-new-password');
    await page.getByRole('button', { name: 'Save password' }).click();
    await expect(
      page.getByText('Your password has been changed. You can now sign in with it.'),
    ).toBeVisible();
    const notice = await env.sink.waitFor(
      'carol@beta.test',
      (m) => m.subject === 'Your Moat password was changed',
    );
    expect(notice.text).toContain('Every other session was signed out');

    await signIn(page, env.moat, 'carol@beta.test', 'carol-new-password');
    await expect(page).toHaveURL(/#\/dashboard$/);
    await logout(page);

    await page.goto(sameOrigin);
    await page.getByRole('textbox', { name: 'New password' }).fill('another-password');
    await page.getByRole('textbox', { name: 'Confirm password' }).fill('another-password');
    await page.getByRole('button', { name: 'Save password' }).click();
    await expect(
      page.getByText('This password link is invalid, has expired or was already used. Ask for a new one.'),
    ).toBeVisible();
  });
});

test.describe('brute-force protection', () => {
  // The lockout's waits double from 1 s and a refused attempt is not counted: on a loaded machine
  // the right password can come just as the last wait ends. A retry starts a fresh Moat (beforeAll);
  // a lockout that does not hold fails every try.
  test.describe.configure({ retries: 2 });
  let env: MoatWithMail;
  test.beforeAll(async () => {
    env = await startMoatWithMail();
    expect(
      (
        await env.cli(
          'user:create',
          '--email',
          'dave@acme.test',
          '--role',
          'user',
          '--password',
          'dave-password-1',
        )
      ).code,
    ).toBe(0);
  });
  test.afterAll(async () => {
    await env.stop();
  });

  test('twenty wrong passwords: the right one is then refused with the same message', async ({ page }) => {
    test.setTimeout(120_000);
    await page.goto(`${env.moat.url}/#/auth/login`);
    await page.getByLabel('Email').fill('dave@acme.test');
    const password = page.getByRole('textbox', { name: 'Password' });
    const refused = page.getByText('Invalid email or password.');
    for (let i = 0; i < 20; i++) {
      await password.fill(`wrong-password-${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(refused).toBeVisible();
      await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    }
    await password.fill('dave-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(refused).toBeVisible();
    await page.waitForTimeout(500);
    await expect(page).toHaveURL(/#\/auth\/login/);
  });
});
