import { GOOGLE_REPORT } from '../../apps/api/src/modules/dmarc/test-reports.ts';
import { startDnsServer, type TestZone } from '../../apps/api/src/test/dns-server.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * DMARC Overview and Recommendations (issue 37), over the real server: a local DNS server
 * publishes acme.test's DMARC record (its reports going to a vendor) and a reverse name; sixteen
 * days of reports are taken in. The admin reads the record to publish so the reports come here,
 * the pass rate and trend, the failing source with its name, drills down into the Explorer, and
 * reads what to change next and why.
 */
const zone: TestZone = {
  '_dmarc.acme.test': { TXT: [['v=DMARC1; p=none; rua=mailto:agg@vendor.example']] },
  'acme.test': {
    TXT: [['v=spf1 ip4:203.0.113.0/24 -all']],
    MX: [{ priority: 10, exchange: 'mx.acme.test' }],
  },
  '25.113.0.203.in-addr.arpa': { PTR: ['mail.acme.test'] },
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

test('an admin reads the DMARC Overview, drills into a failing source and reads what to change next', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);

  // Sixteen daily reports of the last days, as the console's upload sends them.
  const today = Math.floor(Date.now() / 86_400_000);
  for (let back = 1; back <= 16; back++) {
    const day = today - back;
    const xml = GOOGLE_REPORT.replace(
      '<report_id>4312398455187346520</report_id>',
      `<report_id>e2e-${day}</report_id>`,
    ).replace(
      '<begin>1764633600</begin><end>1764719999</end>',
      `<begin>${day * 86_400}</begin><end>${day * 86_400 + 86_399}</end>`,
    );
    const status = await page.evaluate(
      async (body) =>
        (
          await fetch('/api/v1/dmarc/reports', {
            method: 'POST',
            headers: { 'content-type': 'application/xml', 'x-requested-with': 'moat' },
            body,
          })
        ).status,
      xml,
    );
    expect(status).toBe(201);
  }

  // The navigation's Overview entry.
  await page.goto(`${env.moat.url}/#/dmarc/overview`);
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  const acme = page.getByRole('region', { name: 'acme.test', exact: true });
  await expect(acme.getByText('Policy: none')).toBeVisible();
  // Its record sends the reports to a vendor: the same record with this address added, to copy.
  await expect(acme.getByText(/Your DMARC record sends its reports elsewhere/)).toBeVisible();
  await expect(
    acme.getByText(
      'v=DMARC1; p=none; rua=mailto:agg@vendor.example,mailto:dmarc-reports@acme.test; ruf=mailto:dmarc-reports@acme.test',
      { exact: true },
    ),
  ).toBeVisible();
  await expect(acme.getByText('720', { exact: true })).toBeVisible();
  await expect(acme.getByText('93.3 %')).toBeVisible();
  await expect(acme.getByText('672 passed, 48 failed')).toBeVisible();
  await expect(acme.getByRole('link', { name: '2001:db8::7' })).toBeVisible();

  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await keepShot(page, `${SHOTS}/dmarc/overview-${slug}-${width}.png`);
    await expectNoSidewaysScroll(page);
  });

  // The failing source, in the Explorer: only its rows, with the filter in the address.
  await acme.getByRole('link', { name: '2001:db8::7' }).click();
  await expect(page.getByRole('heading', { name: 'Reports Explorer' })).toBeVisible();
  await expect(page.getByText('48 messages from 16 sources; 0 % passed DMARC.')).toBeVisible();
  await expect(page.getByLabel('Source address')).toHaveValue('2001:db8::7');
  await page.getByLabel('Source address').fill('');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await page.getByRole('combobox', { name: 'DMARC result' }).click();
  await page.getByRole('option', { name: 'Any result' }).click();
  await expect(page.getByText('720 messages from 32 sources; 93.3 % passed DMARC.')).toBeVisible();
  // The sending server's reverse name beside its address.
  await expect(page.getByText('mail.acme.test').first()).toBeVisible();
  await inEachLook(page, async (slug, width) => {
    await keepShot(page, `${SHOTS}/dmarc/explorer-drill-${slug}-${width}.png`);
    await expectNoSidewaysScroll(page);
  });

  // What to change next, and why.
  await page.goto(`${env.moat.url}/#/dmarc/domain-recommendations`);
  await expect(page.getByRole('heading', { name: 'Recommendations', level: 1 })).toBeVisible();
  const steps = page.getByRole('region', { name: 'acme.test', exact: true });
  await expect(steps.getByText('Send the reports here')).toBeVisible();
  await expect(steps.getByText('Fix 2001:db8::7 before enforcing')).toBeVisible();
  await expect(steps.getByText(/signed with DKIM by mailer\.example, not by acme\.test/)).toBeVisible();
  await expect(steps.getByText('Not ready for quarantine yet')).toBeVisible();
  await expect(
    steps.getByText(/93\.3 % of the mail your senders authenticate is aligned \(needed: 98 %\)/),
  ).toBeVisible();
  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await keepShot(page, `${SHOTS}/dmarc/recommendations-${slug}-${width}.png`);
    await expectNoSidewaysScroll(page);
  });
});
