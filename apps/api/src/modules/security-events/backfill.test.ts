import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { asc, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityEvents } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildQuarantinedMessage, buildTenant } from '../../test/factories.ts';

/** The last statement of migration 0015: the types and addresses of the events written before it. */
const BACKFILL = fs
  .readFileSync(new URL('../../db/migrations/0015_security_event_types.sql', import.meta.url), 'utf8')
  .split('--> statement-breakpoint')
  .at(-1)!;

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('migration 0015 backfill', () => {
  it('types each earlier event by who wrote it and copies its message’s addresses', async () => {
    const tenant = await buildTenant(t.db);
    const held = await buildQuarantinedMessage(t.db, tenant.id, {
      event: false,
      recipient: 'ana@acme.test',
      sender: 'x@evil.example',
      subject: 'Held one',
    });
    const stripped = await buildQuarantinedMessage(t.db, tenant.id, {
      event: false,
      state: 'attachments_removed',
    });
    const failed = await buildQuarantinedMessage(t.db, tenant.id, {
      event: false,
      failedInboundId: randomUUID(),
    });
    // Rows as the code before 0015 wrote them: no type (the default), no addresses.
    const old = (n: number, values: Partial<typeof securityEvents.$inferInsert>) => ({
      tenantId: tenant.id,
      engine: 'anti_phishing',
      verdict: 'phishing',
      severity: 'high',
      description: 'Lookalike sender domain',
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, n)),
      ...values,
    });
    await t.db.insert(securityEvents).values([
      old(1, { messageId: held.id }),
      old(2, {
        messageId: held.id,
        engine: 'recipient',
        description: 'ana@acme.test reported the message as safe',
      }),
      old(3, { description: 'Delivered to bo@acme.test with a warning banner: suspicious' }),
      old(4, { messageId: failed.id, engine: 'gateway', description: 'processing failed' }),
      old(5, { messageId: stripped.id }),
      old(6, {}),
    ]);
    await t.db.execute(sql.raw(BACKFILL));
    const rows = await t.db
      .select({
        type: securityEvents.type,
        recipient: securityEvents.recipient,
        sender: securityEvents.sender,
        subject: securityEvents.subject,
      })
      .from(securityEvents)
      .where(sql`${securityEvents.tenantId} = ${tenant.id}`)
      .orderBy(asc(securityEvents.createdAt));
    expect(rows).toEqual([
      { type: 'hold', recipient: 'ana@acme.test', sender: 'x@evil.example', subject: 'Held one' },
      { type: 'report', recipient: 'ana@acme.test', sender: 'x@evil.example', subject: 'Held one' },
      { type: 'banner', recipient: 'bo@acme.test', sender: '', subject: '' },
      { type: 'failure', recipient: failed.recipient, sender: failed.sender, subject: failed.subject },
      { type: 'strip', recipient: stripped.recipient, sender: stripped.sender, subject: stripped.subject },
      { type: 'detection', recipient: '', sender: '', subject: '' },
    ]);
  });
});
