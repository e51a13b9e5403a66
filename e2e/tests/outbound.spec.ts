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
