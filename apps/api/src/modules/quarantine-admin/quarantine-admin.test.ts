import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, outbox, restoreRequests } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, lastMail, login, postJson } from '../../test/sign-in.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Jar;
let plainUser: Jar;
let otherAdmin: Jar;
let domain: string;
const password = 'admin password 1';

beforeAll(async () => {
  t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' } });
  const tenant = await buildTenant(t.db);
  domain = tenant.domain;
  const other = await buildTenant(t.db);
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
async function requested(
  verdict: 'suspicious' | 'malware' | 'phishing' = 'suspicious',
  body = 'Hello, see https://pay.example/now',
) {
  const recipient = `r${++n}@${domain}`;
  const raw = Buffer.from(
    `From: "Billing" <billing@supplier.example>\r\nTo: ${recipient}\r\nSubject: Invoice ${n}\r\nContent-Type: text/html\r\n\r\n<p>${body}</p><a href="https://evil.example/x">Pay here</a><script>alert(1)</script>`,
  );
  const { message } = await t.app.services.quarantine.ingest(
    {
      raw,
      recipient,
      saasType: 'office365_emails',
      verdict,
      reasons: ['Lookalike sender domain'],
      stripAttachments: false,
      engine: 'test',
    },
    { type: 'system' },
  );
  const [request] = await t.db
    .insert(restoreRequests)
    .values({
      tenantId: message.tenantId,
      messageId: message.id,
      kind: 'email',
      requestedBy: recipient,
      commentary: 'I need it',
      mode: 'request',
      status: 'requested',
    })
    .returning();
  return { message, request: request!, recipient, raw };
}

const get = (jar: Jar, url: string) =>
  t.app.inject({ method: 'GET', url, cookies: jar.cookies, remoteAddress: jar.ip });

describe('GET /api/v1/restore_requests', () => {
  it('lists the tenant’s requests with their message, searchable, only for admins', async () => {
    const { request } = await requested();
    const res = await get(admin, `/api/v1/restore_requests?q=${encodeURIComponent(`Invoice ${n}`)}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(1);
    expect(body.items[0]).toMatchObject({
      id: request.id,
      status: 'requested',
      commentary: 'I need it',
      message: { subject: `Invoice ${n}`, verdict: 'suspicious' },
    });
    const refused = await get(plainUser, '/api/v1/restore_requests');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('Insufficient privileges');
    expect((await get(new Jar(), '/api/v1/restore_requests')).json().message).toBe('not authenticated');
    expect((await get(otherAdmin, '/api/v1/restore_requests')).json().total).toBe(0);
  });
});

describe('approve and decline', () => {
  it('approve releases the original once (phishing: byte for byte) and marks the request restored; the audit log has it', async () => {
    const { request, recipient, raw } = await requested('phishing');
    const first = await postJson(t.app, admin, `/api/v1/restore_requests/${request.id}/approve`);
    expect(first.json()).toEqual({ status: 'restored' });
    await postJson(t.app, admin, `/api/v1/restore_requests/${request.id}/approve`);
    const sent = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, recipient), eq(outbox.kind, 'release')));
    expect(sent).toHaveLength(1);
    expect(Buffer.from(sent[0]!.raw!).equals(raw)).toBe(true);
    const [row] = await t.db.select().from(restoreRequests).where(eq(restoreRequests.id, request.id));
    expect(row!.status).toBe('restored');
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'restore_request.approve'), eq(auditLog.targetId, request.id)));
    expect(audit.length).toBeGreaterThanOrEqual(1);
    const declineAfter = await postJson(t.app, admin, `/api/v1/restore_requests/${request.id}/decline`, {
      reason: 'late',
    });
    expect(declineAfter.statusCode).toBe(409);
  });

  it('decline needs a reason and tells the recipient by email', async () => {
    const { request, recipient, message } = await requested();
    const empty = await postJson(t.app, admin, `/api/v1/restore_requests/${request.id}/decline`, {
      reason: '  ',
    });
    expect(empty.statusCode).toBe(400);
    const res = await postJson(t.app, admin, `/api/v1/restore_requests/${request.id}/decline`, {
      reason: 'This sender is a known scam',
    });
    expect(res.json()).toEqual({ status: 'declined' });
    const mail = await lastMail(t.db, recipient, 'restore_declined');
    expect(mail.text).toContain('Reason: This sender is a known scam');
    const status = await get(new Jar(), `/api/v1/office365_emails/restore/${message.publicId}/status`);
    expect(status.json()).toEqual({ status: 'declined', message: 'The admin declined your request.' });
  });

  it('another tenant’s admin cannot act on the request', async () => {
    const { request } = await requested();
    const res = await postJson(t.app, otherAdmin, `/api/v1/restore_requests/${request.id}/approve`);
    expect(res.statusCode).toBe(404);
  });

  it('bulk approve reports each request', async () => {
    const a = await requested();
    const b = await requested();
    const res = await postJson(t.app, admin, '/api/v1/restore_requests/bulk', {
      ids: [a.request.id, b.request.id, '00000000-0000-4000-8000-000000000000'],
      action: 'approve',
    });
    expect(res.json().results).toEqual([
      { id: a.request.id, status: 'restored', error: null },
      { id: b.request.id, status: 'restored', error: null },
      { id: '00000000-0000-4000-8000-000000000000', status: null, error: 'No such restore request' },
    ]);
    const decline = await postJson(t.app, admin, '/api/v1/restore_requests/bulk', {
      ids: [a.request.id],
      action: 'decline',
    });
    expect(decline.statusCode).toBe(400);
  });
});

describe('quarantined items', () => {
  it('previews headers and the body as text, links listed, nothing remote', async () => {
    const { message } = await requested();
    const list = await get(admin, '/api/v1/quarantine/messages?verdict=suspicious');
    expect(list.json().items.some((m: { id: string }) => m.id === message.id)).toBe(true);
    const res = await get(admin, `/api/v1/quarantine/messages/${message.id}`);
    expect(res.statusCode).toBe(200);
    const detail = res.json();
    expect(detail.headers).toContainEqual({ name: 'Subject', value: message.subject });
    expect(detail.body_text).toContain('Hello, see https://pay.example/now');
    expect(detail.links).toContainEqual({ text: 'Pay here', href: 'https://evil.example/x' });
    expect(detail.reasons).toEqual(['Lookalike sender domain']);
    expect((await get(otherAdmin, `/api/v1/quarantine/messages/${message.id}`)).statusCode).toBe(404);
  });

  it('does not release malware without an explicit confirmation (issue 11)', async () => {
    const { message } = await requested('malware');
    const res = await postJson(t.app, admin, `/api/v1/quarantine/messages/${message.id}/release`);
    expect(res.statusCode).toBe(409);
  });
});
