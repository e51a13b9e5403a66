import { MY_QUARANTINE_API } from '@moat/contracts/my-quarantine';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, outbox, restoreRequests } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { buildQuarantinedMessage } from '../../test/factories.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const at = (path: string, id: string) => path.replace(':id', id);

async function kimWithMail() {
  const kim = await signedInAs(t.app, t.db, { user: { role: 'user' } });
  const held = (
    verdict: 'spam' | 'suspicious' | 'malware' | 'phishing',
    subject: string,
    recipient = kim.user.email,
  ) => buildQuarantinedMessage(t.db, kim.tenant.id, { recipient, verdict, subject, saasType: 'smtp_emails' });
  const spam = await held('spam', 'Cheap watches');
  const suspicious = await held('suspicious', 'Odd invoice');
  const malware = await held('malware', 'Payload');
  const others = await held('spam', 'Not for Kim', 'someone.else@example.test');
  return { kim, spam, suspicious, malware, others };
}

describe('GET /api/v1/my_quarantine', () => {
  it("lists only the user's own held mail, with each message's restore mode and state", async () => {
    const { kim } = await kimWithMail();
    const res = await kim.get(MY_QUARANTINE_API.messages);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(3);
    expect(body.items.map((m: { subject: string }) => m.subject).sort()).toEqual([
      'Cheap watches',
      'Odd invoice',
      'Payload',
    ]);
    const byVerdict = Object.fromEntries(
      body.items.map((m: { verdict: string; restore: unknown }) => [m.verdict, m.restore]),
    );
    expect(byVerdict).toEqual({
      spam: { mode: 'automatic', status: 'quarantined' },
      suspicious: { mode: 'request', status: 'quarantined' },
      malware: { mode: 'none', status: 'quarantined' },
    });
    expect(body.items[0]).not.toHaveProperty('recipient');
    expect((await kim.get(`${MY_QUARANTINE_API.messages}?q=watches`)).json().total).toBe(1);
  });

  it("previews the user's own message and answers 404 for anyone else's", async () => {
    const { kim, spam, others } = await kimWithMail();
    const own = await kim.get(at(MY_QUARANTINE_API.message, spam.id));
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({
      subject: 'Cheap watches',
      body_text: expect.stringContaining('Body'),
    });
    expect((await kim.get(at(MY_QUARANTINE_API.message, others.id))).statusCode).toBe(404);
    const stranger = await signedInAs(t.app, t.db, { user: { role: 'user' } });
    expect((await stranger.get(at(MY_QUARANTINE_API.message, spam.id))).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: MY_QUARANTINE_API.messages })).statusCode).toBe(403);
  });
});

describe('POST /api/v1/my_quarantine/{id}/restore', () => {
  it('restores at once where the policy says automatic, once, audited as the user', async () => {
    const { kim, spam } = await kimWithMail();
    const res = await kim.send('POST', at(MY_QUARANTINE_API.restore, spam.id), {});
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('restored');
    await kim.send('POST', at(MY_QUARANTINE_API.restore, spam.id), {});
    const sent = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, kim.user.email), eq(outbox.kind, 'release')));
    expect(sent).toHaveLength(1);
    const list = (await kim.get(MY_QUARANTINE_API.messages)).json();
    expect(list.items.find((m: { id: string }) => m.id === spam.id).restore.status).toBe('restored');
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, spam.id), eq(auditLog.action, 'quarantine.release')));
    expect(entry).toMatchObject({ actorType: 'user', actorUserId: kim.user.id });
  });

  it("files a request with the user's words where the policy asks for one, and refuses where it forbids", async () => {
    const { kim, suspicious, malware, others } = await kimWithMail();
    expect((await kim.send('POST', at(MY_QUARANTINE_API.restore, suspicious.id), {})).statusCode).toBe(400);
    const asked = await kim.send('POST', at(MY_QUARANTINE_API.restore, suspicious.id), {
      commentary: 'I expect this invoice from our supplier',
    });
    expect(asked.json().status).toBe('requested');
    const [request] = await t.db
      .select()
      .from(restoreRequests)
      .where(eq(restoreRequests.messageId, suspicious.id));
    expect(request).toMatchObject({ requestedBy: kim.user.email, status: 'requested' });
    const refused = await kim.send('POST', at(MY_QUARANTINE_API.restore, malware.id), {});
    expect(refused.statusCode).toBe(405);
    expect((await kim.send('POST', at(MY_QUARANTINE_API.restore, others.id), {})).statusCode).toBe(404);
    const outboxRows = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.toAddress, 'someone.else@example.test'));
    expect(outboxRows).toHaveLength(0);
  });
});
