import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * The Events screen (issue 11) on real mail: swaks sends an EICAR attachment and a lookalike
 * sender's message through the gateway; the admin finds both events, filters, opens one to see
 * what was found and which policy acted, follows it to the message, and exports the list.
 */
let env: MoatWithMail;
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-events-'));

const swaks = (args: string[]) => env.swaks(args);

test.beforeAll(async () => {
  env = await startMoatWithMail();
});
test.afterAll(async () => {
  await env.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an admin finds the gateway’s events, filters them, opens one, follows it to the message and exports them', async ({
  page,
}) => {
  test.setTimeout(120_000);
  fs.writeFileSync(path.join(dir, 'eicar.com.txt'), EICAR);
  const malware = await swaks([
    '--from',
    'bob@outside.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Quarterly figures',
    '--attach-type',
    'text/plain',
    '--attach-name',
    'eicar.com.txt',
    '--attach',
    `@${path.join(dir, 'eicar.com.txt')}`,
  ]);
  expect(malware.code, malware.out).toBe(0);
  const phishing = await swaks([
    '--from',
    'it@acrne.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Your password expires today',
    '--body',
    'Click to keep it',
  ]);
  expect(phishing.code, phishing.out).toBe(0);
  // Both were held: the recipient was told of each.
  await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'A message to you was held: Quarterly figures',
  );
  await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'A message to you was held: Your password expires today',
  );

  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await expect(page.getByRole('link', { name: 'Quarterly figures' })).toBeVisible();
  await expectNoAxeViolations(page);
  // The Overview's malware count opens Mail Explorer filtered to malware over its 30 days.
  await page.getByRole('link', { name: 'Malware: 1' }).click();
  await expect(page).toHaveURL(/#\/mail-explorer\?verdict=malware&range=30d$/);
  await expect(
    page.getByRole('table', { name: 'Processed messages' }).getByText('Quarterly figures'),
  ).toBeVisible();
  await page.goto(`${env.moat.url}/#/security-events?range=30d`);
  await expect(page.getByRole('heading', { name: 'Events', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: 'Security events' });
  await page.getByRole('combobox', { name: 'Verdict' }).selectOption('malware');
  await expect(table.getByText('Quarterly figures')).toBeVisible();
  await expect(table.getByText('Your password expires today')).toBeHidden();

  // Filter by verdict in the toolbar.
  await page.getByRole('combobox', { name: 'Verdict' }).selectOption('phishing');
  await expect(table.getByText('Your password expires today')).toBeVisible();
  await expect(table.getByText('Quarterly figures')).toBeHidden();
  await page.getByRole('combobox', { name: 'Verdict' }).selectOption('');
  await expect(table.getByText('Quarterly figures')).toBeVisible();
  await expectNoAxeViolations(page);

  // Export what the list shows (all verdicts over 30 days).
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export CSV' }).click();
  const file = await (await download).path();
  const csv = fs.readFileSync(file, 'utf8');
  expect(csv).toContain('created_at,type,severity,verdict,engine,recipient,sender,subject,description,id');
  expect(csv).toContain('Quarterly figures');
  expect(csv).toContain('Your password expires today');

  // Open the malware event: what was found by which engine, which policy decided, the story.
  await page.getByRole('combobox', { name: 'Verdict' }).selectOption('malware');
  await page.getByRole('link', { name: 'Open the event: Quarterly figures' }).click();
  await expect(page).toHaveURL(/#\/security-events\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Quarterly figures', level: 2 })).toBeVisible();
  const findings = page.getByRole('table', { name: 'Findings of the security engines' });
  await expect(findings.getByText('EICAR test file in eicar.com.txt')).toBeVisible();
  const decision = page.getByRole('region', { name: 'Policy decision' });
  await expect(decision.getByText('The default policy')).toBeVisible();
  await expect(decision.getByText('Hold', { exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'What happened to the message' })).toContainText('Held');
  await expectNoAxeViolations(page);

  // The page is linkable: reloading it shows the same event.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Quarterly figures', level: 2 })).toBeVisible();

  // Follow it to the message: its trace (the Mail Explorer's) and its held copy.
  const trace = page.getByRole('link', { name: 'Open the message trace' });
  await expect(trace).toHaveAttribute('href', /#\/mail-explorer\/message\/[0-9a-f-]{36}$/);
  // The trace: the verdict in plain words, the session, authentication, the engine's finding, the decision.
  await trace.click();
  await expect(page.getByRole('heading', { name: 'Message trace', level: 1 })).toBeVisible();
  await expect(page.getByText(/^Held because .*EICAR test file in eicar\.com\.txt/)).toBeVisible();
  await expect(page.getByText('Authentication', { exact: true }).first()).toBeVisible();
  await expect(page.getByText('client.test').first()).toBeVisible();
  await expect(page.getByText(/Under the default policy, malware mail is held/).first()).toBeVisible();
  await expectNoAxeViolations(page);
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Quarterly figures', level: 2 })).toBeVisible();
  await page.getByRole('link', { name: 'View in Quarantined Items' }).click();
  await expect(page).toHaveURL(/#\/user-interaction\/quarantine-item/);
  await expect(page.getByText('Quarterly figures').first()).toBeVisible();

  // An admin's release is an event too: the message reaches its recipient and Events shows it.
  await page.getByRole('button', { name: 'Release Your password expires today' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Release' }).click();
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Your password expires today');
  await page.goto(`${env.moat.url}/#/security-events?type=release`);
  const releases = page.getByRole('table', { name: 'Security events' });
  await expect(releases.getByText('Your password expires today')).toBeVisible();
  await expect(releases.getByText('Quarterly figures')).toBeHidden();
  await page.getByRole('link', { name: 'Open the event: Your password expires today' }).click();
  const story = page.getByRole('region', { name: 'What happened to the message' });
  await expect(story).toContainText('Released to the recipient');
  await expect(story.getByRole('link', { name: /Lookalike sender domain acrne\.test/ })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Policy decision' })).toContainText('An admin');
  await expect(page.getByRole('region', { name: 'Policy decision' })).toContainText('Release the message');

  // On a phone: the event's page reads without sideways scrolling of the page, and stays accessible.
  await page.setViewportSize({ width: 360, height: 740 });
  await expect(page.getByRole('heading', { name: 'Your password expires today', level: 2 })).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectNoAxeViolations(page);
});
