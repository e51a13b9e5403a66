import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { openSignInLink } from '../support/sign-in-link.ts';

/**
 * The Analytics Dashboard over real mail: a clean message, a phishing lookalike and an EICAR
 * attachment sent through the gateway with swaks show in its counts, and a drill-down opens Mail
 * Explorer filtered to what it counted (issue 11).
 */
let env: MoatWithMail;
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-analytics-'));

const swaks = (args: string[]) => env.swaks(args);

test.beforeAll(async () => {
  // The machine is shared: starting Moat may take longer than a test's usual minute.
  test.setTimeout(180_000);
  env = await startMoatWithMail();
});
test.afterAll(async () => {
  await env?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the dashboard counts the mail sent through the gateway and drills into Mail Explorer', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const to = ['--to', 'ana@acme.test'];
  const clean = await swaks([
    '--from',
    'bob@outside.test',
    ...to,
    '--header',
    'Subject: Lunch',
    '--body',
    'Noon?',
  ]);
  expect(clean.code, clean.out).toBe(0);
  const phishing = await swaks([
    '--from',
    'it@acrne.test',
    ...to,
    '--header',
    'Subject: Password expires today',
    '--body',
    'Click to keep it',
  ]);
  expect(phishing.code, phishing.out).toBe(0);
  fs.writeFileSync(path.join(dir, 'eicar.com.txt'), EICAR);
  const malware = await swaks([
    '--from',
    'bob@outside.test',
    ...to,
    '--header',
    'Subject: Scan me',
    '--attach-type',
    'text/plain',
    '--attach-name',
    'eicar.com.txt',
    '--attach',
    `@${path.join(dir, 'eicar.com.txt')}`,
  ]);
  expect(malware.code, malware.out).toBe(0);
  // All three processed: the clean one delivered, the other two held with a notice.
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Lunch');
  await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'A message to you was held: Password expires today',
  );
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'A message to you was held: Scan me');

  await openSignInLink(page, env.moat, 'admin@acme.test');
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.goto(`${env.moat.url}/#/analytics/dashboard?range=24h`);

  await expect(page.getByRole('heading', { level: 2, name: 'Mail volume by verdict' })).toBeVisible();
  // The text alternative of the charts: each verdict and action with its count, as a link.
  const open = (label: string, count: number) =>
    page.getByRole('link', { name: `${label}: ${count} messages, open in Mail Explorer` });
  for (const [label, count] of [
    ['Clean', 1],
    ['Phishing', 1],
    ['Malware', 1],
    ['Spam', 0],
  ] as const) {
    await expect(open(label, count)).toBeVisible();
  }
  await expect(open('Delivered', 1)).toBeVisible();
  // The per-bucket table for screen readers holds the same numbers.
  const byVerdict = page.getByRole('table', { name: 'Mail volume by verdict, per time bucket' });
  await expect(byVerdict.getByRole('row').filter({ hasText: /\d{2}:\d{2}/ })).toHaveCount(25);
  const recipients = page.getByRole('table', { name: 'Top targeted recipients' });
  await expect(recipients.getByRole('row', { name: 'ana@acme.test 2' })).toBeVisible();
  const domains = page.getByRole('table', { name: 'Top blocked sender domains' });
  await expect(domains.getByRole('row', { name: 'acrne.test 1' })).toBeVisible();
  await expect(domains.getByRole('row', { name: 'outside.test 1' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Detections by engine' }).getByRole('link')).not.toHaveCount(
    0,
  );
  await expectNoAxeViolations(page);

  // On a phone the charts stack at full width and nothing widens the page.
  await page.setViewportSize({ width: 360, height: 800 });
  await expect(page.getByRole('heading', { level: 2, name: 'Authentication pass rates' })).toBeVisible();
  // (The charts follow the new width once their resize observers have run.)
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1440, height: 900 });

  await open('Malware', 1).click();
  await expect(page).toHaveURL(/#\/mail-explorer\?range=24h&verdict=malware$/);
  const list = page.getByRole('table', { name: 'Processed messages' });
  await expect(list.getByText('Scan me')).toBeVisible();
  await expect(list.getByText('Lunch')).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Verdict' })).toHaveValue('malware');
});
