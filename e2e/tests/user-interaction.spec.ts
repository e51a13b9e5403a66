import type { Page } from '@playwright/test';
import { simpleParser } from 'mailparser';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { mailScenarios } from '../support/mail-scenarios.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * User Interaction over real mail (issue 11): swaks sends a program (stripped by the default
 * policy) and lookalike-sender messages (held); the recipients ask for the attachment and a held
 * message back, and report one as phishing, on the public pages. The admin sees the counts on the
 * User Interaction Dashboard, the removed attachment with its restore state in Modified
 * Attachments, approves the request and follows the row to the message's trace. A second test
 * reads a message's trace from the Mail Explorer and a held one's from Quarantined Items.
 */
let env: MoatWithMail;
let mail: ReturnType<typeof mailScenarios>;

test.beforeAll(async () => {
  // Moat's start is slow on a busy machine.
  test.setTimeout(180_000);
  env = await startMoatWithMail();
  mail = mailScenarios(env);
});
test.afterAll(async () => {
  await env?.stop();
  mail?.cleanUp();
});

/** The number a dashboard card shows, by its label. */
const stat = (page: Page, label: string) => page.getByRole('group', { name: label, exact: true });

test('the dashboard counts requests and reports; Modified Attachments lists the removed attachment and leads to its trace', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const stripped = await mail.sendStripped('ana@acme.test', 'Tool update');
  expect((await simpleParser(stripped.raw)).attachments).toHaveLength(0);
  const held = await mail.sendPhishing('ben@acme.test', 'Password expires today');
  const reported = await mail.sendPhishing('cara@acme.test', 'Your mailbox is full');
  await mail.requestOriginal(page, stripped, 'ana@acme.test', 'I need the tool for work');
  await mail.requestRestore(page, held, 'ben@acme.test', 'I expect this mail from IT');
  await mail.reportPhishing(page, reported, 'cara@acme.test');

  await mail.signInAdmin(page);
  await page.goto(`${env.moat.url}/#/user-interaction/dashboard`);
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  await expect(stat(page, 'Waiting restore requests')).toContainText('2');
  await expect(stat(page, 'Open reports')).toContainText('1');
  await expect(stat(page, 'Restore requests')).toContainText('2');
  await expect(stat(page, 'Reports')).toContainText('1');
  await expect(stat(page, 'Median time to decision')).toContainText('No decisions yet');
  // Today's row of the per-day table holds the same numbers.
  const perDay = page.getByRole('table', { name: 'Restore requests and reports per day' });
  const today = new Date().toISOString().slice(0, 10);
  await expect(perDay.getByRole('row').filter({ hasText: today })).toHaveText(`${today}21`);
  await expect(page.getByText(/is not available in this edition/)).toHaveCount(0);
  await expectNoAxeViolations(page);

  // Modified Attachments: the program, its message, and the recipient's request.
  await page.goto(`${env.moat.url}/#/user-interaction/modified-attachments`);
  const table = page.getByRole('table', { name: 'Attachments removed from delivered messages' });
  const row = table.getByRole('row').filter({ hasText: 'update.exe' });
  await expect(row).toContainText('Tool update');
  await expect(row).toContainText('bob@outside.test');
  await expect(row).toContainText('ana@acme.test');
  await expect(row).toContainText('Suspicious');
  await expect(row).toContainText('Removed');
  await expect(row).toContainText('Requested');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expectNoAxeViolations(page);

  // The admin approves the request: the original arrives, and the row says it was restored.
  await page.goto(`${env.moat.url}/#/user-interaction/restore-request-and-clean-attachments`);
  await expect(page.getByText('I need the tool for work')).toBeVisible();
  await page.getByRole('button', { name: 'Approve the request for Tool update' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
  const restored = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'Tool update' && m !== stripped,
  );
  expect((await simpleParser(restored.raw)).attachments.map((a) => a.filename)).toEqual(['update.exe']);
  await page.goto(`${env.moat.url}/#/user-interaction/modified-attachments`);
  await expect(row).toContainText('Restored');

  // One request decided: one waits, and the decision time has a value.
  await page.goto(`${env.moat.url}/#/user-interaction/dashboard`);
  await expect(stat(page, 'Waiting restore requests')).toContainText('1');
  await expect(stat(page, 'Median time to decision')).not.toContainText('No decisions yet');

  // The row leads to the message's trace: delivered without its attachments, later restored.
  await page.goto(`${env.moat.url}/#/user-interaction/modified-attachments`);
  await row.getByRole('link', { name: 'Trace of Tool update' }).click();
  await expect(page.getByRole('heading', { name: 'Message trace', level: 1 })).toBeVisible();
  await expect(page.getByTestId('trace-explanation')).toContainText('Delivered without its attachments');
  await expect(page.getByTestId('trace-explanation')).toContainText(
    'It was later released to the recipient.',
  );
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await expect(timeline).toContainText('Attachments held in quarantine');
  await expect(timeline).toContainText('Release requested by ana@acme.test');
  await expect(timeline).toContainText('Request approved');
  await expectNoAxeViolations(page);
});

test('the trace of a message from the Mail Explorer, and of a held one from Quarantined Items', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await mail.sendClean('dan@acme.test', 'Trace me', 'Minutes of the meeting');
  await mail.sendPhishing('dan@acme.test', 'Urgent invoice');

  await mail.signInAdmin(page);
  await page.goto(`${env.moat.url}/#/mail-explorer?q=Trace%20me`);
  const list = page.getByRole('table', { name: 'Processed messages' });
  await list.getByRole('link', { name: 'Open the trace of Trace me' }).click();
  await expect(page).toHaveURL(/#\/mail-explorer\/message\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Message trace', level: 1 })).toBeVisible();
  await expect(page.getByTestId('trace-explanation')).toHaveText(
    /Delivered: no engine found anything wrong with it\./,
  );

  const timeline = page.getByRole('region', { name: 'Timeline' });
  // Received: the client, its HELO and the envelope.
  const received = timeline.locator('[data-kind="received"]');
  await expect(received).toContainText('Received from 127.0.0.1');
  await expect(received).toContainText('HELO client.test');
  await expect(received).toContainText('MAIL FROM <bob@outside.test>');
  await expect(received).toContainText('RCPT TO <dan@acme.test>');
  // Authentication: one entry per check, and the same three in the Authentication section.
  const checks = timeline.locator('[data-kind="authentication"]');
  await expect(checks).toHaveCount(3);
  await expect(checks.nth(0)).toContainText(/SPF \w+/);
  await expect(checks.nth(1)).toContainText(/DKIM \w+/);
  await expect(checks.nth(2)).toContainText(/DMARC \w+/);
  const auth = page.getByRole('region', { name: 'Authentication' });
  for (const check of ['SPF', 'DKIM', 'DMARC']) await expect(auth).toContainText(check);
  // The decision, and the delivery to the sink.
  await expect(timeline.locator('[data-kind="decision"]')).toContainText('Decision: clean, delivered');
  await expect(timeline.locator('[data-kind="delivery"]')).toContainText('Delivery to dan@acme.test: sent');
  await expectNoAxeViolations(page);

  // A held message's trace from Quarantined Items: why it was held, and that it is held.
  await page.goto(`${env.moat.url}/#/user-interaction/quarantine-item`);
  await page.getByRole('link', { name: 'Trace of Urgent invoice' }).click();
  await expect(page).toHaveURL(/#\/mail-explorer\/message\?held=/);
  await expect(page.getByTestId('trace-explanation')).toContainText(
    'Held because Anti-phishing found Lookalike sender domain acrne.test imitates acme.test',
  );
  await expect(page.getByRole('heading', { name: 'Message trace', level: 1 })).toBeVisible();
  await expect(timeline.locator('[data-kind="received"]')).toContainText('RCPT TO <dan@acme.test>');
  await expect(timeline.locator('[data-kind="decision"]')).toContainText('Decision: phishing, held');
  await expect(timeline.locator('[data-kind="hold"]')).toContainText('Held in quarantine');
  await expect(timeline).not.toContainText('Delivery to dan@acme.test');
});
