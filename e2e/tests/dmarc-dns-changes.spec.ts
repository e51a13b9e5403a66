import { GOOGLE_REPORT } from '../../apps/api/src/modules/dmarc/test-reports.ts';
import { startDnsServer, type TestZone } from '../../apps/api/src/test/dns-server.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * DMARC → DNS Change-Log (issue 37), over the real server: a local DNS server publishes the
 * organisation's records (Moat asks it through DNS_SERVERS). The admin reads them with "Check
 * now", the DMARC record is changed in DNS, and the next check logs the change with its before and
 * after, lists the alert, and emails it to the admin.
 */
const zone: TestZone = {
  'acme.test': {
    TXT: [['v=spf1 include:_spf.mailer.test ', '-all'], ['google-site-verification=abc']],
    MX: [
      { priority: 10, exchange: 'mx1.acme.test' },
      { priority: 20, exchange: 'mx2.acme.test' },
    ],
  },
  '_dmarc.acme.test': { TXT: [['v=DMARC1; p=none; rua=mailto:dmarc@acme.test']] },
  's1._domainkey.acme.test': {
    TXT: [['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvV3x9PmZk2gYq7Qn']],
  },
  '_mta-sts.acme.test': { TXT: [['v=STSv1; id=20260101T000000']] },
  '_smtp._tls.acme.test': { TXT: [['v=TLSRPTv1; rua=mailto:tls-reports@acme.test']] },
};

let env: MoatWithMail;
let dns: Awaited<ReturnType<typeof startDnsServer>>;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dns = await startDnsServer(zone);
  env = await startMoatWithMail({ DNS_SERVERS: dns.address });
});
test.afterAll(async () => {
  await env?.stop();
  await dns?.close();
});

test('an admin reads the domain’s records, sees a DMARC change logged with before and after, and gets the alert by email', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);
  // A report that names the DKIM selector s1 of acme.test: its key is polled too.
  const uploaded = await page.request.post(`${env.moat.url}/api/v1/dmarc/reports`, {
    headers: { 'content-type': 'application/xml', 'x-requested-with': 'moat' },
    data: GOOGLE_REPORT,
  });
  expect(uploaded.status()).toBe(201);

  // As the navigation links it: its drill-down carries the period (the last month).
  const drillDown = Buffer.from(JSON.stringify({ dateRange: 'month' })).toString('base64');
  await page.goto(`${env.moat.url}/#/dmarc/spf-dmarc-changes?drillDown=${encodeURIComponent(drillDown)}`);
  await expect(page.getByRole('heading', { name: 'DNS Change-Log', level: 1 })).toBeVisible();
  await expect(page.getByText('Not read yet', { exact: true })).toBeVisible();
  await expect(
    page.getByText(/Your domains' records are read every 60 minutes\. Press Check now/),
  ).toBeVisible();

  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByText('Checked 1 domain. No record changed.')).toBeVisible();
  const current = page.getByRole('region', { name: 'Current records' });
  const card = (name: string) => current.getByRole('article', { name, exact: true });
  await expect(card('DMARC record')).toContainText('v=DMARC1; p=none; rua=mailto:dmarc@acme.test');
  await expect(card('SPF record')).toContainText('v=spf1 include:_spf.mailer.test -all');
  await expect(card('MX records (mail servers)')).toContainText('10 mx1.acme.test');
  await expect(card('DKIM key s1')).toContainText('v=DKIM1; k=rsa;');
  await expect(card('MTA-STS record')).toContainText('v=STSv1; id=20260101T000000');
  await expect(card('TLS-RPT record')).toContainText('v=TLSRPTv1;');
  const log = page.getByRole('region', { name: 'Change log' });
  await expect(log.getByText('First read').first()).toBeVisible();
  // Checked moments ago: refused, with the reason.
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByText(/The records were checked moments ago: check again in \d+ s/)).toBeVisible();

  // The DMARC policy is changed in DNS (and the SPF record re-split, which is no change).
  zone['_dmarc.acme.test'] = { TXT: [['v=DMARC1; p=reject; rua=mailto:dmarc@acme.test']] };
  zone['acme.test']!.TXT = [['v=spf1 include:_spf.mailer.test', ' -all'], ['google-site-verification=abc']];
  const mailsBefore = env.sink.mails.length;
  await expect(async () => {
    await page.getByRole('button', { name: 'Check now' }).click();
    await expect(page.getByText('Checked 1 domain. 1 record changed: see the change log below.')).toBeVisible(
      {
        timeout: 3_000,
      },
    );
  }).toPass({ timeout: 60_000, intervals: [5_000] });

  // The change, before and after; the record's first reading stays listed under it.
  const changed = log
    .getByRole('row')
    .filter({ hasText: 'v=DMARC1; p=none' })
    .filter({ hasText: 'v=DMARC1; p=reject; rua=mailto:dmarc@acme.test' });
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText('_dmarc.acme.test');
  await expect(card('DMARC record')).toContainText(/Changed /);
  await expect(card('SPF record')).toContainText(/Unchanged since first read/);
  const alerts = page.getByRole('region', { name: 'DMARC alerts' });
  await expect(alerts.getByText('The DMARC record of acme.test changed.')).toBeVisible();
  await expect(alerts.getByText(/The admins were emailed/)).toBeVisible();

  // The email, as the admin reads it: what changed, before and after, no link but the console's.
  const mail = await env.sink.waitFor(
    'admin@acme.test',
    (m) => m.subject.includes('DNS record'),
    mailsBefore,
  );
  expect(mail.subject).toBe('Moat: A DNS record of acme[.]test changed');
  expect(mail.text).toContain('The DMARC record of acme[.]test changed');
  expect(mail.text).toContain('Before: v=DMARC1; p=none; rua=mailto:dmarc@acme[.]test');
  expect(mail.text).toContain('After: v=DMARC1; p=reject; rua=mailto:dmarc@acme[.]test');
  expect([...mail.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual([
    expect.stringMatching(/\/#\/dmarc\/spf-dmarc-changes$/),
  ]);

  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dns-changes/changes-${slug}-${width}.png`);
  });
});
