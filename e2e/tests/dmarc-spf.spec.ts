import { startDnsServer, type TestZone } from '../../apps/api/src/test/dns-server.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * DMARC → SPF Management (issue 37), over the real server: a local DNS server publishes the
 * organisation's SPF records (Moat's resolver asks it through DNS_SERVERS). The admin reads each
 * domain's record, its lookups against the limit of ten, its includes, its problems and the
 * corrected record; copies the record; fixes the DNS and checks again.
 */
const VENDORS = Array.from({ length: 11 }, (_, i) => `spf${i + 1}.vendors.test`);
const zone: TestZone = {
  'acme.test': {
    TXT: [['v=spf1 mx ptr include:_spf.mailer.test include:spf.crm.test ip4:192.0.2.10 ?all']],
    MX: [{ priority: 10, exchange: 'mx.acme.test' }],
  },
  '_spf.mailer.test': { TXT: [['v=spf1 include:_a.mailer.test include:_b.mailer.test ~all']] },
  '_a.mailer.test': { TXT: [['v=spf1 ip4:198.51.100.0/24 ip4:203.0.113.0/25 -all']] },
  '_b.mailer.test': { TXT: [['v=spf1 ip6:2001:db8:a::/48 -all']] },
  'spf.crm.test': { TXT: [['v=spf1 ip4:203.0.113.128/25 -all']] },
  // Eleven services, each its own include: one lookup too many.
  'busy.test': {
    TXT: [
      [
        `v=spf1 ${VENDORS.slice(0, 9)
          .map((v) => `include:${v}`)
          .join(' ')}`,
        ` ${VENDORS.slice(9)
          .map((v) => `include:${v}`)
          .join(' ')} -all`,
      ],
    ],
  },
  ...Object.fromEntries(VENDORS.map((v, i) => [v, { TXT: [[`v=spf1 ip4:192.0.2.${100 + i} -all`]] }])),
  'down.test': { fail: 'servfail' },
};

let env: MoatWithMail;
let dns: Awaited<ReturnType<typeof startDnsServer>>;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dns = await startDnsServer(zone);
  env = await startMoatWithMail({ DNS_SERVERS: dns.address });
  for (const domain of ['busy.test', 'down.test']) {
    const added = await env.cli('tenant:domain-add', '--tenant', 'acme.test', '--domain', domain);
    if (added.code !== 0) throw new Error(`tenant:domain-add ${domain} failed: ${added.stderr}`);
  }
});
test.afterAll(async () => {
  await env?.stop();
  await dns?.close();
});

test("an admin reads each domain's SPF record, counted and corrected, copies the fix and checks again", async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);
  await page.goto(`${env.moat.url}/#/dmarc/spf-management`);
  await expect(page.getByRole('heading', { name: 'SPF Management', level: 1 })).toBeVisible();

  const domain = (name: string) => page.getByRole('region', { name, exact: true });
  const acme = domain('acme.test');
  await expect(acme.getByText('v=spf1 mx ptr include:_spf.mailer.test', { exact: false })).toBeVisible();
  await expect(acme.getByRole('meter', { name: '6 of 10 DNS lookups' })).toBeVisible();
  await expect(acme.getByRole('meter', { name: '0 of 2 void lookups' })).toBeVisible();
  await expect(acme.getByText(/ptr \(in the record of acme\.test\) is deprecated/)).toBeVisible();
  await expect(acme.getByText(/\?all says nothing about servers the record does not list/)).toBeVisible();
  // The includes, nested, each with what it costs.
  const tree = acme.getByRole('list', { name: /The domains the record includes/ });
  await expect(
    tree.getByRole('listitem').filter({ hasText: 'Includes _spf.mailer.test' }).first(),
  ).toContainText('3 lookups');
  await expect(tree.getByText('Includes _a.mailer.test')).toBeVisible();
  await expect(tree.getByRole('listitem').filter({ hasText: 'Includes spf.crm.test' })).toContainText(
    '1 lookup',
  );

  // The corrected record, each change explained; copied as it is.
  const corrected = 'v=spf1 mx include:_spf.mailer.test include:spf.crm.test ip4:192.0.2.10 ~all';
  const fix = acme.getByRole('region', { name: 'Corrected record' });
  await expect(fix.getByText(corrected, { exact: true })).toBeVisible();
  await expect(fix).toContainText('ptr is removed: ptr is deprecated and unreliable');
  await expect(fix).toContainText('?all becomes ~all');
  await fix.getByRole('button', { name: 'Copy the record' }).click();
  await expect(fix.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(corrected);

  // Over the limit: the terms receivers never reach, and the includes replaced by their addresses.
  const busy = domain('busy.test');
  await expect(busy.getByRole('meter', { name: '11 of 10 DNS lookups' })).toBeVisible();
  await expect(busy.getByText(/The record needs 11 DNS lookups; receivers allow 10/)).toBeVisible();
  await expect(busy.getByRole('region', { name: 'Corrected record' })).toContainText(
    'Keep this up to date: when spf1.vendors.test changes its servers, your record must change too.',
  );
  await expect(busy.getByText('It needs 10 of 10 DNS lookups.')).toBeVisible();

  // A domain whose DNS server fails is not checked, and says so.
  await expect(domain('down.test')).toContainText(
    'Could not check down.test: the DNS server answered with a failure.',
  );

  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dmarc/spf-${slug}-${width}.png`);
  });

  // The record is fixed in DNS; checked again, nothing is left to change.
  zone['acme.test']!.TXT = [[corrected.replace('~all', '-all')]];
  await page.getByRole('button', { name: 'Check again' }).click();
  await expect(acme.getByText('No problems')).toBeVisible();
  await expect(acme.getByText('The record is valid and within the limits: nothing to change.')).toBeVisible();
  await expect(acme.getByRole('region', { name: 'Corrected record' })).toHaveCount(0);
});
