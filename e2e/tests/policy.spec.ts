import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * Issue 11 "Policy", done means: change the policy for suspicious mail on the Policy screen and
 * see the next message handled the new way (swaks into the gateway, the sink as the mailbox).
 */
let env: MoatWithMail;

/** A message the link checks call suspicious: its HTML links to a bare IP address. */
function sendSuspicious(subject: string) {
  return env.swaks([
    '--from',
    'bob@outside.test',
    '--to',
    'ana@acme.test',
    '--header',
    `Subject: ${subject}`,
    '--add-header',
    'Content-Type: text/html; charset=utf-8',
    '--body',
    '<p>Your parcel</p><a href="http://192.0.2.7/track">Track it</a>',
  ]);
}

test.beforeAll(async () => {
  // Starting Moat and running the CLI on a CPU shared with other runs can take a while.
  test.setTimeout(240_000);
  env = await startMoatWithMail();
  // This test is about the suspicious verdict of the link checks: the anti-spam engine, which
  // scores a message of nothing but a link to an IP address as spam, is off for the organisation.
  const tools = await env.cli('tenant:apps', '--tenant', 'acme.test', '--disable-tools', 'anti_spam');
  expect(tools.code, tools.stderr).toBe(0);
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
});

test('suspicious mail: delivered with a banner, then quarantined once the Policy screen says so', async ({
  page,
}) => {
  test.setTimeout(120_000);
  // Under the default policy a suspicious message without attachments is delivered with a banner.
  const first = await sendSuspicious('Parcel waiting 1');
  expect(first.code, first.out).toBe(0);
  const delivered = await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Parcel waiting 1');
  expect(delivered.raw.toString().replace(/=\r?\n/g, '')).toContain('Caution: this message looks suspicious');

  await page.goto(`${env.moat.url}/#/auth/login`);
  await page.getByLabel('Email').fill('admin@acme.test');
  await page.getByRole('textbox', { name: 'Password' }).fill('admin-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.goto(`${env.moat.url}/#/policy`);
  const suspicious = page.getByRole('region', { name: 'Suspicious' });
  await expect(suspicious.getByRole('combobox', { name: 'Gateway action' })).toHaveValue('strip');
  await expectNoAxeViolations(page);

  await suspicious.getByRole('combobox', { name: 'Gateway action' }).selectOption('quarantine');
  await page.getByRole('button', { name: 'Save…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save this policy?' });
  await expect(dialog.getByText('In the last 7 days this would have changed 1 message:')).toBeVisible();
  await expect(
    dialog.getByText('1 Suspicious: Deliver with a warning banner → Quarantine and notify'),
  ).toBeVisible();
  await expect(dialog.getByText('Parcel waiting 1')).toBeVisible();
  await expectNoAxeViolations(page);
  await dialog.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText('Policy saved. The gateway uses it for the next message.')).toBeVisible();

  // The next suspicious message is held and its recipient told; it never reaches the mailbox.
  const second = await sendSuspicious('Parcel waiting 2');
  expect(second.code, second.out).toBe(0);
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'A message to you was held: Parcel waiting 2');
  expect(env.sink.mails.filter((m) => m.subject === 'Parcel waiting 2')).toHaveLength(0);
  await page.goto(`${env.moat.url}/#/user-interaction/quarantine-item`);
  await expect(page.getByText('Parcel waiting 2').first()).toBeVisible();

  // At 360 px the screen fits the width (the cards stack) and the saved action is shown.
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${env.moat.url}/#/policy/edit-rule/suspicious`);
  await expect(
    page.getByRole('region', { name: 'Suspicious' }).getByRole('combobox', { name: 'Gateway action' }),
  ).toHaveValue('quarantine');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
