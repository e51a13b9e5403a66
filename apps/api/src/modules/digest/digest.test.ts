import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildQuarantinedMessage, buildTenant } from '../../test/factories.ts';
import { lastPeriod } from './digest.service.ts';

const clock = new ManualClock('2026-11-25T09:00:00Z'); // a Wednesday
let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ clock });
});
afterAll(() => t.close());

describe('lastPeriod', () => {
  it('is yesterday for daily and last Monday-to-Monday for weekly (UTC)', () => {
    expect(lastPeriod('daily', new Date('2026-11-25T09:00:00Z'))).toEqual({
      from: new Date('2026-11-24T00:00:00Z'),
      to: new Date('2026-11-25T00:00:00Z'),
      key: '2026-11-24',
    });
    expect(lastPeriod('weekly', new Date('2026-11-25T09:00:00Z'))).toMatchObject({
      from: new Date('2026-11-16T00:00:00Z'),
      to: new Date('2026-11-23T00:00:00Z'),
    });
  });
});

describe('quarantine digest', () => {
  it('mails each recipient once per period the messages held for them, with restore links', async () => {
    const tenant = await buildTenant(t.db, { digestSchedule: 'daily' });
    const off = await buildTenant(t.db);
    const yesterday = new Date('2026-11-24T15:00:00Z');
    await buildQuarantinedMessage(t.db, tenant.id, {
      recipient: 'ana@d.test',
      subject: 'Invoice',
      verdict: 'spam',
      receivedAt: yesterday,
    });
    await buildQuarantinedMessage(t.db, tenant.id, {
      recipient: 'ana@d.test',
      subject: 'Shipping',
      verdict: 'phishing',
      receivedAt: yesterday,
    });
    await buildQuarantinedMessage(t.db, tenant.id, {
      recipient: 'ana@d.test',
      subject: 'Virus',
      verdict: 'malware',
      receivedAt: yesterday,
    });
    await buildQuarantinedMessage(t.db, tenant.id, {
      recipient: 'ana@d.test',
      subject: 'Today',
      receivedAt: new Date('2026-11-25T08:00:00Z'),
    });
    await buildQuarantinedMessage(t.db, tenant.id, {
      recipient: 'bo@d.test',
      subject: 'Released',
      state: 'restored',
      receivedAt: yesterday,
    });
    await buildQuarantinedMessage(t.db, off.id, {
      recipient: 'cy@o.test',
      subject: 'Other tenant',
      receivedAt: yesterday,
    });

    await buildQuarantinedMessage(t.db, tenant.id, {
      recipient: 'ana@d.test',
      subject: 'Blocked sender',
      verdict: 'spam',
      silent: true,
      receivedAt: yesterday,
    });
    expect(await t.app.services.digest.run()).toBe(1);
    expect(await t.app.services.digest.run()).toBe(1); // again: the same digest, not a second one
    const digests = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.kind, 'quarantine_digest'), eq(outbox.tenantId, tenant.id)));
    expect(digests).toHaveLength(1);
    const [digest] = digests;
    expect(digest).toMatchObject({
      toAddress: 'ana@d.test',
      subject: '2 message(s) held for you (2026-11-24)',
    });
    expect(digest!.text).toContain('Invoice');
    expect(digest!.text).toContain('Shipping');
    expect(digest!.text).not.toContain('Virus');
    expect(digest!.text).not.toContain('Blocked sender');
    expect(digest!.text).not.toContain('Today');
    expect(digest!.text).toMatch(
      /Restore “Invoice”: http\S+#\/email-actions\/restore-email\?type=office365_emails&msg=\S+&mode=automatic/,
    );
    expect(await t.db.select().from(outbox).where(eq(outbox.toAddress, 'cy@o.test'))).toHaveLength(0);

    // The next day's run sends the next period's digest: what was held on the 25th.
    clock.advance(86_400_000);
    expect(await t.app.services.digest.run()).toBe(1);
    const next = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.kind, 'quarantine_digest'), eq(outbox.tenantId, tenant.id)));
    expect(next.map((d) => d.subject).sort()).toEqual([
      '1 message(s) held for you (2026-11-25)',
      '2 message(s) held for you (2026-11-24)',
    ]);
  });
});
