import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailLog } from '../../db/schema.ts';
import type { Engine, EngineInput } from '../../engines/types.ts';
import { cliActor } from '../../lib/actor.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { PARTNER_MIN_MESSAGES } from './mail-flow.repo.ts';

const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
let tenantId: string;
/** What the engines were handed, one per message scanned. */
const seen: EngineInput[] = [];
/** An engine that finds nothing and keeps what it was given (the real anti-phishing engine reads the same). */
const capture: Engine = {
  name: 'input-capture',
  version: '1',
  status: 'on',
  failClosed: false,
  async scan(input) {
    seen.push(input);
    return [];
  },
};

const DAY = 86_400_000;

/** Mail Explorer rows as earlier mail would have left them. */
function rows(tenant: string, sender: string, n: number, extra: Partial<typeof mailLog.$inferInsert> = {}) {
  return Array.from({ length: n }, () => ({
    tenantId: tenant,
    inboundId: randomUUID(),
    recipient: 'ana@known.test',
    sender,
    receivedAt: new Date(Date.now() - 2 * DAY),
    verdict: 'clean',
    action: 'delivered',
    size: 100,
    ...extra,
  }));
}

beforeAll(async () => {
  t = await buildTestApp({ dnsResolver: noDns as never, env: { SMTP_HOSTNAME: 'mx.moat.test' } });
  const tenant = await buildTenant(t.db, { domain: 'known.test' });
  tenantId = tenant.id;
  await buildUser(t.db, tenant.id, { email: 'ana@known.test', firstName: 'Ana', lastName: 'Lopez' });
  const other = await buildTenant(t.db);
  const n = PARTNER_MIN_MESSAGES;
  await t.db.insert(mailLog).values([
    // A regular partner: its boss wrote three times, colleagues the rest.
    ...rows(tenantId, 'boss@partner.example', 3),
    ...rows(tenantId, 'sales@partner.example', n + 2),
    // Too little mail to be a partner.
    ...rows(tenantId, 'a@rare.example', n - 1),
    // Shared mail providers and the tenant's own domain are nobody's partner.
    ...rows(tenantId, 'someone@gmail.com', n + 5),
    ...rows(tenantId, 'colleague@known.test', n + 5),
    // Mail held as spam, and mail older than the window, do not make a partner.
    ...rows(tenantId, 'x@spammy.example', n + 1, { verdict: 'spam', action: 'quarantined' }),
    ...rows(tenantId, 'y@old.example', n + 1, { receivedAt: new Date(Date.now() - 120 * DAY) }),
    // Another tenant's partner is not this tenant's, and its mail from partner.example does not count here.
    ...rows(other.id, 'z@theirs.example', n + 1),
    ...rows(other.id, 'boss@partner.example', 9),
  ]);
  await t.app.services.vips.create(
    tenantId,
    { name: 'Jane Doe', emails: ['Jane@Known.test', 'jane.doe@home.example'] },
    cliActor,
  );
  t.app.services.gateway.engines.push(capture);
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

/** Send one message through the gateway and return what the engines were handed. */
async function scanned(from: string): Promise<EngineInput> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true });
  await transport.sendMail({ from, to: 'ana@known.test', subject: 'Hello', text: 'Hello there.' });
  transport.close();
  const before = seen.length;
  await t.app.services.gateway.processor.drain();
  expect(seen.length).toBe(before + 1);
  return seen[seen.length - 1] as EngineInput;
}

describe('what the gateway hands the engines about the tenant and the sender', () => {
  it("carries the tenant's VIPs, its learned partner domains and the sender's earlier mail", async () => {
    const input = await scanned('Boss <boss@partner.example>');
    expect(input.tenant.vips).toEqual([
      { name: 'Jane Doe', emails: ['jane@known.test', 'jane.doe@home.example'] },
    ]);
    expect(input.tenant.partners).toEqual(['partner.example']);
    expect(input.senderHistory).toEqual({ address: 3, domain: 3 + PARTNER_MIN_MESSAGES + 2 });
  });

  it('counts the mail that came since, and a first-time sender as unknown to the tenant', async () => {
    // The message above is in the Mail Explorer now: one more from the domain.
    const colleague = await scanned('New Colleague <new@partner.example>');
    expect(colleague.senderHistory).toEqual({ address: 0, domain: 3 + PARTNER_MIN_MESSAGES + 3 });
    const stranger = await scanned('Jane Doe <jane.doe@lookalike.example>');
    expect(stranger.senderHistory).toEqual({ address: 0, domain: 0 });
  });

  it('sees a VIP list change at the next message (the cache is forgotten on write)', async () => {
    const { items } = await t.app.services.vips.list(tenantId);
    await t.app.services.vips.update(
      tenantId,
      items[0]?.id ?? '',
      { name: 'Jane Q. Doe', emails: [] },
      cliActor,
    );
    await t.app.services.vips.create(tenantId, { name: 'Carl Finance', emails: [] }, cliActor);
    const input = await scanned('Someone <someone@elsewhere.example>');
    expect(input.tenant.vips).toEqual(
      expect.arrayContaining([
        { name: 'Jane Q. Doe', emails: [] },
        { name: 'Carl Finance', emails: [] },
      ]),
    );
    expect(input.tenant.vips).toHaveLength(2);
  });
});
