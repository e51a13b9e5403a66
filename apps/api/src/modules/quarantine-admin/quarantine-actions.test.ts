import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLog,
  outbox,
  quarantineAttachments,
  quarantineMessages,
  securityEvents,
  senderLists,
  tenants,
} from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { warningText } from '../../mail/gateway/banner.ts';
import { parseMessage } from '../../mail/parse.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildQuarantinedMessage, buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

/** The injected clock: real time moved on by `offset` (sessions stay valid while it is 0). */
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Jar;
let plainUser: Jar;
let otherAdmin: Jar;
let tenantId: string;
let otherTenantId: string;
let domain: string;
const password = 'admin password 1';

beforeAll(async () => {
  t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' }, clock });
  const tenant = await buildTenant(t.db);
  tenantId = tenant.id;
  domain = tenant.domain;
  const other = await buildTenant(t.db);
  otherTenantId = other.id;
  const hash = await hashPassword(password);
  await buildUser(t.db, tenant.id, { email: `admin@${domain}`, role: 'admin', passwordHash: hash });
  await buildUser(t.db, tenant.id, { email: `user@${domain}`, role: 'user', passwordHash: hash });
  await buildUser(t.db, other.id, { email: `admin@${other.domain}`, role: 'admin', passwordHash: hash });
  admin = new Jar();
  plainUser = new Jar();
  otherAdmin = new Jar();
  await login(t.app, admin, `admin@${domain}`, password);
  await login(t.app, plainUser, `user@${domain}`, password);
  await login(t.app, otherAdmin, `admin@${other.domain}`, password);
});
afterAll(() => t.close());

let n = 0;
/** A message held for a recipient of the tenant, as the gateway stores it. */
function held(overrides: Parameters<typeof buildQuarantinedMessage>[2] = {}) {
  n += 1;
  return buildQuarantinedMessage(t.db, overrides.tenantId ?? tenantId, {
    recipient: `r${n}@${domain}`,
    subject: `Held ${n}`,
    receivedAt: clock.now(),
    ...overrides,
  });
}

const get = (jar: Jar, url: string) =>
  t.app.inject({ method: 'GET', url, cookies: jar.cookies, remoteAddress: jar.ip });

async function auditOf(action: string, targetId: string) {
  return t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)));
}

async function sentTo(address: string) {
  return t.db.select().from(outbox).where(eq(outbox.toAddress, address));
}

describe('bulk release and delete', () => {
  it('releases several messages and reports each one: released, skipped with a reason, not found', async () => {
    const a = await held();
    const b = await held();
    const gone = await held({ state: 'deleted' });
    const foreign = await held({ tenantId: otherTenantId, recipient: 'x@elsewhere.test' });
    const missing = '00000000-0000-4000-8000-000000000000';
    const res = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', {
      ids: [a.id, b.id, gone.id, foreign.id, missing],
      action: 'release',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([
      { id: a.id, outcome: 'released', reason: null },
      { id: b.id, outcome: 'released', reason: null },
      { id: gone.id, outcome: 'skipped', reason: 'already_deleted' },
      { id: foreign.id, outcome: 'not_found', reason: null },
      { id: missing, outcome: 'not_found', reason: null },
    ]);
    expect(await sentTo(a.recipient)).toHaveLength(1);
    expect(await sentTo(b.recipient)).toHaveLength(1);
    expect(await auditOf('quarantine.admin_release', a.id)).toHaveLength(1);
    expect(await auditOf('quarantine.admin_release', b.id)).toHaveLength(1);
    const [foreignRow] = await t.db
      .select()
      .from(quarantineMessages)
      .where(eq(quarantineMessages.id, foreign.id));
    expect(foreignRow!.state).toBe('quarantined');

    const again = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', {
      ids: [a.id],
      action: 'release',
    });
    expect(again.json().results).toEqual([{ id: a.id, outcome: 'skipped', reason: 'already_released' }]);
    expect(await sentTo(a.recipient)).toHaveLength(1);
  });

  it('deletes several messages: their raw bytes go, each deletion is audited, a second call skips them', async () => {
    const a = await held();
    const b = await held();
    const res = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', {
      ids: [a.id, b.id],
      action: 'delete',
    });
    expect(res.json().results).toEqual([
      { id: a.id, outcome: 'deleted', reason: null },
      { id: b.id, outcome: 'deleted', reason: null },
    ]);
    const rows = await t.db
      .select()
      .from(quarantineMessages)
      .where(inArray(quarantineMessages.id, [a.id, b.id]));
    expect(rows.map((r) => [r.state, r.raw.length])).toEqual([
      ['deleted', 0],
      ['deleted', 0],
    ]);
    expect(await auditOf('quarantine.admin_delete', a.id)).toHaveLength(1);
    const list = await get(admin, '/api/v1/quarantine/messages?limit=200');
    expect(list.json().items.map((m: { id: string }) => m.id)).not.toContain(a.id);
    const again = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', {
      ids: [a.id],
      action: 'delete',
    });
    expect(again.json().results).toEqual([{ id: a.id, outcome: 'skipped', reason: 'already_deleted' }]);
    expect(await auditOf('quarantine.admin_delete', a.id)).toHaveLength(1);
    expect((await get(admin, `/api/v1/quarantine/messages/${a.id}/eml`)).statusCode).toBe(404);
  });

  it('refuses bad bodies with 400 and changes nothing', async () => {
    const a = await held();
    const ids = Array.from({ length: 201 }, () => a.id);
    for (const body of [
      { ids: [], action: 'release' },
      { ids, action: 'release' },
      { ids: ['not-a-uuid'], action: 'delete' },
      { ids: [a.id], action: 'explode' },
      { ids: [a.id], action: 'release', to: 'not an address' },
      { ids: [a.id], action: 'release', to: 'someone@outside.example' },
    ]) {
      const res = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    const [row] = await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.id, a.id));
    expect(row!.state).toBe('quarantined');
    expect(await sentTo('someone@outside.example')).toHaveLength(0);
  });

  it('is for admins only', async () => {
    const a = await held();
    const res = await postJson(t.app, plainUser, '/api/v1/quarantine/messages/bulk', {
      ids: [a.id],
      action: 'delete',
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('a release racing a delete', () => {
  it('sends nothing for a message deleted after it was read: the release sees the row as it is now', async () => {
    const m = await held();
    // Read as a release would before its transaction, then deleted by another admin meanwhile.
    const [stale] = await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.id, m.id));
    const deleted = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', {
      ids: [m.id],
      action: 'delete',
    });
    expect(deleted.statusCode).toBe(200);
    await expect(t.app.services.publicActions.releaseOnce(stale!, 'email', 'admin')).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await sentTo(m.recipient)).toHaveLength(0);
    const [now] = await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.id, m.id));
    expect(now!.state).toBe('deleted');
    // And through the API: a clear 409, no audit entry of a release that did not happen.
    const res = await postJson(t.app, admin, `/api/v1/quarantine/messages/${m.id}/release`);
    expect(res.statusCode).toBe(409);
    expect(await auditOf('quarantine.admin_release', m.id)).toHaveLength(0);
  });
});

describe('release to a chosen address and malware', () => {
  it('releases to an address of the tenant’s own domains, audited with that address', async () => {
    const a = await held();
    const to = `Helpdesk@${domain}`;
    const res = await postJson(t.app, admin, `/api/v1/quarantine/messages/${a.id}/release`, { to });
    expect(res.statusCode).toBe(200);
    expect(await sentTo(`helpdesk@${domain}`)).toHaveLength(1);
    expect(await sentTo(a.recipient)).toHaveLength(0);
    const [entry] = await auditOf('quarantine.admin_release', a.id);
    expect(entry!.details).toMatchObject({ to: `helpdesk@${domain}`, chosen: true });
    // The Events screen says where it went too.
    const events = await t.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.messageId, a.id), eq(securityEvents.type, 'release')));
    expect(events.map((e) => e.description)).toEqual([`Released to helpdesk@${domain} by an admin`]);
  });

  it('refuses an address outside the tenant’s domains with 400', async () => {
    const a = await held();
    const res = await postJson(t.app, admin, `/api/v1/quarantine/messages/${a.id}/release`, {
      to: 'friend@gmail.example',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ field: 'body.to', message: 'not_own_domain' }]);
    expect(await sentTo('friend@gmail.example')).toHaveLength(0);
  });

  it('answers 409 for malware without an explicit confirmation, and releases it with one (its own audit action)', async () => {
    const m = await held({ verdict: 'malware' });
    const refused = await postJson(t.app, admin, `/api/v1/quarantine/messages/${m.id}/release`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'conflict',
      details: [{ field: 'body.confirm_malware', message: 'malware_confirmation_required' }],
    });
    const bulk = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', {
      ids: [m.id],
      action: 'release',
    });
    expect(bulk.json().results).toEqual([
      { id: m.id, outcome: 'skipped', reason: 'malware_confirmation_required' },
    ]);
    expect(await sentTo(m.recipient)).toHaveLength(0);

    const confirmed = await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', {
      ids: [m.id],
      action: 'release',
      confirm_malware: true,
    });
    expect(confirmed.json().results).toEqual([{ id: m.id, outcome: 'released', reason: null }]);
    expect(await sentTo(m.recipient)).toHaveLength(1);
    expect(await auditOf('quarantine.admin_release_malware', m.id)).toHaveLength(1);
    expect(await auditOf('quarantine.admin_release', m.id)).toHaveLength(0);
  });

  it('another tenant’s admin gets 404 for every action on your message', async () => {
    const a = await held();
    const base = `/api/v1/quarantine/messages/${a.id}`;
    expect((await postJson(t.app, otherAdmin, `${base}/release`)).statusCode).toBe(404);
    expect((await get(otherAdmin, `${base}/eml`)).statusCode).toBe(404);
    expect((await postJson(t.app, otherAdmin, `${base}/block_sender`, { scope: 'sender' })).statusCode).toBe(
      404,
    );
    expect((await postJson(t.app, otherAdmin, `${base}/feedback`, { feedback: 'spam' })).statusCode).toBe(
      404,
    );
    expect((await postJson(t.app, otherAdmin, base, undefined, 'DELETE')).statusCode).toBe(404);
    const [row] = await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.id, a.id));
    expect(row).toMatchObject({ state: 'quarantined', feedback: null });
  });
});

describe('download the original', () => {
  it('answers the raw bytes as an attachment, audited; a plain user gets 403', async () => {
    const a = await held({ subject: 'Invoice "42" / <urgent>' });
    const res = await get(admin, `/api/v1/quarantine/messages/${a.id}/eml`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('message/rfc822');
    expect(res.headers['content-disposition']).toBe('attachment; filename="Invoice 42 urgent.eml"');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.rawPayload.equals(Buffer.from(a.raw))).toBe(true);
    expect(await auditOf('quarantine.admin_download', a.id)).toHaveLength(1);
    expect((await get(plainUser, `/api/v1/quarantine/messages/${a.id}/eml`)).statusCode).toBe(403);
  });
});

describe('block the sender from a message', () => {
  it('adds the address or the domain to the block list, once, audited', async () => {
    const a = await held({ sender: 'Spammer@Bad-Sender.example' });
    const url = `/api/v1/quarantine/messages/${a.id}/block_sender`;
    const first = await postJson(t.app, admin, url, { scope: 'sender' });
    expect(first.json()).toEqual({ list: 'block', value: 'spammer@bad-sender.example', added: true });
    const second = await postJson(t.app, admin, url, { scope: 'sender' });
    expect(second.json()).toEqual({ list: 'block', value: 'spammer@bad-sender.example', added: false });
    const byDomain = await postJson(t.app, admin, url, { scope: 'domain' });
    expect(byDomain.json()).toEqual({ list: 'block', value: 'bad-sender.example', added: true });
    const rows = await t.db
      .select({ list: senderLists.list, value: senderLists.value })
      .from(senderLists)
      .where(eq(senderLists.tenantId, tenantId));
    expect(rows).toEqual(
      expect.arrayContaining([
        { list: 'block', value: 'spammer@bad-sender.example' },
        { list: 'block', value: 'bad-sender.example' },
      ]),
    );
    expect(await auditOf('sender_list.block', a.id)).toHaveLength(2);
  });

  it('refuses the tenant’s own domain, an empty sender and a bad scope with 400', async () => {
    const own = await held({ sender: `colleague@${domain}` });
    const empty = await held({ sender: '' });
    for (const [id, body] of [
      [own.id, { scope: 'domain' }],
      [own.id, { scope: 'sender' }],
      [empty.id, { scope: 'sender' }],
      [own.id, { scope: 'everything' }],
    ] as const) {
      const res = await postJson(t.app, admin, `/api/v1/quarantine/messages/${id}/block_sender`, body);
      expect(res.statusCode).toBe(400);
    }
    const rows = await t.db
      .select()
      .from(senderLists)
      .where(and(eq(senderLists.tenantId, tenantId), eq(senderLists.value, domain)));
    expect(rows).toHaveLength(0);
  });
});

describe('spam feedback', () => {
  it('records the latest feedback on the message, shown in the list, audited', async () => {
    const a = await held();
    const url = `/api/v1/quarantine/messages/${a.id}/feedback`;
    expect((await postJson(t.app, admin, url, { feedback: 'maybe' })).statusCode).toBe(400);
    const res = await postJson(t.app, admin, url, { feedback: 'not_spam' });
    expect(res.json()).toMatchObject({ feedback: 'not_spam', feedback_by: `admin@${domain}` });
    expect(Math.abs(Date.parse(res.json().feedback_at) - Date.now())).toBeLessThan(60_000);
    await postJson(t.app, admin, url, { feedback: 'spam' });
    const list = await get(admin, `/api/v1/quarantine/messages?q=${encodeURIComponent(a.subject)}`);
    expect(list.json().items[0]).toMatchObject({
      id: a.id,
      feedback: 'spam',
      feedback_by: `admin@${domain}`,
    });
    const detail = await get(admin, `/api/v1/quarantine/messages/${a.id}`);
    expect(detail.json().feedback).toBe('spam');
    expect(await auditOf('quarantine.feedback', a.id)).toHaveLength(2);
    expect((await postJson(t.app, plainUser, url, { feedback: 'spam' })).statusCode).toBe(403);
  });

  it('refuses feedback on a deleted message with 409, changing nothing', async () => {
    const a = await held();
    await postJson(t.app, admin, '/api/v1/quarantine/messages/bulk', { ids: [a.id], action: 'delete' });
    const res = await postJson(t.app, admin, `/api/v1/quarantine/messages/${a.id}/feedback`, {
      feedback: 'spam',
    });
    expect(res.statusCode).toBe(409);
    const [row] = await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.id, a.id));
    expect(row!.feedback).toBeNull();
    expect(await auditOf('quarantine.feedback', a.id)).toHaveLength(0);
    const missing = await postJson(
      t.app,
      admin,
      `/api/v1/quarantine/messages/${crypto.randomUUID()}/feedback`,
      {
        feedback: 'spam',
      },
    );
    expect(missing.statusCode).toBe(404);
  });
});

describe('retention and the purge job', () => {
  it('reads and sets the retention (1..3650 days, admins only); the expiry of held mail moves with it', async () => {
    const a = await held();
    expect((await get(admin, '/api/v1/quarantine/retention')).json()).toEqual({ days: 30 });
    expect((await get(plainUser, '/api/v1/quarantine/retention')).statusCode).toBe(403);
    for (const days of [0, 3651, 1.5, '7']) {
      const res = await postJson(t.app, admin, '/api/v1/quarantine/retention', { days }, 'PUT');
      expect(res.statusCode).toBe(400);
    }
    const res = await postJson(t.app, admin, '/api/v1/quarantine/retention', { days: 7 }, 'PUT');
    expect(res.json()).toEqual({ days: 7 });
    const [row] = await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.id, a.id));
    expect(row!.expiresAt.getTime() - row!.receivedAt.getTime()).toBe(7 * 86_400_000);
    const [audit] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'quarantine.retention'), eq(auditLog.targetId, tenantId)));
    expect(audit!.details).toEqual({ from: 30, to: 7 });
    const [other] = await t.db.select().from(tenants).where(eq(tenants.id, otherTenantId));
    expect(other!.retentionDays).toBe(30);
    await postJson(t.app, admin, '/api/v1/quarantine/retention', { days: 30 }, 'PUT');
  });

  it('the sweeper deletes held mail past retention (rows, raw bytes, attachments), one audit entry per tenant', async () => {
    const now = clock.now().getTime();
    const old = await held({ receivedAt: new Date(now - 31 * 86_400_000) });
    await t.db
      .update(quarantineMessages)
      .set({ expiresAt: new Date(now - 86_400_000) })
      .where(eq(quarantineMessages.id, old.id));
    await t.db.insert(quarantineAttachments).values({
      messageId: old.id,
      filename: 'a.pdf',
      contentType: 'application/pdf',
      size: 1,
      sha256: 'x',
      state: 'removed',
    });
    const fresh = await held();
    const foreignFresh = await held({ tenantId: otherTenantId });

    await t.app.services.sweeper.pass();
    const left = await t.db
      .select({ id: quarantineMessages.id })
      .from(quarantineMessages)
      .where(inArray(quarantineMessages.id, [old.id, fresh.id, foreignFresh.id]));
    expect(left.map((r) => r.id).sort()).toEqual([fresh.id, foreignFresh.id].sort());
    expect(
      await t.db.select().from(quarantineAttachments).where(eq(quarantineAttachments.messageId, old.id)),
    ).toHaveLength(0);
    const [summary] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'quarantine.purge'), eq(auditLog.tenantId, tenantId)));
    expect(summary!.details).toMatchObject({ deleted: 1 });

    // 31 days on, with the clock: everything held now is past the 30 days.
    offset = 31 * 86_400_000;
    try {
      await t.app.services.sweeper.pass();
    } finally {
      offset = 0;
    }
    const after = await t.db
      .select({ id: quarantineMessages.id })
      .from(quarantineMessages)
      .where(inArray(quarantineMessages.id, [fresh.id, foreignFresh.id]));
    expect(after).toHaveLength(0);
    const otherSummary = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'quarantine.purge'), eq(auditLog.tenantId, otherTenantId)));
    expect(otherSummary.length).toBeGreaterThanOrEqual(1);
  });
});

describe('a released message keeps its warning', () => {
  const original = Buffer.from(
    [
      'From: Deals <deals@bulk.example>',
      `To: someone@${'example.test'}`,
      'Subject: Cheap watches',
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Buy two, get one free at http://bulk.example/offer',
      '--b',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<html><body><p>Buy two, get one free</p></body></html>',
      '--b--',
      '',
    ].join('\r\n'),
  );

  it('delivers released spam with the banner the gateway gives a deliver_banner message, the tenant’s wording first', async () => {
    await t.db
      .update(tenants)
      .set({
        bannerSettings: {
          verdicts: {
            spam: { text: 'Careful: our filter thinks this is spam.', colour: 'blue', subject_tag: '[SPAM]' },
          },
        },
      })
      .where(eq(tenants.id, tenantId));
    const reasons = ['Spam score 9 (spam from 6): Moat 9'];
    const m = await held({ verdict: 'spam', reasons, raw: original, size: original.length });
    const res = await postJson(t.app, admin, `/api/v1/quarantine/messages/${m.id}/release`, {});
    expect(res.statusCode).toBe(200);
    const [mail] = await sentTo(m.recipient);
    const delivered = await parseMessage(Buffer.from(mail!.raw!));
    // The same warning the gateway writes for the verdict and reasons (banner.ts), on top of the text…
    const warning = warningText('spam', reasons, 'Careful: our filter thinks this is spam.');
    expect(warning).toMatch(/^Careful: our filter thinks this is spam\. Why: /);
    expect(delivered.text.startsWith(warning)).toBe(true);
    expect(delivered.text).toContain('Buy two, get one free');
    // …and inside the HTML body, and in its header.
    expect(delivered.html).toContain('Careful: our filter thinks this is spam.');
    expect(delivered.html).toContain('<p>Buy two, get one free</p>');
    expect(Buffer.from(mail!.raw!).toString('latin1')).toMatch(/^X-Moat-Warning: Careful: our filter/m);
    // The banner names no link or host of the message.
    expect(warning).not.toContain('bulk.example');
    // The verdict's Smart Banner: its subject tag too.
    expect(delivered.subject).toBe('[SPAM] Cheap watches');
    await t.db.update(tenants).set({ bannerSettings: {} }).where(eq(tenants.id, tenantId));
  });

  it('releases phishing as it was held, byte for byte: an administrator decided after review', async () => {
    const m = await held({ verdict: 'phishing', raw: original, size: original.length });
    expect((await postJson(t.app, admin, `/api/v1/quarantine/messages/${m.id}/release`, {})).statusCode).toBe(
      200,
    );
    const [mail] = await sentTo(m.recipient);
    expect(Buffer.from(mail!.raw!).equals(original)).toBe(true);
  });
});
