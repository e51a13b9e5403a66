import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, DbOrTx } from '../../db/client.ts';
import { securityEvents } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';
import { openTestDatabase } from '../../test/database.ts';
import { buildQuarantinedMessage, buildTenant } from '../../test/factories.ts';
import { createSearchRepo, type SearchScope } from './search.repo.ts';

// An address fragment may be found through the address keys of migration 0014 or through the
// words' ilike alone (the trigram index): both must give the same rows in the same order.

const DAY = 86_400_000;
const APPS = ['office365_emails', 'google_mail'];
let database: Database;
let tenantId: string;
let otherTenantId: string;
/** The words of every stored message and event: keywords are cut out of them. */
const words: string[] = [];
/** The tenant's held messages (not deleted) as stored. */
const held: Array<{ sender: string; recipient: string }> = [];

// Local parts that share their last characters or contain one another, in mixed case and with
// letters lower() changes beyond ASCII, so that keys collide and fragments cross them.
const LOCALS = ['sender12', 'Sender123', 'xsender123', 'SÉNDER12', 'noreply', 'no-reply', 'bob', 'a.b-c_d%e'];
const DOMAINS = ['outside.example', 'Outside5.example', 'vendor.test', 'x.io'];

beforeAll(async () => {
  database = await openTestDatabase();
  const db = database.db;
  tenantId = (await buildTenant(db)).id;
  otherTenantId = (await buildTenant(db)).id;
  let n = 0;
  for (const [i, local] of LOCALS.entries()) {
    for (const [j, domain] of DOMAINS.entries()) {
      n += 1;
      const sender = `${local}@${domain}`;
      const subject = n % 5 === 0 ? `Re: mail from ${local.toUpperCase()}@${domain} #${n}` : `Notice #${n}`;
      const senderName = n % 7 === 0 ? `${local}@${domain} via list` : `Sender ${i}`;
      const recipient = `${n % 3 === 0 ? 'ivy' : 'ceo'}@plain.test`;
      // Distinct times (newest first by n), some outside a month and a week, a few after now (a
      // clock ahead: no week of the range holds them, yet they are in it).
      const ago = n % 10 === 0 ? -10 * DAY : n % 4 === 0 ? 40 * DAY : (n % 9) * DAY;
      const receivedAt = new Date(Date.now() - ago - n * 60_000);
      const owner = n % 11 === 0 ? otherTenantId : tenantId;
      const state = n % 13 === 0 ? 'deleted' : 'quarantined';
      await buildQuarantinedMessage(db, owner, {
        sender,
        senderName,
        subject,
        recipient,
        receivedAt,
        saasType: APPS[(i + j) % 2]!,
        state,
        reasons: [`Lookalike sender domain ${sender}`],
      });
      if (owner === tenantId && state !== 'deleted') held.push({ sender, recipient });
      words.push(`${subject} ${senderName} ${sender} ${recipient}`, `Lookalike sender domain ${sender}`);
      if (n % 6 === 0) {
        // An engine event without a message that names the address.
        const description = `Blocked ${sender.toLowerCase()} at the edge`;
        await db.insert(securityEvents).values({
          tenantId,
          engine: 'edge',
          verdict: 'malware',
          description,
          severity: 'high',
          createdAt: new Date(Date.now() - (n % 10) * DAY - n * 61_000),
        });
        words.push(description);
      }
    }
  }
});
afterAll(() => database.close());

/**
 * A piece of one of `words` around one of its '@'s (`before` characters before it, `after`
 * after it: with six or more before, the keyword has an address key), its letters' case changed
 * at random.
 */
const fragmentOf = (words: string[]) =>
  fc
    .record({
      text: fc.constantFrom(...words),
      which: fc.nat(),
      before: fc.integer({ min: 0, max: 16 }),
      after: fc.integer({ min: 0, max: 12 }),
      flips: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
    })
    .map(({ text, which, before, after, flips }) => {
      const at = [...text.matchAll(/@/g)].map((m) => m.index);
      const centre = at[which % at.length]!;
      const piece = text.slice(Math.max(0, centre - before), centre + 1 + after);
      return [...piece].map((c, k) => (flips[k] ? c.toUpperCase() : c.toLowerCase())).join('');
    })
    .filter((k) => k.trim() !== '' && k === k.trim());

describe('search repository: address keys', () => {
  it('finds the same messages and events with the keys as with the words alone', async () => {
    const byWords = createSearchRepo(database.db, { addressKeyRows: 0 });
    const byKeys = createSearchRepo(database.db, { addressKeyRows: Number.POSITIVE_INFINITY });
    const asPlanned = createSearchRepo(database.db);
    let found = 0;
    await fc.assert(
      fc.asyncProperty(
        fragmentOf(words),
        fc.constantFrom(null, 'ivy@plain.test'),
        fc.constantFrom(7, 31, 366),
        fc.constantFrom(1, 3, 8),
        async (keyword, recipient, days, limit) => {
          const scope: SearchScope = {
            tenantId,
            keyword,
            pattern: containsPattern(keyword),
            since: new Date(Date.now() - days * DAY),
            until: new Date(),
            limit,
            recipient,
          };
          const groups = { apps: APPS, system: recipient === null };
          const expected = {
            messages: await byWords.messages(scope, APPS),
            events: await byWords.events(scope, groups),
          };
          found += expected.messages.length + expected.events.length;
          for (const repo of [byKeys, asPlanned]) {
            expect({
              messages: await repo.messages(scope, APPS),
              events: await repo.events(scope, groups),
            }).toEqual(expected);
          }
        },
      ),
      { numRuns: 60, seed: 14 },
    );
    // The keywords are pieces of stored words: most find something.
    expect(found).toBeGreaterThan(60);
  });

  it('finds a piece of an address in any case, contained in a longer local part, and nothing else', async () => {
    const repo = createSearchRepo(database.db, { addressKeyRows: Number.POSITIVE_INFINITY });
    const scope = (keyword: string, recipient: string | null = null): SearchScope => ({
      tenantId,
      keyword,
      pattern: containsPattern(keyword),
      since: new Date(Date.now() - 366 * DAY),
      until: new Date(),
      limit: 100,
      recipient,
    });
    const senders = async (keyword: string, recipient: string | null = null) =>
      (await repo.messages(scope(keyword, recipient), APPS)).map((m) => m.sender).sort();
    const heldFrom = (local: RegExp, recipient: string | null = null) =>
      held
        .filter((m) => local.test(m.sender) && (recipient === null || m.recipient === recipient))
        .map((m) => m.sender)
        .sort();
    // `sender123@` is in `Sender123@…` and `xsender123@…`, not in `sender12@…`.
    expect(await senders('SENDER123@')).toEqual(heldFrom(/^x?sender123@/i));
    expect(heldFrom(/^x?sender123@/i)).toHaveLength(7);
    expect(await senders('sÉnder12@')).toEqual(heldFrom(/^SÉNDER12@/));
    expect(heldFrom(/^SÉNDER12@/).length).toBeGreaterThan(0);
    // A plain user's search covers only mail sent to them.
    expect(await senders('sender123@', 'ivy@plain.test')).toEqual(
      heldFrom(/^x?sender123@/i, 'ivy@plain.test'),
    );
    expect(heldFrom(/^x?sender123@/i, 'ivy@plain.test').length).toBeGreaterThan(0);
    expect(await senders('zzsender123@')).toEqual([]);
  });

  it('uses the keys of one table only when only its keys are rare, with the same results', async () => {
    const db = database.db;
    // An address many messages (of another tenant, without events) come from: its keys are common
    // among messages and rare among events.
    for (let i = 0; i < 30; i++) {
      await buildQuarantinedMessage(db, otherTenantId, {
        sender: 'bulk-mailer@news.example',
        receivedAt: new Date(Date.now() - i * 3_600_000),
        event: false,
      });
    }
    await buildQuarantinedMessage(db, tenantId, {
      sender: 'Bulk-Mailer@news.example',
      subject: 'Weekly digest',
      receivedAt: new Date(Date.now() - 3 * DAY),
    });
    await db.insert(securityEvents).values({
      tenantId,
      engine: 'edge',
      verdict: 'spam',
      description: 'Throttled bulk-mailer@news.example',
      severity: 'low',
      createdAt: new Date(Date.now() - DAY),
    });
    await db.execute(sql`analyze quarantine_messages, security_events`);
    const statements: string[] = [];
    const dialect = new PgDialect();
    const spy = Object.assign(Object.create(db) as DbOrTx, {
      execute: (query: Parameters<DbOrTx['execute']>[0]) => {
        statements.push(dialect.sqlToQuery(query as never).sql);
        return db.execute(query);
      },
    });
    const scope: SearchScope = {
      tenantId,
      keyword: 'bulk-mailer@',
      pattern: containsPattern('bulk-mailer@'),
      since: new Date(Date.now() - 31 * DAY),
      until: new Date(),
      limit: 8,
      recipient: null,
    };
    const groups = { apps: APPS, system: true };
    const mixed = createSearchRepo(spy, { addressKeyRows: 10 });
    const events = await mixed.events(scope, groups);
    const query = statements.find((q) => !q.trimStart().startsWith('explain'))!;
    // The events found by their own words by the keys; those found by their message's words not.
    expect(query).toContain('cross join lateral');
    expect(query.match(/ && moat_address_keys\(/g)).toHaveLength(2);
    const byWords = createSearchRepo(db, { addressKeyRows: 0 });
    expect(events).toEqual(await byWords.events(scope, groups));
    expect(events.map((e) => e.description)).toEqual([
      'Throttled bulk-mailer@news.example',
      'Lookalike sender domain',
    ]);
  });
});
