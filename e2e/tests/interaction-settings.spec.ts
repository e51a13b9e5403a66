import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * Settings → User Interaction (issue 33): the notice wording set on Quarantine is the wording of
 * the next notice in the recipient's mailbox (the SMTP sink); the answer set on Phishing Reports
 * is what a reporter reads on the page and in the receipt mailed to them.
 */
let env: MoatWithMail;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  env = await startMoatWithMail();
  const flags = await env.cli('features:set', '--tenant', 'acme.test', 'enableUserInteractionScreen=on');
  expect(flags.code, flags.stderr).toBe(0);
  await env.cli(
    'user:create',
    '--email',
    'ana@acme.test',
    '--role',
    'user',
    '--password',
    'a long password 1',
  );
});
test.afterAll(async () => {
  await env.stop();
});

test('the wording set on Quarantine and Phishing Reports is what recipients and reporters get', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const signIn = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(signIn.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);

  // Settings → User Interaction → Quarantine: the notice's subject and introduction.
  await page.goto(`${env.moat.url}/#/configuration/user-interaction/restore-requests`);
  // Its place: Security Settings → User Interaction → Quarantine.
  await expect(
    page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'User Interaction' }),
  ).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Quarantine', level: 1 })).toBeVisible();
  const subject = page.getByRole('textbox', { name: /Notice subject/ });
  await subject.fill('Acme held this for you: see www.evil.example');
  await expect(page.getByText(/No web address, host name or email address/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save' })).toBeDisabled();
  await subject.fill('Acme security kept aside: {subject}');
  await page
    .getByRole('textbox', { name: /Notice introduction/ })
    .fill('Our security desk keeps risky mail away from your inbox.');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved. Moat uses these settings from now on.')).toBeVisible();

  // Phishing Reports: the answer on receipt, also mailed; a reported message held for review.
  await page.goto(`${env.moat.url}/#/configuration/user-interaction/phishing-reports`);
  await expect(page.getByRole('heading', { name: 'Phishing Reports', level: 1 })).toBeVisible();
  await page
    .getByRole('textbox', { name: /On receipt/ })
    .fill('Thanks, the security desk looks at it today.');
  await page.getByRole('switch', { name: /Also email the reporter a receipt/ }).check();
  await page.getByRole('radio', { name: 'Hold it for review' }).check();
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved. Moat uses these settings from now on.')).toBeVisible();

  // A lookalike sender's message is held; its notice is in the organisation's words.
  const sent = await env.swaks([
    '--from',
    'it@acrne.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Your mailbox is full',
    '--body',
    'Sign in at http://acrne.test/login to keep your mail',
  ]);
  expect(sent.code, sent.out).toBe(0);
  const notice = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'Acme security kept aside: Your mailbox is full',
  );
  expect(notice.text).toContain('Our security desk keeps risky mail away from your inbox.');
  expect(notice.html).toContain('Our security desk keeps risky mail away from your inbox.');

  // The recipient reports it from the notice; the page and the receipt say the words set.
  const link = /Report this message as phishing to your administrator: (\S+)/
    .exec(notice.text)![1]!
    .replace(/^https?:\/\/[^/]+/, env.moat.url);
  await page.context().clearCookies();
  await page.goto(link);
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
  await expect(page.getByText('Thanks, the security desk looks at it today.')).toBeVisible();
  const receipt = await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'We received your report');
  expect(receipt.text).toContain('Thanks, the security desk looks at it today.');
  expect(receipt.text).toContain('Your mailbox is full');
  expect(receipt.html).not.toMatch(/href="[^"]*acrne/);
});

test('both settings pages fit 360 px', async ({ page }) => {
  test.setTimeout(60_000);
  const signIn = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(signIn.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  for (const path of [
    '/configuration/user-interaction/restore-requests',
    '/configuration/user-interaction/phishing-reports',
  ]) {
    await page.goto(`${env.moat.url}/#${path}`);
    await expect(page.getByRole('button', { name: 'Save' })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, path).toBeLessThanOrEqual(0);
  }
});
