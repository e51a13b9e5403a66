import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { ROOT } from '../support/server.ts';

const INVOICE = path.join(ROOT, 'e2e/fixtures/invoice.eml');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A released spam or suspicious message: the original text and attachment, byte for byte, under
 * the warning the gateway gives such mail when it delivers it (the banner, first in the text).
 */
function expectReleasedWithWarning(parsed: ParsedMail, original: ParsedMail) {
  const text = parsed.text ?? '';
  expect(text).toMatch(/^Caution: this message (is probably spam|looks suspicious)\./);
  expect(text.trim().endsWith(original.text!.trim())).toBe(true);
  expect(parsed.headers.get('x-moat-warning')).toBeTruthy();
  expect(sha256(parsed.attachments[0]!.content)).toBe(sha256(original.attachments[0]!.content));
}

test.describe('quarantine: link scanners and strangers', () => {
  let env: MoatWithMail;
  test.beforeAll(async () => {
    env = await startMoatWithMail();
  });
  test.afterAll(async () => {
    await env.stop();
  });

  test('fetching the link and every GET call restores nothing; another address never gets a code', async ({
    request,
  }) => {
    await env.cli('features:list', '--tenant', 'acme.test');
    const imported = await env.cli(
      'quarantine:import',
      '--file',
      INVOICE,
      '--recipient',
      'ana@acme.test',
      '--verdict',
      'spam',
    );
    expect(imported.code).toBe(0);
    const link = /Restore email: (\S+)/.exec(imported.stdout)?.[1];
    expect(link).toBeDefined();
    const msg = new URL(link!.replace('/#/', '/')).searchParams.get('msg')!;
    const notice = await env.sink.waitFor(
      'ana@acme.test',
      (m) => m.subject === 'A message to you was held: Invoice 4711 overdue',
    );
    expect(notice.text).toContain(link!);

    // What a link scanner does: fetch the page and every read-only call it could find.
    const before = env.sink.mails.length;
    for (const url of [
      link!.replace(/^https?:\/\/[^/]+/, env.moat.url),
      `${env.moat.url}/email_restore.html?type=office365_emails&msg=${msg}`,
      `${env.moat.url}/api/v1/office365_emails/${msg}/entity_exists`,
      `${env.moat.url}/api/v1/office365_emails/restore?msg=${msg}&rnd=1`,
      `${env.moat.url}/api/v1/office365_emails/restore/${msg}/status`,
      `${env.moat.url}/api/v1/office365_emails/restore_original?msg=${msg}&mode=automatic`,
      `${env.moat.url}/api/v1/office365_emails/user_response?id=${msg}`,
    ]) {
      const res = await request.get(url, { maxRedirects: 0 });
      expect(res.status(), url).toBeLessThan(500);
    }
    const status = await request.get(`${env.moat.url}/api/v1/office365_emails/restore/${msg}/status`);
    expect((await status.json()).status).toBe('quarantined');
    await new Promise((r) => setTimeout(r, 1000));
    expect(env.sink.mails.length).toBe(before);

    // A stranger asks for a code: the same answer, but no email to anyone.
    const stranger = await request.post(
      `${env.moat.url}/api/v1/office365_emails/verify_recipient?msg=${msg}&email=${encodeURIComponent('mallory@acme.test')}`,
      { data: { action_name: 'email_restore' }, headers: { 'x-requested-with': 'e2e' } },
    );
    expect((await stranger.json()).status).toBe('ok');
    await new Promise((r) => setTimeout(r, 1000));
    expect(env.sink.mails.filter((m) => m.to.includes('mallory@acme.test'))).toEqual([]);
    expect(env.sink.mails.length).toBe(before);
  });

  test('unknown identifiers and missing parameters never answer 5xx', async ({ request }) => {
    const exists = await request.get(`${env.moat.url}/api/v1/office365_emails/unknown/entity_exists`);
    expect(await exists.json()).toEqual({ isExists: false });
    for (const [method, url] of [
      ['GET', '/api/v1/office365_emails/restore'],
      ['GET', '/api/v1/office365_emails/restore?msg=unknown'],
      ['GET', '/api/v1/office365_emails/restore/unknown/status'],
      ['GET', '/api/v1/office365_emails/restore_original?msg=unknown'],
      ['GET', '/api/v1/office365_emails/user_response'],
      ['GET', '/api/v1/Bad-Type!/restore?msg=x'],
      ['POST', '/api/v1/office365_emails/identification_needed'],
      ['POST', '/api/v1/office365_emails/verify_recipient?msg=unknown&email=a@b.cd'],
      ['POST', '/api/v1/office365_emails/restore?msg=unknown'],
      ['POST', '/api/v1/office365_emails/phish_request_restore'],
      ['POST', '/api/v1/office365_emails/restore_original?msg=unknown'],
    ] as const) {
      const res =
        method === 'GET'
          ? await request.get(`${env.moat.url}${url}`)
          : await request.post(`${env.moat.url}${url}`, {
              data: { action_name: 'email_restore', commentary: 'x' },
              headers: { 'x-requested-with': 'e2e' },
            });
      expect(res.status(), `${method} ${url}`).toBeGreaterThanOrEqual(400);
      expect(res.status(), `${method} ${url}`).toBeLessThan(500);
    }
  });

  test('a released message arrives with its text and attachment intact, under the warning', async ({
    request,
  }) => {
    const imported = await env.cli(
      'quarantine:import',
      '--file',
      INVOICE,
      '--recipient',
      'bo@acme.test',
      '--verdict',
      'spam',
    );
    const msg = new URL(
      /Restore email: (\S+)/.exec(imported.stdout)![1]!.replace('/#/', '/'),
    ).searchParams.get('msg')!;
    const headers = { 'x-requested-with': 'e2e' };
    await request.post(
      `${env.moat.url}/api/v1/office365_emails/verify_recipient?msg=${msg}&email=bo%40acme.test`,
      {
        data: { action_name: 'email_restore' },
        headers,
      },
    );
    const codeMail = await env.sink.waitFor(
      'bo@acme.test',
      (m) => m.subject === 'Your Moat verification code',
    );
    const code = /^(\d{6})$/m.exec(codeMail.text)![1]!;
    for (let i = 0; i < 3; i++) {
      const res = await request.get(
        `${env.moat.url}/api/v1/office365_emails/restore?msg=${msg}&email=bo%40acme.test&code=${code}&rnd=${i}`,
      );
      expect((await res.json()).status).toBe('restored');
    }
    const released = await env.sink.waitFor('bo@acme.test', (m) => m.subject === 'Invoice 4711 overdue');
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      env.sink.mails.filter((m) => m.to.includes('bo@acme.test') && m.subject === 'Invoice 4711 overdue'),
    ).toHaveLength(1);
    const original = await simpleParser(fs.readFileSync(INVOICE));
    expect(released.raw).toBeDefined();
    const parsed = await simpleParser(released.raw!);
    expectReleasedWithWarning(parsed, original);
  });
});

test.describe('quarantine in a real browser', () => {
  test.describe.configure({ mode: 'serial' });
  let env: MoatWithMail;
  test.beforeAll(async () => {
    env = await startMoatWithMail();
  });
  test.afterAll(async () => {
    await env.stop();
  });

  async function importFor(recipient: string, ...args: string[]) {
    const out = await env.cli('quarantine:import', '--file', INVOICE, '--recipient', recipient, ...args);
    expect(out.code, out.stderr).toBe(0);
    const notice = await env.sink.waitFor(recipient, (m) =>
      /^(A message to you was held|An attachment was removed)/.test(m.subject),
    );
    const link = /(http\S+#\/email-actions\/restore-(?:email|original)\?\S+)/.exec(notice.text)?.[1];
    expect(link).toBeDefined();
    return link!.replace(/^https?:\/\/[^/]+/, env.moat.url);
  }

  async function proveAddress(page: import('@playwright/test').Page, recipient: string) {
    await page.getByLabel('Enter your email address:').fill(recipient);
    await page.getByRole('button', { name: 'Send code' }).click();
    const mail = await env.sink.waitFor(recipient, (m) => m.subject === 'Your Moat verification code');
    return /^(\d{6})$/m.exec(mail.text)![1]!;
  }

  test('request mode: notification → code → message → the admin approves → the original arrives, its attachment byte-identical, under the warning', async ({
    page,
    browser,
  }) => {
    test.setTimeout(120_000);
    const link = await importFor('ana@acme.test', '--verdict', 'suspicious');
    await page.goto(link);
    const code = await proveAddress(page, 'ana@acme.test');
    await page.getByLabel('Enter the verification code that was sent to you').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page
      .getByLabel('Enter a message to be sent with the email restore request')
      .fill('I need this invoice for the audit');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(
      page.getByText('The admin has received your request, your email will return once approved.'),
    ).toBeVisible();

    const admin = await browser.newPage();
    await admin.goto(`${env.moat.url}/#/auth/login`);
    await admin.getByLabel('Email').fill('admin@acme.test');
    await admin.getByRole('textbox', { name: 'Password' }).fill('admin-password-1');
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await expect(admin).toHaveURL(/#\/dashboard$/);
    await admin.goto(`${env.moat.url}/#/user-interaction/restore-request-and-clean-attachments`);
    await expect(admin.getByText('I need this invoice for the audit')).toBeVisible();
    await admin.getByRole('button', { name: 'Approve the request for Invoice 4711 overdue' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();

    await expect(page.getByText('The email was restored to your mailbox.')).toBeVisible({ timeout: 20_000 });
    const released = await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Invoice 4711 overdue');
    const original = await simpleParser(fs.readFileSync(INVOICE));
    expectReleasedWithWarning(await simpleParser(released.raw), original);
    await admin.close();
  });

  test('the action page: "report as safe" from the notification, proven by a code', async ({ page }) => {
    await importFor('erik@acme.test', '--verdict', 'spam');
    const notice = await env.sink.waitFor('erik@acme.test', (m) =>
      m.subject.startsWith('A message to you was held'),
    );
    const link = /Report this message as safe to your administrator: (\S+)/
      .exec(notice.text)![1]!
      .replace(/^https?:\/\/[^/]+/, env.moat.url);
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'User Verification' })).toBeVisible();
    const code = await proveAddress(page, 'erik@acme.test');
    await page.getByLabel('Enter the verification code that was sent to you').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('heading', { name: 'Thank You' })).toBeVisible();
    await expect(page.getByText('Requested action performed successfully')).toBeVisible();
  });

  test('the public restore page (its own lean bundle): no axe violations and no sideways scroll, both themes, 360 and 1440 px', async ({
    page,
  }) => {
    for (const theme of ['mixed', 'dark'] as const) {
      for (const width of [360, 1440]) {
        const link = await importFor(`axe-${theme}-${width}@acme.test`, '--verdict', 'spam');
        await page.setViewportSize({ width, height: 760 });
        await page.goto(link);
        await page.evaluate((mode) => localStorage.setItem('moat.theme', mode), theme);
        await page.reload();
        await expect(page.locator('html')).toHaveAttribute(
          'data-mantine-color-scheme',
          theme === 'dark' ? 'dark' : 'light',
        );
        // The email form with its error, then the code form with a notice and an error.
        await page.getByRole('button', { name: 'Send code' }).click();
        await expect(page.getByText('Enter your email address.')).toBeVisible();
        await expectNoAxeViolations(page);
        await page.getByLabel('Enter your email address:').fill(`axe-${theme}-${width}@acme.test`);
        await page.getByRole('button', { name: 'Send code' }).click();
        await page.getByLabel('Enter the verification code that was sent to you').fill('12');
        await page.getByRole('button', { name: 'Verify' }).click();
        await expect(page.getByText('Enter the 6-digit code.')).toBeVisible();
        await expect(page.getByRole('status')).toContainText('a verification code is on its way');
        await expectNoAxeViolations(page);
        const sideways = await page.evaluate(
          () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
        );
        expect(sideways, `${theme} at ${width} px`).toBe(false);
      }
    }
    // The public pages loaded their own bundle, not the console's.
    const loaded = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname),
    );
    expect(loaded.filter((file) => /^\/assets\/public-main-.*\.js$/.test(file))).toHaveLength(1);
    expect(loaded.filter((file) => /^\/assets\/main-/.test(file))).toEqual([]);
  });

  test('three wrong codes reach the max-attempts state', async ({ page }) => {
    const link = await importFor('carl@acme.test', '--verdict', 'spam');
    await page.goto(link);
    const right = await proveAddress(page, 'carl@acme.test');
    const wrong = right === '000000' ? '111111' : '000000';
    const field = page.getByLabel('Enter the verification code that was sent to you');
    for (let i = 0; i < 3; i++) {
      await field.fill(wrong);
      await page.getByRole('button', { name: 'Verify' }).click();
      if (i < 2)
        await expect(page.getByText(`The code is not valid. Attempts left: ${2 - i}.`)).toBeVisible();
    }
    await expect(page.getByText('You have reached the maximum number of attempts.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Verify' })).toBeDisabled();
  });

  test('stripped attachments: restore-original brings the original back', async ({ page }) => {
    const link = await importFor('dora@acme.test', '--verdict', 'spam', '--strip-attachments');
    expect(link).toContain('#/email-actions/restore-original?');
    const stripped = await env.sink.waitFor('dora@acme.test', (m) => m.subject === 'Invoice 4711 overdue');
    expect((await simpleParser(stripped.raw)).attachments).toHaveLength(0);
    await page.goto(link);
    // The page's own heading shows only while the link is checked (a moment); then the recipient is
    // asked to prove their address.
    await expect(page.getByRole('heading', { name: 'User Verification' })).toBeVisible();
    const code = await proveAddress(page, 'dora@acme.test');
    await page.getByLabel('Enter the verification code that was sent to you').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByText('Attachment restored successfully!')).toBeVisible();
    const restored = await env.sink.waitFor(
      'dora@acme.test',
      (m) => m.subject === 'Invoice 4711 overdue' && m !== stripped,
    );
    const original = await simpleParser(fs.readFileSync(INVOICE));
    expect(sha256((await simpleParser(restored.raw)).attachments[0]!.content)).toBe(
      sha256(original.attachments[0]!.content),
    );
  });
});
