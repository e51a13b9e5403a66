import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { MY_SENDERS_API, MY_SENDERS_MAX } from '@moat/contracts/my-senders';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, personalSenderLists } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { buildSession, buildUser } from '../../test/factories.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const at = (id: string) => MY_SENDERS_API.entry.replace(':id', id);

/** A plain user of a fresh tenant, with the calls of their own list. */
async function kim() {
  const who = await signedInAs(t.app, t.db, { user: { role: 'user' } });
  return {
    ...who,
    add: (list: string, value: string) => who.send('POST', MY_SENDERS_API.entries, { list, value }),
    remove: (id: string) =>
      t.app.inject({ method: 'DELETE', url: at(id), cookies: who.cookies, headers: CSRF }),
    entries: async () => (await who.get(MY_SENDERS_API.entries)).json(),
  };
}

const rowsOf = (userId: string) =>
  t.db.select().from(personalSenderLists).where(eq(personalSenderLists.userId, userId));

describe('GET and POST /api/v1/my_senders', () => {
  it('adds addresses and domains in their stored form, lists them, and audits as the user', async () => {
    const k = await kim();
    const added = await k.add('block', '  News@Mail.Shop.TEST ');
    expect(added.statusCode).toBe(200);
    expect(added.json()).toMatchObject({ list: 'block', kind: 'sender', value: 'news@mail.shop.test' });
    // An internationalised domain is kept in punycode; a leading `*.` is dropped.
    expect((await k.add('allow', '*.bücher.example')).json()).toMatchObject({
      list: 'allow',
      kind: 'domain',
      value: 'xn--bcher-kva.example',
    });

    const body = await k.entries();
    expect(body).toMatchObject({ total: 2, max: MY_SENDERS_MAX });
    expect(body.items.map((e: { value: string }) => e.value).sort()).toEqual([
      'news@mail.shop.test',
      'xn--bcher-kva.example',
    ]);
    expect(body.items[0]).toEqual({
      id: expect.any(String),
      list: expect.any(String),
      kind: expect.any(String),
      value: expect.any(String),
      created_at: expect.any(String),
    });
    const audited = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, k.user.id), eq(auditLog.action, 'my_sender.add')));
    expect(audited).toHaveLength(2);
    expect(audited[0]).toMatchObject({ actorType: 'user', tenantId: k.tenant.id, targetType: 'my_sender' });
  });

  it('moves a value already on one list to the other, keeping one entry for it', async () => {
    const k = await kim();
    const first = (await k.add('allow', 'partner.example')).json();
    const again = await k.add('allow', 'PARTNER.example');
    expect(again.json().id).toBe(first.id);
    const moved = (await k.add('block', 'partner.example')).json();
    expect(moved).toMatchObject({ id: first.id, list: 'block' });
    expect(await rowsOf(k.user.id)).toHaveLength(1);
    const [audit] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, k.user.id), eq(auditLog.action, 'my_sender.move')));
    expect(audit?.details).toMatchObject({ list: 'block', from_list: 'allow', value: 'partner.example' });
  });

  it('answers 400 with a clear message for anything but an address or a domain, and adds nothing', async () => {
    const k = await kim();
    for (const value of ['', 'not a sender', 'http://shop.example/', '192.0.2.1', 'name@', '@shop.example']) {
      const res = await k.add('block', value);
      expect(res.statusCode, value).toBe(400);
      expect(res.json().message, value).toBe(
        'Enter an email address (name@example.com) or a domain (example.com)',
      );
    }
    expect((await k.add('maybe', 'shop.example')).statusCode).toBe(400);
    // The organisation's own domain is never blocked (a spoofed From would hide a colleague).
    const own = await k.add('block', `boss@${k.tenant.domain}`);
    expect(own.statusCode).toBe(400);
    expect(own.json().message).toBe("Your organisation's own addresses can not be blocked here");
    // A provider anyone has an address at is allowed by address only (each of its users passes DMARC).
    const everyone = await k.add('allow', 'GMAIL.com');
    expect(everyone.statusCode).toBe(400);
    expect(everyone.json().message).toContain("allow the person's address instead");
    expect(await rowsOf(k.user.id)).toHaveLength(0);
    expect((await k.add('allow', 'pat@gmail.com')).statusCode).toBe(200);
    expect((await k.add('block', 'gmail.com')).statusCode).toBe(200);
  });

  it(`refuses a new value past ${MY_SENDERS_MAX} entries with 409, but still moves one already there`, async () => {
    const k = await kim();
    await t.db.insert(personalSenderLists).values(
      Array.from({ length: MY_SENDERS_MAX }, (_, i) => ({
        tenantId: k.tenant.id,
        userId: k.user.id,
        list: 'block' as const,
        kind: 'domain' as const,
        value: `d${i}.example`,
      })),
    );
    const refused = await k.add('block', 'one-more.example');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain(`${MY_SENDERS_MAX} senders`);
    expect((await k.add('allow', 'd7.example')).statusCode).toBe(200);
    expect(await rowsOf(k.user.id)).toHaveLength(MY_SENDERS_MAX);
  });

  it('lets an admin keep their own list too, apart from everyone else', async () => {
    const admin = await signedInAs(t.app, t.db);
    const res = await admin.send('POST', MY_SENDERS_API.entries, { list: 'allow', value: 'vendor.example' });
    expect(res.statusCode).toBe(200);
    const k = await kim();
    expect((await k.entries()).total).toBe(0);
  });

  it('answers 403 to anyone not signed in', async () => {
    expect((await t.app.inject({ method: 'GET', url: MY_SENDERS_API.entries })).statusCode).toBe(403);
    const post = await t.app.inject({
      method: 'POST',
      url: MY_SENDERS_API.entries,
      headers: CSRF,
      payload: { list: 'block', value: 'shop.example' },
    });
    expect(post.statusCode).toBe(403);
    expect(
      await t.db.select().from(personalSenderLists).where(eq(personalSenderLists.value, 'shop.example')),
    ).toEqual([]);
  });
});

describe('DELETE /api/v1/my_senders/{id}', () => {
  it("removes the user's own entry, audited, and answers 404 for a colleague's", async () => {
    const k = await kim();
    const mine = (await k.add('block', 'shop.example')).json();
    // A colleague in the same organisation, with an entry of their own.
    const colleague = await buildUser(t.db, k.tenant.id, { role: 'user' });
    const { token } = await buildSession(t.db, colleague);
    const theirs = await t.app.inject({
      method: 'POST',
      url: MY_SENDERS_API.entries,
      cookies: { [SESSION_COOKIE]: token },
      headers: CSRF,
      payload: { list: 'allow', value: 'friend@pals.example' },
    });
    expect(theirs.statusCode).toBe(200);

    const refused = await k.remove(theirs.json().id);
    expect(refused.statusCode).toBe(404);
    expect(await rowsOf(colleague.id)).toHaveLength(1);

    const removed = await k.remove(mine.id);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ deleted: true });
    expect(await rowsOf(k.user.id)).toHaveLength(0);
    expect((await k.remove(mine.id)).statusCode).toBe(404);
    const [audit] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, k.user.id), eq(auditLog.action, 'my_sender.delete')));
    expect(audit).toMatchObject({ targetId: mine.id, details: { value: 'shop.example', list: 'block' } });
    expect((await k.remove('not-a-uuid')).statusCode).toBe(400);
  });
});
