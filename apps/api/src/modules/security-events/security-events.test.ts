import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreRequests, securityEvents } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildMailLogEntry, buildSecurityEvent, buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Jar;
let plainUser: Jar;
let otherAdmin: Jar;
let tenantId: string;
let domain: string;
let otherTenantId: string;
const password = 'admin password 1';
const day = (d: number, h = 12) => new Date(Date.UTC(2026, 9, d, h));

beforeAll(async () => {
  t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' } });
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

  // Three events of October (the list's fixtures), one of another tenant.
  await buildSecurityEvent(t.db, tenantId, {
    subject: 'Banana',
    recipient: `Ana@${domain}`,
    sender: 'bob@shop.example',
    verdict: 'spam',
    severity: 'low',
    type: 'banner',
    engine: 'anti_spam',
    createdAt: day(1),
  });
  await buildSecurityEvent(t.db, tenantId, {
    subject: '=HYPERLINK("http://evil.example")',
    recipient: `user@${domain}`,
    sender: 'ceo@lookalike.example',
    verdict: 'phishing',
    severity: 'high',
    type: 'hold',
    engine: 'anti_phishing,url_reputation',
    createdAt: day(2),
  });
  await buildSecurityEvent(t.db, tenantId, {
    subject: 'apple',
    recipient: `carl@${domain}`,
    sender: 'x@malware.example',
    verdict: 'malware',
    severity: 'medium',
    type: 'strip',
    engine: 'anti_malware',
    createdAt: day(3),
  });
  await buildSecurityEvent(t.db, otherTenantId, { subject: 'Other tenant', createdAt: day(2) });
});
afterAll(() => t.close());

const get = (jar: Jar, url: string) =>
  t.app.inject({ method: 'GET', url, cookies: jar.cookies, remoteAddress: jar.ip });
const october = `from=${encodeURIComponent(day(1, 0).toISOString())}&to=${encodeURIComponent(day(4, 0).toISOString())}`;
const subjects = async (jar: Jar, query: string) => {
  const res = await get(jar, `/api/v1/security_events?${october}&${query}`);
  expect(res.statusCode, query).toBe(200);
  return (res.json() as { items: Array<{ subject: string }> }).items.map((i) => i.subject);
};

describe('GET /api/v1/security_events', () => {
  it('lists the tenant’s events newest first and sorts by the chosen column either way', async () => {
    expect(await subjects(admin, '')).toEqual(['apple', '=HYPERLINK("http://evil.example")', 'Banana']);
    // Severity by weight, not by name.
    expect(await subjects(admin, 'sort=severity&dir=desc')).toEqual([
      '=HYPERLINK("http://evil.example")',
      'apple',
      'Banana',
    ]);
    expect(await subjects(admin, 'sort=recipient&dir=asc')).toEqual([
      'Banana',
      'apple',
      '=HYPERLINK("http://evil.example")',
    ]);
    expect(await subjects(admin, 'sort=type&dir=asc')).toEqual([
      'Banana',
      '=HYPERLINK("http://evil.example")',
      'apple',
    ]);
    expect(await subjects(admin, 'sort=sender&dir=desc')).toEqual([
      'apple',
      '=HYPERLINK("http://evil.example")',
      'Banana',
    ]);
  });

  it('filters by type, verdict, severity, engine, a part of the recipient or sender, and words', async () => {
    expect(await subjects(admin, 'type=strip')).toEqual(['apple']);
    expect(await subjects(admin, 'verdict=phishing')).toEqual(['=HYPERLINK("http://evil.example")']);
    expect(await subjects(admin, 'severity=low')).toEqual(['Banana']);
    // One of several engines of an event matches; a part of an engine's name does not.
    expect(await subjects(admin, 'engine=url_reputation')).toEqual(['=HYPERLINK("http://evil.example")']);
    expect(await subjects(admin, 'engine=anti')).toEqual([]);
    // Recipient and sender: a part of the address, any case.
    expect(await subjects(admin, `recipient=${encodeURIComponent(`ana@${domain.toUpperCase()}`)}`)).toEqual([
      'Banana',
    ]);
    expect(await subjects(admin, 'sender=lookalike')).toEqual(['=HYPERLINK("http://evil.example")']);
    expect(await subjects(admin, 'q=banana')).toEqual(['Banana']);
    expect(await subjects(admin, 'verdict=malware&type=hold')).toEqual([]);
  });

  it('keeps to the time range, from included and to excluded', async () => {
    const from = encodeURIComponent(day(2, 12).toISOString());
    const to = encodeURIComponent(day(3, 12).toISOString());
    const res = await get(admin, `/api/v1/security_events?from=${from}&to=${to}`);
    expect(res.json()).toMatchObject({ total: 1, items: [{ subject: '=HYPERLINK("http://evil.example")' }] });
  });

  it('answers 400 for an unknown type, verdict, severity or sort, a bad engine or date, or a range backwards', async () => {
    const backwards = `from=${encodeURIComponent(day(3).toISOString())}&to=${encodeURIComponent(day(2).toISOString())}`;
    for (const query of [
      'type=explosion',
      'verdict=evil',
      'severity=extreme',
      'sort=password',
      'engine=drop%20table',
      'from=yesterday',
      backwards,
      'recipient=a%00b',
    ]) {
      const res = await get(admin, `/api/v1/security_events?${query}`);
      expect(res.statusCode, query).toBe(400);
    }
  });

  it('never shows another tenant’s events', async () => {
    expect(await subjects(otherAdmin, '')).toEqual(['Other tenant']);
  });

  it('shows a plain user only the events of their own mail, and nobody signed out', async () => {
    expect(await subjects(plainUser, '')).toEqual(['=HYPERLINK("http://evil.example")']);
    expect(await subjects(plainUser, `recipient=${encodeURIComponent(`ana@${domain}`)}`)).toEqual([]);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/security_events' });
    expect([401, 403]).toContain(anonymous.statusCode);
  });
});

describe('GET /api/v1/security_events/export', () => {
  it('downloads the filtered list as CSV with inert formulas', async () => {
    const res = await get(admin, `/api/v1/security_events/export?${october}&verdict=phishing`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="security-events-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('created_at,type,severity,verdict,engine,recipient,sender,subject,description,id');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(res.body).not.toContain('Other tenant');
    const theirs = await get(otherAdmin, `/api/v1/security_events/export?${october}`);
    expect(theirs.body).not.toContain('HYPERLINK');
    expect((await get(admin, '/api/v1/security_events/export?type=nope')).statusCode).toBe(400);
  });
});

let n = 0;
/** A message held by the intake path (its hold event written there), with a restore request. */
async function held(recipient = `r${++n}@${domain}`) {
  const raw = Buffer.from(
    `From: "Billing" <billing@supplier.example>\r\nTo: ${recipient}\r\nSubject: Invoice ${n}\r\n\r\nPay now`,
  );
  const { message } = await t.app.services.quarantine.ingest(
    {
      raw,
      recipient,
      saasType: 'office365_emails',
      verdict: 'phishing',
      reasons: ['Lookalike sender domain', 'Credential form'],
      stripAttachments: false,
      engine: 'anti_phishing',
    },
    { type: 'system' },
  );
  const [event] = await t.db
    .select()
    .from(securityEvents)
    .where(and(eq(securityEvents.messageId, message.id), eq(securityEvents.type, 'hold')));
  return { message, event: event!, recipient };
}

describe('GET /api/v1/security_events/:id', () => {
  it('shows the findings, the policy decision, the Mail Explorer row and the message’s story in time order', async () => {
    const { message, event, recipient } = await held();
    expect(event).toMatchObject({ recipient, sender: 'billing@supplier.example', subject: `Invoice ${n}` });
    const log = await buildMailLogEntry(t.db, tenantId, { recipient, quarantineMessageId: message.id });
    const [request] = await t.db
      .insert(restoreRequests)
      .values({
        tenantId,
        messageId: message.id,
        kind: 'email',
        requestedBy: recipient,
        mode: 'request',
        status: 'requested',
      })
      .returning();
    const approve = await postJson(t.app, admin, `/api/v1/restore_requests/${request!.id}/approve`);
    expect(approve.statusCode).toBe(200);

    const res = await get(admin, `/api/v1/security_events/${event.id}`);
    expect(res.statusCode).toBe(200);
    const detail = res.json();
    expect(detail.event).toMatchObject({ id: event.id, type: 'hold', quarantine_message_id: message.id });
    expect(detail.findings).toEqual([
      { engine: 'anti_phishing', verdict: 'phishing', reason: 'Lookalike sender domain' },
      { engine: 'anti_phishing', verdict: 'phishing', reason: 'Credential form' },
    ]);
    expect(detail.decision).toEqual({ verdict: 'phishing', action: 'quarantine', source: 'import' });
    expect(detail.mail_log_id).toBe(log.id);
    expect(detail.history.map((h: { kind: string; status: string }) => `${h.kind}:${h.status}`)).toEqual([
      'event:hold',
      'restore_request:requested',
      'restore_request:restored',
      'release:email',
      'event:release',
    ]);
    const times = detail.history.map((h: { at: string }) => h.at);
    expect([...times].sort()).toEqual(times);
  });

  it('records one release event however often an admin releases a message', async () => {
    const { message } = await held();
    const first = await postJson(t.app, admin, `/api/v1/quarantine/messages/${message.id}/release`);
    expect(first.statusCode).toBeLessThan(300);
    // A second release of the same message is refused as already done, and records nothing.
    const again = await postJson(t.app, admin, `/api/v1/quarantine/messages/${message.id}/release`);
    expect(again.statusCode).toBe(409);
    const releases = await t.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.messageId, message.id), eq(securityEvents.type, 'release')));
    expect(releases).toHaveLength(1);
    expect(releases[0]).toMatchObject({ engine: 'admin', details: { kind: 'email' } });
    const list = await get(
      admin,
      `/api/v1/security_events?type=release&recipient=${encodeURIComponent(message.recipient)}`,
    );
    expect(list.json().total).toBe(1);
  });

  it('answers 404 to another tenant’s admin, to a plain user for someone else’s mail, and 400 for a bad id', async () => {
    const { event } = await held();
    expect((await get(otherAdmin, `/api/v1/security_events/${event.id}`)).statusCode).toBe(404);
    expect((await get(plainUser, `/api/v1/security_events/${event.id}`)).statusCode).toBe(404);
    expect((await get(admin, '/api/v1/security_events/not-a-uuid')).statusCode).toBe(400);
    const own = await held(`user@${domain}`);
    const mine = await get(plainUser, `/api/v1/security_events/${own.event.id}`);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().event).toMatchObject({ recipient: `user@${domain}`, quarantine_message_id: null });
    expect(mine.json().mail_log_id).toBeNull();
  });
});
