import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Locator } from '@playwright/test';
import {
  ARF_REPORT,
  TLS_GOOGLE_REPORT,
  TLS_MICROSOFT_REPORT,
  TLS_RFC_REPORT,
} from '../../apps/api/src/modules/dmarc/failure-tls-samples.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot } from '../support/sweep.ts';

/**
 * DMARC failure reports (RFC 6591) and SMTP TLS reports (RFC 8460), issue 37: an admin sees how
 * to get them while there are none; a failure report and a TLS report arrive by mail at the
 * domain's report address, another TLS report is uploaded; the Reports Explorer shows each
 * failure with its redacted sample (no body, addresses masked) and each domain's TLS sessions
 * with the failures and why.
 */
const SHOTS = '/tmp/shots/failure-tls';
/** A section's screenshot, where a person looks at them (as keepShot: not in CI unless asked). */
async function shot(section: Locator, file: string) {
  if (process.env.CI === 'true' && process.env.MOAT_SHOTS !== '1') return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await section.screenshot({ path: file });
}
let env: MoatWithMail;
let dir: string;

test.beforeAll(async () => {
  env = await startMoatWithMail();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dmarc-ftls-e2e-'));
  fs.writeFileSync(path.join(dir, 'failure.eml'), ARF_REPORT);
  fs.writeFileSync(path.join(dir, 'google.json.gz'), gzipSync(TLS_GOOGLE_REPORT));
  fs.writeFileSync(path.join(dir, 'company-x!acme.test.json'), TLS_RFC_REPORT);
  fs.writeFileSync(path.join(dir, 'microsoft.json'), TLS_MICROSOFT_REPORT);
});
test.afterAll(async () => {
  await env?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('failure and TLS reports by mail and upload, read in the Reports Explorer', async ({ page }) => {
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);
  await page.goto(`${env.moat.url}/#/dmarc/rua-explorer`);
  const failures = page.locator('section[aria-labelledby="dmarc-failure-title"]');
  const tls = page.locator('section[aria-labelledby="dmarc-tls-title"]');
  // None yet: each section says what to publish.
  await expect(failures.getByText('No failure reports yet')).toBeVisible();
  await expect(failures.getByText('ruf=mailto:dmarc-reports@acme.test; fo=1')).toBeVisible();
  await expect(tls.getByText('v=TLSRPTv1; rua=mailto:dmarc-reports@acme.test')).toBeVisible();
  await expect(tls.getByText(/_smtp\._tls\.acme\.test/)).toBeVisible();
  for (const [slug, width] of [
    ['light', 1440],
    ['light', 360],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await expectNoSidewaysScroll(page);
    await shot(failures, `${SHOTS}/empty-failure-${slug}-${width}.png`);
    await shot(tls, `${SHOTS}/empty-tls-${slug}-${width}.png`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // By mail, through the gateway: the failure report is the message itself; Google's TLS report attached.
  const arf = await env.swaks([
    '--to',
    'dmarc-reports@acme.test',
    '--from',
    'dmarc-noreply@mail.example.net',
    '--data',
    `@${path.join(dir, 'failure.eml')}`,
  ]);
  expect(arf.code, arf.out).toBe(0);
  const google = await env.swaks([
    '--to',
    'dmarc-reports@acme.test',
    '--from',
    'noreply-smtp-tls-reporting@google.com',
    '--header',
    'Subject: Report Domain: acme.test Submitter: google.com',
    '--body',
    'This is an aggregate TLS report from google.com',
    '--attach-type',
    'application/tlsrpt+gzip',
    '--attach-name',
    'google.com!acme.test!001.json.gz',
    '--attach',
    `@${path.join(dir, 'google.json.gz')}`,
  ]);
  expect(google.code, google.out).toBe(0);

  // By upload: the RFC's TLS report (with failures) and Microsoft's.
  const upload = async (name: string) => {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload a report' }).click();
    await (await chooser).setFiles(path.join(dir, name));
  };
  await upload('company-x!acme.test.json');
  await expect(
    page.getByText('The TLS report from Company-X about acme.test was taken in: 5,629 sessions.'),
  ).toBeVisible();
  await upload('microsoft.json');
  await expect(page.getByText(/The TLS report from Microsoft Corporation about acme\.test/)).toBeVisible();
  await upload('company-x!acme.test.json');
  await expect(
    page.getByText('This report from Company-X about acme.test was taken in before; it counts once.'),
  ).toBeVisible();

  // The mailed reports arrive as the gateway processes them.
  await expect(async () => {
    await page.reload();
    await expect(tls.getByText('Google Inc.')).toBeVisible({ timeout: 2_000 });
    await expect(failures.getByText('192.0.2.1', { exact: true })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });

  // The failure: where from, what failed, what the receiver did; the sample redacted.
  await expect(failures.getByText('Reported by mail.example.net')).toBeVisible();
  await expect(failures.getByText('Rejected')).toBeVisible();
  await expect(failures.getByText('"John Smith" <j***@acme.test>')).toBeVisible();
  await expect(failures.getByText('d=acme.test; s=news')).toBeVisible();
  await expect(page.getByText(/confidential price list/)).toHaveCount(0);
  await expect(page.getByText(/john\.smith@/)).toHaveCount(0);

  // TLS: the domain's sessions, each report, each failure and why.
  await expect(tls.getByText('5,459 sessions succeeded, 305 failed (3 reports)')).toBeVisible();
  await expect(tls.getByText('The certificate has expired')).toBeVisible();
  await expect(tls.getByText('The server does not offer STARTTLS')).toBeVisible();
  await expect(tls.getByText('The certificate is for another name')).toBeVisible();
  await expect(
    tls.getByText(/From 198\.51\.100\.62 to mx-backup\.mail\.acme\.test \(203\.0\.113\.58\)/),
  ).toBeVisible();

  // What came in, in Reports received.
  await expect(page.getByText('Uploaded in the console').first()).toBeVisible();

  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await shot(failures, `${SHOTS}/failure-${slug}-${width}.png`);
    await shot(tls, `${SHOTS}/tls-${slug}-${width}.png`);
    await keepShot(page, `${SHOTS}/explorer-${slug}-${width}.png`);
  });
});
