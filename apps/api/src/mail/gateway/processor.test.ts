import { eq, inArray } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessages, mailLog, outbox } from '../../db/schema.ts';
import type { Engine } from '../../engines/types.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';

const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;

/** An engine that finds nothing but records how many scans overlap. */
function overlapProbe() {
  let now = 0;
  const probe = {
    most: 0,
    engine: {
      name: 'overlap-probe',
      version: '1',
      status: 'on',
      failClosed: false,
      async scan() {
        now += 1;
        probe.most = Math.max(probe.most, now);
        // Long enough for the other claimed messages to reach their scan too.
        await new Promise((resolve) => setTimeout(resolve, 150));
        now -= 1;
        return [];
      },
    } satisfies Engine,
  };
  return probe;
}

beforeAll(async () => {
  t = await buildTestApp({
    dnsResolver: noDns as never,
    env: { SMTP_HOSTNAME: 'mx.moat.test', SMTP_PROCESSING_CONCURRENCY: '4' },
  });
  const tenant = await buildTenant(t.db, { domain: 'many.test' });
  await buildUser(t.db, tenant.id, { email: 'ana@many.test' });
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log }, { maxMessagesPerMinute: 100_000 });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

describe('gateway processor: several messages at once', () => {
  it('processes 20 messages 4 at a time, each exactly once, even with two passes running', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true, pool: true });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const info = await transport.sendMail({
        from: 'bob@outside.test',
        to: 'ana@many.test',
        subject: `Many ${i}`,
        text: `Message ${i}`,
      });
      ids.push(/queued as ([0-9a-f-]{36})/.exec(info.response)![1]!);
    }
    transport.close();

    const probe = overlapProbe();
    const engines = t.app.services.gateway.engines;
    engines.push(probe.engine);
    try {
      // Two passes at once (a kick and the periodic pass): leases keep them apart.
      const processor = t.app.services.gateway.processor;
      const [a, b] = await Promise.all([processor.drain(), processor.drain()]);
      expect(a + b).toBe(20);
    } finally {
      engines.splice(engines.indexOf(probe.engine), 1);
    }
    // Each pass keeps 4 in flight; never more than 4 per pass.
    expect(probe.most).toBeGreaterThanOrEqual(4);
    expect(probe.most).toBeLessThanOrEqual(8);

    const inbound = await t.db
      .select({ status: inboundMessages.status, attempts: inboundMessages.attempts })
      .from(inboundMessages)
      .where(inArray(inboundMessages.id, ids));
    expect(inbound).toHaveLength(20);
    // Each claimed once and finished on that one pass.
    expect(inbound.every((r) => r.status === 'processed' && r.attempts === 1)).toBe(true);
    const logged = await t.db
      .select({ inboundId: mailLog.inboundId })
      .from(mailLog)
      .where(inArray(mailLog.inboundId, ids));
    expect(new Set(logged.map((r) => r.inboundId)).size).toBe(20);
    expect(logged).toHaveLength(20);
    const delivered = await t.db
      .select({ key: outbox.idempotencyKey })
      .from(outbox)
      .where(eq(outbox.kind, 'gateway_delivery'));
    const ours = delivered.filter((r) => ids.some((id) => r.key === `${id}:ana@many.test`));
    expect(ours).toHaveLength(20);
  });

  it('processes one at a time per pass when told to', async () => {
    const one = await buildTestApp({
      dnsResolver: noDns as never,
      env: { SMTP_HOSTNAME: 'mx.moat.test', SMTP_PROCESSING_CONCURRENCY: '1' },
    });
    try {
      const tenant = await buildTenant(one.db, { domain: 'single.test' });
      await buildUser(one.db, tenant.id, { email: 'ana@single.test' });
      const door = testSmtpIn({ db: one.db, clock: one.app.clock, log: one.app.log });
      const doorPort = await door.listen(0, '127.0.0.1');
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: doorPort, ignoreTLS: true });
      for (let i = 0; i < 4; i++) {
        await transport.sendMail({
          from: 'bob@outside.test',
          to: 'ana@single.test',
          subject: `One ${i}`,
          text: 'x',
        });
      }
      transport.close();
      await door.close();
      const probe = overlapProbe();
      one.app.services.gateway.engines.push(probe.engine);
      expect(await one.app.services.gateway.processor.drain()).toBe(4);
      expect(probe.most).toBe(1);
    } finally {
      await one.close();
    }
  });
});
