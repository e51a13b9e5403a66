import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { expect, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * The mail gateway driven by a real SMTP client (Debian's swaks) with Moat relaying to a local
 * SMTP sink: what arrives, what is held, what is refused (issue 6 "Done means").
 */
let env: MoatWithMail;
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-swaks-'));

const swaks = (args: string[]) => env.swaks(args);

test.beforeAll(async () => {
  env = await startMoatWithMail();
  await env.cli(
    'user:create',
    '--email',
    'ana@acme.test',
    '--role',
    'user',
    '--password',
    'a long password 1',
    '--first-name',
    'Ana',
    '--last-name',
    'Lopez',
  );
});
test.afterAll(async () => {
  await env.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a clean message arrives at the relay unchanged but for the added headers', async () => {
  const sent = await swaks([
    '--from',
    'bob@outside.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Lunch',
    '--body',
    'Lunch at noon?',
  ]);
  expect(sent.code, sent.out).toBe(0);
  expect(sent.out).toMatch(/<-\s+250 2\.0\.0 Ok: queued as [0-9a-f-]{36}/);
  const mail = await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Lunch');
  expect(mail.from).toBe('bob@outside.test');
  const raw = mail.raw.toString();
  const original = raw.slice(raw.indexOf('Date: '));
  expect(original).toContain('Lunch at noon?');
  const added = raw.slice(0, raw.indexOf('Date: '));
  expect(added).toContain('Received-SPF: ');
  expect(added).toContain('Authentication-Results: ');
  expect(added).toMatch(/Received: from client\.test \(\[127\.0\.0\.1\]\)/);
});

test('an EICAR attachment is quarantined and the recipient told; nothing is delivered', async () => {
  fs.writeFileSync(path.join(dir, 'eicar.com.txt'), EICAR);
  const sent = await swaks([
    '--from',
    'bob@outside.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Scan me',
    '--attach-type',
    'text/plain',
    '--attach-name',
    'eicar.com.txt',
    '--attach',
    `@${path.join(dir, 'eicar.com.txt')}`,
  ]);
  expect(sent.code, sent.out).toBe(0);
  const notice = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'A message to you was held: Scan me',
  );
  expect(notice.text).toContain('it contains malware');
  expect(notice.text).toContain('EICAR test file in eicar.com.txt');
  await new Promise((r) => setTimeout(r, 1500));
  expect(env.sink.mails.filter((m) => m.subject === 'Scan me')).toHaveLength(0);
});

test('mail for a domain Moat does not serve is refused with 550', async () => {
  const sent = await swaks([
    '--from',
    'bob@outside.test',
    '--to',
    'someone@elsewhere.test',
    '--body',
    'relay?',
  ]);
  expect(sent.code).not.toBe(0);
  expect(sent.out).toMatch(/<\*\* 550 5\.7\.1 Relaying denied/);
});

test('a lookalike sender domain gets the phishing verdict and is held per policy', async () => {
  const sent = await swaks([
    '--from',
    'it@acrne.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Password expires today',
    '--body',
    'Click to keep it',
  ]);
  expect(sent.code, sent.out).toBe(0);
  const notice = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'A message to you was held: Password expires today',
  );
  expect(notice.text).toContain('it looks like phishing');
  // The reason names the sender's domain, defanged as every word of the sender's in Moat's mail.
  expect(notice.text).toContain('Lookalike sender domain acrne[.]test imitates acme[.]test');
});

test('a .exe under the strip policy is delivered without it, and restore-original brings it back', async ({
  page,
}) => {
  test.setTimeout(90_000);
  expect(
    (await env.cli('gateway:policy', '--tenant', 'acme.test', '--verdict', 'suspicious', '--action', 'strip'))
      .code,
  ).toBe(0);
  expect(
    (
      await env.cli(
        'quarantine:policy',
        '--tenant',
        'acme.test',
        '--verdict',
        'suspicious',
        '--mode',
        'automatic',
      )
    ).code,
  ).toBe(0);
  const program = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 7)]);
  fs.writeFileSync(path.join(dir, 'update.exe'), program);
  const sent = await swaks([
    '--from',
    'bob@outside.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Tool update',
    '--body',
    'Run the attached tool',
    '--attach-type',
    'application/octet-stream',
    '--attach-name',
    'update.exe',
    '--attach',
    `@${path.join(dir, 'update.exe')}`,
  ]);
  expect(sent.code, sent.out).toBe(0);
  const stripped = await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Tool update');
  expect((await simpleParser(stripped.raw)).attachments).toHaveLength(0);
  expect(stripped.text).toContain('Run the attached tool');
  const link = /(http\S+#\/email-actions\/restore-original\?\S+)/
    .exec(stripped.text)![1]!
    .replace(/^https?:\/\/[^/]+/, env.moat.url);

  await page.goto(link);
  // The page's own heading shows only while the link is checked (a moment); then the recipient is
  // asked to prove their address.
  await expect(page.getByRole('heading', { name: 'User Verification' })).toBeVisible();
  await page.getByLabel('Enter your email address:').fill('ana@acme.test');
  await page.getByRole('button', { name: 'Send code' }).click();
  const codeMail = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'Your Moat verification code',
  );
  await page
    .getByLabel('Enter the verification code that was sent to you')
    .fill(/^(\d{6})$/m.exec(codeMail.text)![1]!);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Attachment restored successfully!')).toBeVisible();
  const restored = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'Tool update' && m !== stripped,
  );
  const attachments = (await simpleParser(restored.raw)).attachments;
  expect(attachments.map((a) => a.filename)).toEqual(['update.exe']);
  expect(Buffer.compare(attachments[0]!.content, program)).toBe(0);
});

test('Mail Explorer lists every processed message, clean and held, to the admin', async ({ page }) => {
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.goto(`${env.moat.url}/#/mail-explorer`);
  await expect(page.getByRole('heading', { name: 'Mail Explorer', level: 1 })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Lunch', exact: true })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Scan me', exact: true })).toBeVisible();
  await page
    .getByRole('searchbox')
    .or(page.getByRole('textbox', { name: /search/i }))
    .first()
    .fill('Scan me');
  await expect(page.getByRole('cell', { name: 'Lunch', exact: true })).toBeHidden();
  await expect(page.getByRole('cell', { name: 'Scan me', exact: true })).toBeVisible();
});
