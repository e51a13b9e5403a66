import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { dkimSign } from 'mailauth';
import { GOOGLE_REPORT } from '../../apps/api/src/modules/dmarc/test-reports.ts';
import { startDnsServer, type TestZone } from '../../apps/api/src/test/dns-server.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * DMARC → DKIM Management (issue 37), over the real server: a local DNS server publishes the
 * organisation's DKIM keys (Moat's resolver asks it through DNS_SERVERS). A Google report names
 * the selector s1 (a 1024-bit key); mail signed with news2026 (2048 bits) comes through the
 * gateway; DNS has an Ed25519 key in testing at google. The admin reaches the screen from the
 * navigation, reads each selector and key, the rotation plan with the records to publish, copies
 * a name, and sees what to do for a domain without keys.
 */
const spki = (bits: number) => {
  const pair = generateKeyPairSync('rsa', { modulusLength: bits });
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    p: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
};
const WEAK = spki(1024);
const NEWS = spki(2048);
const ED = Buffer.from(
  generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!,
  'base64url',
).toString('base64');
const txt = (record: string) => record.match(/.{1,255}/g) ?? [''];
const zone: TestZone = {
  's1._domainkey.acme.test': { TXT: [txt(`v=DKIM1; k=rsa; p=${WEAK.p}`)] },
  'news2026._domainkey.acme.test': { TXT: [txt(`v=DKIM1; k=rsa; p=${NEWS.p}`)] },
  'google._domainkey.acme.test': { TXT: [[`v=DKIM1; k=ed25519; t=y; p=${ED}`]] },
};

/** The Google report, its day moved to a week ago: within the reports DKIM Management reads. */
const weekAgo = Math.floor(Date.now() / 86_400_000 - 7) * 86_400;
const RECENT_REPORT = GOOGLE_REPORT.replace('<begin>1764633600</begin>', `<begin>${weekAgo}</begin>`).replace(
  '<end>1764719999</end>',
  `<end>${weekAgo + 86_399}</end>`,
);

let env: MoatWithMail;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let dir: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dns = await startDnsServer(zone);
  env = await startMoatWithMail({ DNS_SERVERS: dns.address });
  const added = await env.cli('tenant:domain-add', '--tenant', 'acme.test', '--domain', 'fresh.test');
  if (added.code !== 0) throw new Error(`tenant:domain-add failed: ${added.stderr}`);
  const flags = await env.cli(
    'features:set',
    '--tenant',
    'acme.test',
    'enableDMARC=on',
    'enableDKIMManagement=on',
  );
  if (flags.code !== 0) throw new Error(`features:set failed: ${flags.stderr}`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dkim-e2e-'));
  fs.writeFileSync(
    path.join(dir, 'google.com!acme.test!1764633600!1764719999.zip'),
    zipSync({ 'google.com!acme.test!1764633600!1764719999.xml': Buffer.from(RECENT_REPORT) }),
  );
  // A newsletter of the organisation's, DKIM-signed with news2026, sent to the gateway.
  const message = Buffer.from(
    [
      'From: News <news@acme.test>',
      'To: admin@acme.test',
      'Subject: January news',
      `Date: ${new Date().toUTCString()}`,
      'Message-ID: <news-2026-01@acme.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'What happened in January.',
      '',
    ].join('\r\n'),
  );
  // mailauth reads the keys from signatureData (its type declarations name other fields).
  const signed = await dkimSign(message, {
    canonicalization: 'relaxed/relaxed',
    algorithm: 'rsa-sha256',
    signatureData: [{ signingDomain: 'acme.test', selector: 'news2026', privateKey: NEWS.privateKey }],
  } as unknown as Parameters<typeof dkimSign>[1]);
  if (!signed.signatures.includes('DKIM-Signature')) throw new Error('the test message was not signed');
  fs.writeFileSync(path.join(dir, 'news.eml'), Buffer.concat([Buffer.from(signed.signatures), message]));
});
test.afterAll(async () => {
  await env?.stop();
  await dns?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("an admin reads each domain's DKIM selectors and keys, and the rotation plan with the records to publish", async ({
  page,
  context,
}) => {
  test.setTimeout(150_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const sent = await env.swaks([
    '--from',
    'news@acme.test',
    '--to',
    'admin@acme.test',
    '--data',
    path.join(dir, 'news.eml'),
  ]);
  expect(sent.code, sent.out).toBe(0);

  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);

  // The report, uploaded in the Reports Explorer.
  await page.goto(`${env.moat.url}/#/dmarc/rua-explorer`);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload a report' }).click();
  await (await chooser).setFiles(path.join(dir, 'google.com!acme.test!1764633600!1764719999.zip'));
  await expect(page.getByText(/The report from google\.com about acme\.test was taken in/)).toBeVisible();

  // DKIM Management is in the navigation once the tenant has it.
  const navLink = page.getByRole('link', { name: 'DKIM Management' });
  if (!(await navLink.isVisible())) await page.getByRole('button', { name: 'DMARC', exact: true }).click();
  await navLink.click();
  await expect(page).toHaveURL(/#\/dmarc\/dkim-management/);
  await expect(page.getByRole('heading', { name: 'DKIM Management', level: 1 })).toBeVisible();

  const acme = page.getByRole('region', { name: 'acme.test', exact: true });
  const selector = (name: string) => acme.getByRole('region', { name: `Selector ${name}`, exact: true });
  // The mail may still be in the gateway's queue: checked again until it shows.
  await expect(async () => {
    await page.getByRole('button', { name: 'Check again' }).click();
    await expect(selector('news2026')).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });

  const s1 = selector('s1');
  await expect(s1.getByText('RSA 1024 bits')).toBeVisible();
  await expect(s1.getByText('Seen in: DMARC reports, DNS')).toBeVisible();
  await expect(s1.getByText('45 messages signed, 93.3 % passed DKIM')).toBeVisible();
  await expect(s1.getByText(/The RSA key at s1\._domainkey\.acme\.test is 1024 bits: weak/)).toBeVisible();
  const news = selector('news2026');
  await expect(news.getByText('RSA 2048 bits')).toBeVisible();
  await expect(news.getByText('Seen in: mail through Moat, DNS')).toBeVisible();
  await expect(news.getByText('1 message signed, 100 % passed DKIM')).toBeVisible();
  await expect(news.getByText('No problems with this key.')).toBeVisible();
  const google = selector('google');
  await expect(google.getByText('Ed25519', { exact: true })).toBeVisible();
  await expect(google.getByText('Testing (t=y)')).toBeVisible();
  await expect(google.getByText(/is in testing mode \(t=y\)/)).toBeVisible();

  // The plan: s1 rotated to s2, step by step, with the names to publish.
  const plan = acme.getByRole('region', { name: 'Rotation plan acme.test' });
  await expect(plan.getByText('Rotate s1 to s2')).toBeVisible();
  const steps = plan.getByRole('listitem');
  await expect(steps).toHaveCount(5);
  await expect(steps.nth(0)).toContainText(
    'publish the public key as a TXT record at s2._domainkey.acme.test',
  );
  await expect(steps.nth(1)).toContainText('switch signing to the selector s2');
  await expect(steps.nth(2)).toContainText('Keep the old record at s1._domainkey.acme.test for 7 days');
  await expect(steps.nth(3)).toContainText('v=DKIM1; k=rsa; p=');
  await steps.nth(0).getByRole('button', { name: 'Copy name' }).click();
  await expect(steps.nth(0).getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('s2._domainkey.acme.test');

  // A domain without keys says what to do.
  const fresh = page.getByRole('region', { name: 'fresh.test', exact: true });
  await expect(fresh.getByText('No DKIM key found yet')).toBeVisible();
  await expect(fresh.getByText(/wait a day for the first DMARC reports/)).toBeVisible();
  await expect(fresh.getByText('s1._domainkey.fresh.test', { exact: true })).toBeVisible();

  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dkim/dkim-${slug}-${width}.png`);
  });
});
