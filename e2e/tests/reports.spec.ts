import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * Phishing Reports (issue 11 "Done means"): a held message's notice → its "report as phishing"
 * link → the public action page with the emailed code → the admin confirms in Phishing Reports →
 * every recipient's copy is gone, the sender blocked, the reporter told.
 */
let env: MoatWithMail;

const swaks = (args: string[]) => env.swaks(args);

test.beforeAll(async () => {
  env = await startMoatWithMail();
  for (const email of ['ana@acme.test', 'ben@acme.test']) {
    await env.cli('user:create', '--email', email, '--role', 'user', '--password', 'a long password 1');
  }
});
test.afterAll(async () => {
  await env.stop();
});

test('a recipient reports a held message from the action page and the admin confirms it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const subject = 'Your mailbox is full';
  const sent = await swaks([
    '--from',
    'it@acrne.test',
    '--to',
    'ana@acme.test,ben@acme.test',
    '--header',
    `Subject: ${subject}`,
    '--body',
    'Sign in at http://acrne.test/login to keep your mail',
  ]);
  expect(sent.code, sent.out).toBe(0);
  const notice = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === `A message to you was held: ${subject}`,
  );
  await env.sink.waitFor('ben@acme.test', (m) => m.subject === `A message to you was held: ${subject}`);
  const link = /Report this message as phishing to your administrator: (\S+)/
    .exec(notice.text)![1]!
    .replace(/^https?:\/\/[^/]+/, env.moat.url);

  // The recipient proves their address with the emailed code; the page says what happened.
  await page.goto(link);
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
  await expect(
    page.getByText('Your administrator will review the message you reported as phishing.'),
  ).toBeVisible();
  await expectNoAxeViolations(page);

  // The admins are alerted.
  await env.sink.waitFor('admin@acme.test', (m) => m.subject.endsWith('a new report from a recipient'));

  // The admin confirms it in Phishing Reports, blocking the sender.
  const signIn = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(signIn.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.goto(`${env.moat.url}/#/user-interaction/reported-phishing`);
  const table = page.getByRole('table', { name: 'Reported messages' });
  const row = table.getByRole('row').filter({ hasText: 'ana@acme.test' });
  await expect(row.getByText('Open')).toBeVisible();
  await expect(page.getByText('1 waiting').first()).toBeAttached();
  await expectNoAxeViolations(page);
  await row.getByRole('button', { name: `Confirm the report of ${subject}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Confirm this report' });
  await dialog.getByRole('checkbox', { name: 'Also block the sender it@acrne.test' }).check();
  await expectNoAxeViolations(page);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('Report confirmed: 2 held copies removed.')).toBeVisible();
  await expect(row.getByText('Confirmed')).toBeVisible();
  await expect(row.getByText('Sender blocked')).toBeVisible();

  // The reporter is told, with no clickable copy of the message's link.
  const told = await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Your report was confirmed');
  expect(told.text).toContain('removed from every quarantine');
  expect(told.text).not.toContain('http://acrne.test');
  expect(told.html ?? '').not.toMatch(/href="[^"]*acrne/);

  // The colleague's copy is gone too: its links find no message any more.
  const benNotice = await env.sink.waitFor(
    'ben@acme.test',
    (m) => m.subject === `A message to you was held: ${subject}`,
  );
  const benLink = /Report this message as safe to your administrator: (\S+)/.exec(benNotice.text)![1]!;
  const id = new URLSearchParams(benLink.split('?')[1]).get('id')!;
  const gone = await page.request.get(
    `${env.moat.url}/api/v1/office365_emails/user_response?id=${encodeURIComponent(id)}`,
  );
  expect(gone.status()).toBe(404);
});
