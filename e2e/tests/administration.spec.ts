import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { mailScenarios } from '../support/mail-scenarios.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * Administration from the browser (issue 12), over the real server and a real SMTP sink: the admin
 * invites Kim from User Management; Kim chooses a password from the emailed link, signs in, turns
 * MFA on from My account with a code from oathtool, sees only her own held mail and asks for one
 * back; the admin disables her and her session ends; System Logs shows each step and exports them;
 * a logo uploaded in Customization shows on the sign-in and public pages, and an SVG with a script
 * is refused.
 */
let env: MoatWithMail;
let mail: ReturnType<typeof mailScenarios>;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  env = await startMoatWithMail();
  mail = mailScenarios(env);
});
test.afterAll(async () => {
  await env?.stop();
  mail?.cleanUp();
});

const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, env.moat.url);
/** The TOTP code of now, computed by oathtool (independently of Moat's own code). */
const oathtool = (secret: string) =>
  execFileSync('oathtool', ['--totp', '-b', secret], { encoding: 'utf8' }).trim();

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

test('an admin invites a user who signs in, turns MFA on, asks for her held mail; disabled, she is out; the audit log shows it all', async ({
  page,
  browser,
  pageErrors,
}) => {
  test.setTimeout(240_000);
  await mail.signInAdmin(page);

  // User Management: invite Kim.
  await page.goto(`${env.moat.url}/#/system-settings/user-management`);
  await page.getByRole('button', { name: 'Invite user' }).click();
  const invite = page.getByRole('dialog', { name: 'Invite a user' });
  await invite.getByRole('textbox', { name: /Email address/ }).fill('kim@acme.test');
  await invite.getByRole('textbox', { name: 'First name' }).fill('Kim');
  await invite.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByText('Invitation sent to kim@acme.test.')).toBeVisible();
  await expectNoAxeViolations(page);

  // The invitation arrives; its link chooses a password.
  const invitation = await env.sink.waitFor('kim@acme.test', (m) => m.subject === 'You are invited to Moat');
  expect(invitation.text).toContain('admin@acme.test invited kim@acme.test');
  const link = /(https?:\/\/\S+reset-password\?token=[\w%-]+)/.exec(invitation.text)![1]!;
  const kim = await newPage(browser);
  await kim.goto(local(link));
  await kim.getByLabel(/^New password/).fill('kims password 1');
  await kim.getByLabel(/^Confirm password/).fill('kims password 1');
  await kim.getByRole('button', { name: 'Save password' }).click();
  await expect(kim.getByText('Your password has been changed. You can now sign in with it.')).toBeVisible();

  // Kim signs in with it.
  await kim.goto(`${env.moat.url}/#/auth/login`);
  await kim.getByLabel('Email').fill('kim@acme.test');
  await kim.getByRole('textbox', { name: 'Password' }).fill('kims password 1');
  await kim.getByRole('button', { name: 'Sign in' }).click();
  await expect(kim).toHaveURL(/#\/dashboard$/);

  // My account → MFA, with a code from oathtool.
  await kim.getByRole('button', { name: /User menu of kim@acme.test/ }).click();
  await kim.getByRole('menuitem', { name: 'My account' }).click();
  const account = kim.getByRole('dialog', { name: 'My account' });
  await expect(account.getByText('This session')).toBeVisible();
  await account.getByRole('button', { name: 'Set up MFA' }).click();
  const mfa = kim.getByRole('dialog', { name: 'Multi-factor authentication' });
  await mfa.getByRole('button', { name: 'Set up' }).click();
  const secret = (await mfa.locator('.mfa-secret').innerText()).replace(/\s+/g, '');
  await mfa.getByLabel('Code from the app').fill(oathtool(secret));
  await mfa.getByRole('button', { name: 'Verify and turn on' }).click();
  await expect(mfa.getByRole('status', { name: 'Multi-factor authentication is on' })).toBeVisible();
  await mfa.getByRole('button', { name: 'Done' }).click();
  await expect(mfa.getByRole('button', { name: 'Turn off' })).toBeVisible();
  await mfa.getByRole('button', { name: 'Close' }).click();
  await expect(mfa).toHaveCount(0);

  // Her own held mail only, and a request for one as the policy allows (phishing: on request).
  await mail.sendPhishing('kim@acme.test', 'Your parcel is waiting');
  await mail.sendPhishing('ana@acme.test', 'Not for Kim');
  await kim.goto(`${env.moat.url}/#/user-interaction/quarantine-item`);
  const mine = kim.getByRole('table', { name: 'Your held messages' });
  await expect(mine.getByText('Your parcel is waiting')).toBeVisible();
  await expect(mine.getByText('Not for Kim')).toHaveCount(0);
  await kim.getByRole('button', { name: 'Ask to restore Your parcel is waiting' }).click();
  const ask = kim.getByRole('dialog', { name: 'Ask an admin to restore it' });
  await ask.getByRole('textbox', { name: /Why you need this message/ }).fill('I am expecting a parcel');
  await ask.getByRole('button', { name: 'Send request' }).click();
  await expect(kim.getByRole('status').getByText(/received your request/)).toBeVisible();
  await expect(kim.getByRole('dialog')).toHaveCount(0);
  await expectNoAxeViolations(kim);

  // The admin disables Kim: her session ends at her next request.
  await page.goto(`${env.moat.url}/#/system-settings/user-management`);
  await page.getByRole('button', { name: 'Edit kim@acme.test' }).click();
  await page.getByRole('dialog', { name: 'kim@acme.test' }).getByRole('button', { name: 'Disable' }).click();
  await page
    .getByRole('dialog', { name: 'Disable kim@acme.test?' })
    .getByRole('button', { name: 'Disable' })
    .click();
  await expect(page.getByText('kim@acme.test is disabled and was signed out everywhere.')).toBeVisible();
  await kim.reload();
  await expect(kim).toHaveURL(/#\/auth\/login/);

  // System Logs: every step, and the CSV of them.
  await page.goto(`${env.moat.url}/#/system-settings/system-logs`);
  const log = page.getByRole('table', { name: 'Audit log' });
  for (const action of [
    'Invited a user',
    'Accepted an invitation',
    'Turned two-factor sign-in on',
    'Asked for a message to be restored',
    'Disabled a user',
  ]) {
    await expect(log.getByText(action, { exact: true }).first(), action).toBeVisible();
  }
  await page.getByRole('textbox', { name: 'Actor' }).fill('kim@');
  await page.getByRole('textbox', { name: 'Actor' }).press('Enter');
  await expect(log.getByText('Invited a user', { exact: true })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Actor' }).fill('');
  await page.getByRole('textbox', { name: 'Actor' }).press('Enter');
  // The filter is gone (the export link carries the list's filters) before the export.
  await expect(log.getByText('Invited a user', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Export CSV' })).not.toHaveAttribute('href', /actor=/);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export CSV' }).click(),
  ]);
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  expect(csv).toContain('created_at,actor_type,actor,action,target_type,target_id,ip,details');
  for (const action of ['"user.invite"', '"user.disable"', '"quarantine.restore_requested"'])
    expect(csv).toContain(action);
  await expectNoAxeViolations(page);
  expect(pageErrors).toEqual([]);
});

test('a logo uploaded in Customization shows on the sign-in and public pages; an SVG with a script is refused', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await mail.signInAdmin(page);
  await page.goto(`${env.moat.url}/#/system-settings/customization`);
  const file = page.locator('input[type="file"]');
  await file.setInputFiles({
    name: 'evil.svg',
    mimeType: 'image/svg+xml',
    buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>'),
  });
  await page.getByRole('button', { name: 'Upload logo' }).click();
  await expect(page.getByText(/This SVG holds an event handler/)).toBeVisible();

  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );
  await file.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
  await page.getByRole('button', { name: 'Upload logo' }).click();
  await expect(page.getByText('Your logo is in use now.')).toBeVisible();

  const visitor = await newPage(browser);
  for (const path of ['/auth/login', '/email-actions/action']) {
    await visitor.goto(`${env.moat.url}/#${path}`);
    const logo = visitor.getByRole('img', { name: 'Company logo' });
    await expect(logo).toBeVisible();
    const served = await visitor.request.get(`${env.moat.url}${await logo.getAttribute('src')}`);
    expect(served.headers()['content-type'], path).toBe('image/png');
    expect(Buffer.from(await served.body()).equals(png), path).toBe(true);
  }
});
