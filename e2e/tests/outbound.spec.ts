import { execFile } from 'node:child_process';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { startDnsServer, type TestZone } from '../../apps/api/src/test/dns-server.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { freePort } from '../support/server.ts';
import { startSmtpSink } from '../support/smtp-sink.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * Outbound mail (issue 38), as an admin sets it up and a mail server uses it, over the real server
 * (`npm start`): DKIM Management makes Moat's signing key, shows the record (published here in a
 * DNS server on loopback) and turns signing on; Settings → Mail flow makes a submission credential
 * and shows its password once; swaks submits with it (AUTH LOGIN) and the smarthost
 * (OUTBOUND_RELAY_URL) receives the mail signed for acme.test, the signature verified by mailauth
 * against the published record.
 */
const zone: TestZone = {};
let env: MoatWithMail;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let smarthost: Awaited<ReturnType<typeof startSmtpSink>>;
let submissionPort: number;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dns = await startDnsServer(zone);
  smarthost = await startSmtpSink();
  submissionPort = await freePort();
  env = await startMoatWithMail({
    DNS_SERVERS: dns.address,
    SUBMISSION_PORT: String(submissionPort),
    OUTBOUND_RELAY_URL: smarthost.url,
  });
});
test.afterAll(async () => {
  await env?.stop();
  await smarthost?.close();
  await dns?.close();
});

test('an admin makes a DKIM key and a submission credential, and a mail server sends signed mail through Moat', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);

  // DKIM Management → Signing by Moat: a key, its record published, signing on.
  await page.goto(`${env.moat.url}/#/dmarc/dkim-management`);
  const acme = page.getByRole('region', { name: 'acme.test', exact: true });
  const signing = acme.getByRole('region', { name: 'Signing by Moat acme.test' });
  await expect(signing.getByText('No signing key yet')).toBeVisible();
  await signing.getByRole('button', { name: 'Create signing key' }).click();
  const key = signing.getByRole('region', { name: 'Selector moat1' });
  await expect(key.getByText('Not in DNS yet')).toBeVisible();
  const name = (await key.locator('pre, code').nth(0).innerText()).trim();
  const value = (await key.locator('pre, code').nth(1).innerText()).trim();
  expect(name).toBe('moat1._domainkey.acme.test');
  expect(value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
  zone[name] = { TXT: [value.match(/.{1,255}/g)!] };
  // The switch follows the server's answer: clicked, then waited for.
  await signing.getByRole('switch', { name: 'Sign mail from acme.test' }).click();
  await expect(signing.getByRole('switch', { name: 'Sign mail from acme.test' })).toBeChecked();
  await page.getByRole('button', { name: 'Check again' }).click();
  await expect(key.getByText('Published in DNS')).toBeVisible();

  // Settings → Mail flow → Outbound submission: a credential, its password shown once.
  await page.goto(`${env.moat.url}/#/configuration/settings`);
  const submission = page.getByRole('region', { name: 'Outbound submission' });
  await expect(submission.getByText('No credentials yet')).toBeVisible();
  await submission.getByRole('textbox', { name: /Label/ }).fill('Exchange server');
  await submission.getByRole('button', { name: 'Create credential' }).click();
  const made = submission.getByRole('alert').filter({ hasText: 'Credential created' });
  await expect(made).toBeVisible();
  const codes = made.locator('pre, code');
  const username = (await codes.nth(0).innerText()).trim();
  const password = (await codes.nth(1).innerText()).trim();
  expect(username).toMatch(/^smtp-[a-z2-9]{10}$/);
  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/outbound/settings-${slug}-${width}.png`);
  });
  await made.getByRole('button', { name: 'Done' }).click();
  await expect(submission.getByText(password)).toHaveCount(0);

  // The organisation's mail server submits with it.
  const submit = (...args: string[]) =>
    new Promise<string>((resolve) =>
      execFile(
        'swaks',
        [
          '--server',
          `127.0.0.1:${submissionPort}`,
          '--auth',
          'LOGIN',
          '--auth-user',
          username,
          '--auth-password',
          password,
          ...args,
        ],
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      ),
    );
  const out = await submit(
    '--from',
    'admin@acme.test',
    '--to',
    'partner@elsewhere.example',
    '--header',
    'Subject: Contract for signature',
  );
  expect(out).toContain('250 2.0.0 Ok: queued as');
  const mail = await smarthost.waitFor(
    'partner@elsewhere.example',
    (m) => m.subject === 'Contract for signature',
  );
  const { results } = await dkimVerify(mail.raw, {
    resolver: async (asked: string) => {
      const found = zone[asked]?.TXT;
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found;
    },
  } as Parameters<typeof dkimVerify>[1]);
  expect(results.map((r) => [r.status.result, r.signingDomain, r.selector])).toEqual([
    ['pass', 'acme.test', 'moat1'],
  ]);

  // The credential shows it was used; another organisation's domain is refused.
  const refused = await submit('--from', 'ceo@elsewhere.example', '--to', 'x@elsewhere.example');
  expect(refused).toContain(
    "553 5.7.1 <ceo@elsewhere.example>: Sender address is not in your organisation's domains",
  );
  await page.reload();
  await expect(submission.getByText(/last used/)).toBeVisible();
});

test('DLP holds a card number leaving by mail; the admin sets the rules, tries them, sees it masked and releases it', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const made = (await env.cli('tenant:smtp-credential', '--tenant', 'acme.test', '--label', 'dlp')).stdout;
  const username = made.match(/smtp-[a-z2-9]{10}/)![0];
  const password = made.match(/password:?\s+(\S+)/i)![1]!;
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);

  // Security Settings → DLP Data Types: IBANs are held from now on.
  await page.getByRole('navigation').getByText('Security Settings', { exact: true }).click();
  await page.getByRole('link', { name: 'DLP Data Types' }).click();
  await expect(page).toHaveURL(/#\/configuration\/data-types$/);
  await expect(page.getByRole('heading', { name: 'DLP Data Types', level: 1 })).toBeVisible();
  const iban = page.getByRole('region', { name: 'IBANs' });
  await iban.getByRole('combobox', { name: 'When found' }).selectOption('Hold for review');
  await iban.getByRole('button', { name: 'Save' }).click();
  await expect(iban.getByText('Saved. The gateway applies it to the next message.')).toBeVisible();
  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dlp/types-${slug}-${width}.png`);
  });

  // A custom rule: a bad expression is refused with its reason, a good one is added.
  await page.getByRole('tab', { name: 'Custom rules' }).click();
  await expect(page.getByText('No custom rules yet. Add one below.')).toBeVisible();
  const form = page.getByRole('form', { name: 'Add a custom rule' });
  await form.getByRole('textbox', { name: 'Name' }).fill('Customer numbers');
  await form.getByText('Regular expression', { exact: true }).click();
  await form.getByRole('textbox', { name: 'Regular expression' }).fill('CUST-(?=[0-9])');
  await form.getByRole('button', { name: 'Add rule' }).click();
  await expect(form.getByText('Look-around and back-references are not supported')).toBeVisible();
  await form.getByRole('textbox', { name: 'Regular expression' }).fill('CUST-[0-9]{6}');
  await form.getByRole('button', { name: 'Add rule' }).click();
  await expect(page.getByText('Added the rule Customer numbers.')).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: 'CUST-[0-9]{6}' })).toBeVisible();
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dlp/custom-${slug}-${width}.png`);
  });

  // Try it: what the rules find, masked.
  await page.getByRole('tab', { name: 'Try it' }).click();
  await page.getByRole('textbox', { name: 'Text' }).fill('Card 4111 1111 1111 1111 for CUST-004211');
  await page.getByRole('button', { name: 'Check' }).click();
  await expect(page.getByText('4111 **** **** 1111')).toBeVisible();
  await expect(page.getByText('Customer numbers')).toBeVisible();
  await expect(page.getByRole('status').getByText(/CUST-004211/)).toHaveCount(0);
  await inEachLook(page, async (slug, width) => {
    await keepShot(page, `${SHOTS}/dlp/try-${slug}-${width}.png`);
  });

  // The mail server sends a card number: held, not sent.
  const out = await new Promise<string>((resolve) =>
    execFile(
      'swaks',
      [
        '--server',
        `127.0.0.1:${submissionPort}`,
        '--auth',
        'PLAIN',
        '--auth-user',
        username,
        '--auth-password',
        password,
        '--from',
        'admin@acme.test',
        '--to',
        'booking@hotel.example',
        '--header',
        'Subject: Card for the booking',
        '--body',
        'Please charge 4111 1111 1111 1111, expiry 12/29.',
      ],
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    ),
  );
  expect(out).toMatch(/250 2\.0\.0 Ok: queued as \S+, held for review/);

  // Held mail: the card masked; released, it reaches its recipient.
  await page.getByRole('tab', { name: 'Held mail' }).click();
  await expect(page).toHaveURL(/#\/configuration\/data-types\/held$/);
  const held = page.getByRole('listitem').filter({ hasText: 'Card for the booking' });
  await expect(held.getByText('4111 **** **** 1111')).toBeVisible();
  await expect(held.getByText('From admin@acme.test to booking@hotel.example')).toBeVisible();
  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dlp/held-${slug}-${width}.png`);
  });
  await held.getByRole('button', { name: 'Release' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Release' }).click();
  await expect(page.getByText('Released "Card for the booking": it is on its way.')).toBeVisible();
  await smarthost.waitFor('booking@hotel.example', (m) => m.subject === 'Card for the booking');

  // DLP exceptions: outbound mail's own page.
  await page.goto(`${env.moat.url}/#/configuration/security-exceptions/external/dlp`);
  await expect(page.getByText('Outbound mail only')).toBeVisible();
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/dlp/exceptions-${slug}-${width}.png`);
  });
});
