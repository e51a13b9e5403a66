import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { GOOGLE_REPORT, MICROSOFT_REPORT } from '../../apps/api/src/modules/dmarc/test-reports.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * DMARC Reports Explorer (issue 37): an admin uploads the aggregate reports receivers sent about
 * the organisation's domain (a Google zip, a Microsoft gzip), sees every source with its SPF, DKIM
 * and DMARC results, filters the failing ones, is told when a file is the same report again or is
 * not a report at all, and downloads a report as the reporter sent it.
 */
let env: MoatWithMail;
let dir: string;

test.beforeAll(async () => {
  env = await startMoatWithMail();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dmarc-e2e-'));
  fs.writeFileSync(
    path.join(dir, 'google.com!acme.test!1764633600!1764719999.zip'),
    zipSync({ 'google.com!acme.test!1764633600!1764719999.xml': Buffer.from(GOOGLE_REPORT) }),
  );
  fs.writeFileSync(
    path.join(dir, 'enterprise.protection.outlook.com!acme.test.xml.gz'),
    gzipSync(MICROSOFT_REPORT),
  );
  fs.writeFileSync(path.join(dir, 'not-a-report.xml'), '<html><body>hello</body></html>');
});
test.afterAll(async () => {
  await env?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an admin uploads aggregate reports and reads who sends mail as the domain', async ({ page }) => {
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);
  await page.goto(`${env.moat.url}/#/dmarc/rua-explorer`);
  await expect(page.getByRole('heading', { name: 'Reports Explorer' })).toBeVisible();
  await expect(page.getByText('No DMARC reports yet')).toBeVisible();

  const upload = async (name: string) => {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload a report' }).click();
    await (await chooser).setFiles(path.join(dir, name));
  };
  await upload('google.com!acme.test!1764633600!1764719999.zip');
  await expect(
    page.getByText('The report from google.com about acme.test was taken in: 2 sources, 45 messages.'),
  ).toBeVisible();
  await upload('enterprise.protection.outlook.com!acme.test.xml.gz');
  await expect(
    page.getByText(/The report from Enterprise Outlook about acme\.test was taken in: 1 source,/),
  ).toBeVisible();
  await expect(page.getByText('46 messages from 3 sources; 91.3 % passed DMARC.')).toBeVisible();
  // The same report again counts once; a file that is no report says why.
  await upload('google.com!acme.test!1764633600!1764719999.zip');
  await expect(
    page.getByText('This report from google.com about acme.test was taken in before; it counts once.'),
  ).toBeVisible();
  await upload('not-a-report.xml');
  await expect(page.getByRole('alert')).toContainText('The file is not a DMARC aggregate report');
  await expect(page.getByText('46 messages from 3 sources; 91.3 % passed DMARC.')).toBeVisible();

  // The failing sources only: the forwarder and Outlook's quarantined one.
  await page.getByRole('combobox', { name: 'DMARC result' }).click();
  await page.getByRole('option', { name: 'Failed', exact: true }).click();
  await expect(page.getByText('4 messages from 2 sources; 0 % passed DMARC.')).toBeVisible();
  // A source: a table row on a wide screen, a card on a narrower one.
  const CAPTION = 'Sources named by the DMARC aggregate reports';
  const source = (ip: string) =>
    page
      .getByRole('table', { name: CAPTION })
      .getByRole('row')
      .or(page.getByRole('list', { name: CAPTION }).getByRole('listitem'))
      .filter({ hasText: ip });
  await expect(source('2001:db8::7')).toContainText('mailer.example: softfail');
  await expect(source('198.51.100.9')).toContainText('quarantine');

  // A row's report as the reporter sent it.
  const download = page.waitForEvent('download');
  await source('2001:db8::7').getByRole('link', { name: 'Raw report' }).click();
  const saved = await (await download).path();
  expect(fs.readFileSync(saved!, 'utf8')).toBe(GOOGLE_REPORT);

  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dmarc/explorer-${slug}-${width}.png`);
  });
});
