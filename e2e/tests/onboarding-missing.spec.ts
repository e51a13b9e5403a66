import type { Page } from '@playwright/test';
import { startDnsServer, type TestZone } from '../../apps/api/src/test/dns-server.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type RunningMoat, startMoat } from '../support/server.ts';
import { openSignInLink } from '../support/sign-in-link.ts';

/**
 * Onboarding that is not finished does not say it is (issue 33), over the real server: with DNS
 * records missing (a local DNS server publishes only an SPF record), and with a DNS server that
 * cannot be reached (and a gateway whose host name is a bare machine name), the DNS step is not
 * done, a record that could not be looked up says so, and the finish page lists what is missing.
 */
const MX_HOST = 'mx.moat-e2e.test';

async function throughToTheEnd(page: Page, moat: RunningMoat, admin: string) {
  await openSignInLink(page, moat, admin);
  await expect(page).toHaveURL(/#\/onboarding$/);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('button', { name: 'Check records' })).toBeVisible();
}

test.describe('with DNS records missing', () => {
  let moat: RunningMoat;
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  const zone: TestZone = { 'missing.test': { TXT: [['v=spf1 mx -all']] } };
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    dns = await startDnsServer(zone);
    moat = await startMoat({
      env: {
        ADMIN_EMAIL: 'boss@missing.test',
        ADMIN_PASSWORD: 'missing-admin-password',
        DNS_SERVERS: dns.address,
        SMTP_HOSTNAME: MX_HOST,
      },
    });
  });
  test.afterAll(async () => {
    await moat?.stop();
    await dns?.close();
  });

  test('the DNS step is not done, and the finish page lists what is missing', async ({ page }) => {
    test.setTimeout(120_000);
    await throughToTheEnd(page, moat, 'boss@missing.test');
    const dnsStep = page.getByRole('button', { name: /DNS records/ });
    await expect(dnsStep).toContainText('Not done yet');
    await page.getByRole('button', { name: 'Check records' }).click();
    await expect(page.getByText('missing.test has no MX record', { exact: false })).toBeVisible();
    await expect(page.getByText(`missing.test. MX 10 ${MX_HOST}.`)).toBeVisible();
    await expect(page.getByText('SPF is published and refuses servers it does not list.')).toBeVisible();
    await expect(page.getByText('Missing', { exact: true })).toHaveCount(2);
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Next' }).click();
    await expect(dnsStep).toContainText('Not done yet');
    await page.getByRole('button', { name: 'Finish set-up' }).click();
    await expect(page).toHaveURL(/#\/onboarding\/all-set$/);
    await expect(page.getByRole('heading', { name: 'Set-up saved, but not finished' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'You are all set' })).toBeHidden();
    const missing = page.getByRole('list', { name: 'Still missing' });
    await expect(missing.getByRole('listitem')).toHaveText([
      'missing.test: the MX record is missing.',
      'missing.test: the DMARC record is missing.',
      'No mail server is set: clean mail waits until you name one.',
    ]);
    await expectNoAxeViolations(page);
  });
});

test.describe('with a DNS server that cannot be reached', () => {
  let moat: RunningMoat;
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    // A DNS server's port on loopback with nothing behind it any more.
    const gone = await startDnsServer({});
    await gone.close();
    moat = await startMoat({
      env: {
        ADMIN_EMAIL: 'boss@unreachable.test',
        ADMIN_PASSWORD: 'unreachable-admin-password',
        DNS_SERVERS: gone.address,
        // A bare machine name: no MX record can name it.
        SMTP_HOSTNAME: 'myhost',
      },
    });
  });
  test.afterAll(async () => {
    await moat?.stop();
  });

  test('no record says missing or right: each could not be checked, and the gateway needs a name', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await throughToTheEnd(page, moat, 'boss@unreachable.test');
    await expect(page.getByText('This gateway has no public DNS name yet')).toBeVisible();
    await expect(
      page.getByText('The operator must set SMTP_HOSTNAME', { exact: false }).first(),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Check records' }).click();
    await expect(page.getByText('Could not check', { exact: true })).toHaveCount(3);
    await expect(page.getByText('Missing', { exact: true })).toHaveCount(0);
    await expect(page.getByText('no DNS server could be reached', { exact: false }).first()).toBeVisible();
    // No MX record naming a machine name is offered.
    await expect(page.getByText('MX 10 myhost', { exact: false })).toHaveCount(0);
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Finish set-up' }).click();
    await expect(page.getByRole('heading', { name: 'Set-up saved, but not finished' })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Still missing' }).getByRole('listitem')).toHaveText([
      'This gateway has no public DNS name: the operator must set SMTP_HOSTNAME before MX records can point here.',
      'unreachable.test: the MX record could not be checked.',
      'unreachable.test: the SPF record could not be checked.',
      'unreachable.test: the DMARC record could not be checked.',
      'No mail server is set: clean mail waits until you name one.',
    ]);
  });
});
