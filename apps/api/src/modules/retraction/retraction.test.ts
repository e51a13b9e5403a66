import { createHash, randomUUID } from 'node:crypto';
import { RETRACTION_API, retractionPath } from '@moat/contracts/retraction';
import { and, eq } from 'drizzle-orm';
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLog,
  mailboxConnections,
  outbox,
  phishingReports,
  quarantineMessages,
  retractionCopies,
} from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { type RunningDovecot, startDovecot } from '../../test/daemons/dovecot.ts';
import { skipReason } from '../../test/daemons/spamd.ts';
import { buildMailLogEntry, buildQuarantinedMessage, buildTenant, buildUser } from '../../test/factories.ts';
import { freePort } from '../../test/ports.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

const skip = skipReason('dovecot', 'dovecot-imapd');
const DOMAIN = 'retract.test';
const MASTER = { user: 'moat-master', password: 'master secret 1' };
const people = ['ann', 'bob', 'carl', 'dora'].map((n) => `${n}@${DOMAIN}`);
const [ann, bob, carl, dora] = people as [string, string, string, string];

let dovecot: RunningDovecot;
let t: Awaited<ReturnType<typeof buildTestApp>>;
let tenant: Awaited<ReturnType<typeof buildTenant>>;
let admin: Jar;
let plainUser: Jar;
const password = 'admin password 1';

const asOwner = <T>(mailbox: string, fn: (c: ImapFlow) => Promise<T>) => dovecot.asOwner(mailbox, fn);

/** How many messages with this Message-ID each folder of the mailbox holds (folders holding none left out). */
async function whereIs(mailbox: string, messageId: string): Promise<Record<string, number>> {
  return asOwner(mailbox, async (c) => {
    const out: Record<string, number> = {};
    for (const f of await c.list()) {
      const lock = await c.getMailboxLock(f.path);
      try {
        const uids = (await c.search({ header: { 'message-id': messageId } }, { uid: true })) || [];
        if (uids.length > 0) out[f.path] = uids.length;
      } finally {
        lock.release();
      }
    }
    return out;
  });
}

let seq = 0;
/**
 * A message the gateway delivered: its Mail Explorer row and outbox copy per recipient (as the
 * gateway writes them), and the copy in each mailbox (APPENDed to INBOX, or the folders given).
 */
async function deliver(
  recipients: string[],
  options: {
    subject?: string;
    body?: string;
    attachment?: Buffer;
    folders?: Record<string, string[]>;
    sender?: string;
  } = {},
) {
  seq += 1;
  const messageId = `<retract-${seq}-${randomUUID()}@outside.test>`;
  const subject = options.subject ?? `Message ${seq}`;
  const sender = options.sender ?? 'mallory@outside.test';
  const boundary = 'b0undary';
  const raw = Buffer.from(
    options.attachment
      ? [
          `From: Mallory <${sender}>`,
          `To: ${recipients[0]}`,
          `Subject: ${subject}`,
          `Message-ID: ${messageId}`,
          'MIME-Version: 1.0',
          `Content-Type: multipart/mixed; boundary="${boundary}"`,
          '',
          `--${boundary}`,
          'Content-Type: text/plain',
          '',
          options.body ?? 'See attached.',
          `--${boundary}`,
          'Content-Type: application/octet-stream; name="invoice.bin"',
          'Content-Disposition: attachment; filename="invoice.bin"',
          'Content-Transfer-Encoding: base64',
          '',
          options.attachment.toString('base64'),
          `--${boundary}--`,
          '',
        ].join('\r\n')
      : [
          `From: Mallory <${sender}>`,
          `To: ${recipients[0]}`,
          `Subject: ${subject}`,
          `Message-ID: ${messageId}`,
          '',
          options.body ?? 'Hello there.',
          '',
        ].join('\r\n'),
  );
  const inboundId = randomUUID();
  const rows = [];
  for (const recipient of recipients) {
    rows.push(
      await buildMailLogEntry(t.db, tenant.id, {
        inboundId,
        recipient,
        sender,
        senderName: 'Mallory',
        subject,
        messageIdHeader: messageId,
        action: 'delivered',
      }),
    );
    await t.db.insert(outbox).values({
      tenantId: tenant.id,
      kind: 'delivery',
      fromName: 'Mallory',
      toAddress: recipient,
      subject,
      text: '',
      html: '',
      raw,
      status: 'sent',
      idempotencyKey: `${inboundId}:${recipient}`,
    });
    await asOwner(recipient, async (c) => {
      for (const folder of options.folders?.[recipient] ?? ['INBOX']) {
        if (folder !== 'INBOX') await c.mailboxCreate(folder).catch(() => {});
        await c.append(folder, raw);
      }
    });
  }
  return { messageId, inboundId, rows, raw, subject };
}

const connection = (overrides: Record<string, unknown> = {}) => ({
  enabled: true,
  host: '127.0.0.1',
  port: dovecot.port,
  tls_mode: 'starttls',
  verify_tls: false,
  master_user: MASTER.user,
  separator: '*',
  password: MASTER.password,
  action: 'move',
  folder: 'Moat Quarantine',
  ...overrides,
});
const put = (body: unknown, jar = admin) => postJson(t.app, jar, RETRACTION_API.connection, body, 'PUT');
const testConnection = (mailbox = ann) => postJson(t.app, admin, RETRACTION_API.connectionTest, { mailbox });
const get = async (url: string, jar = admin) => {
  const res = await t.app.inject({ method: 'GET', url, cookies: jar.cookies });
  return { status: res.statusCode, body: res.json() };
};
const auditOf = (action: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action as never), eq(auditLog.tenantId, tenant.id)));

describe.skipIf(skip !== null)('retraction from mailboxes over IMAP (a real Dovecot)', () => {
  beforeAll(async () => {
    dovecot = await startDovecot({
      users: people.map((user) => ({ user, password: 'own password' })),
      master: MASTER,
    });
    t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' } });
    tenant = await buildTenant(t.db, { domain: DOMAIN });
    const hash = await hashPassword(password);
    await buildUser(t.db, tenant.id, { email: `admin@${DOMAIN}`, role: 'admin', passwordHash: hash });
    await buildUser(t.db, tenant.id, { email: `user@${DOMAIN}`, role: 'user', passwordHash: hash });
    admin = new Jar();
    plainUser = new Jar();
    await login(t.app, admin, `admin@${DOMAIN}`, password);
    await login(t.app, plainUser, `user@${DOMAIN}`, password);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await dovecot?.stop();
  });

  describe('the mailbox connection (Settings → Mail flow)', () => {
    it('says nothing is configured yet, and refuses other users than admins', async () => {
      expect((await get(RETRACTION_API.connection)).body).toMatchObject({
        configured: false,
        enabled: false,
      });
      expect((await get(RETRACTION_API.connection, plainUser)).status).toBe(403);
      expect((await put(connection(), plainUser)).statusCode).toBe(403);
    });

    it('refuses bad input with a 400 naming each field, and changes nothing', async () => {
      const res = await put(
        connection({ host: 'mail.example.com', tls_mode: 'none', port: 0, master_user: '', password: '' }),
      );
      expect(res.statusCode).toBe(400);
      const fields = (res.json().details as Array<{ field: string }>).map((d) => d.field);
      expect(fields).toEqual(
        expect.arrayContaining(['body.tls_mode', 'body.port', 'body.master_user', 'body.password']),
      );
      expect((await put({ ...connection(), tls_mode: 'ssl3' })).statusCode).toBe(400);
      expect((await put({ ...connection(), extra: 1 })).statusCode).toBe(400);
      expect((await put(connection({ host: 'http://mail.example.com/' }))).statusCode).toBe(400);
      expect((await put(connection({ folder: 'INBOX' }))).statusCode).toBe(400);
      expect((await get(RETRACTION_API.connection)).body.configured).toBe(false);
    });

    it('a test before anything is saved is a 409, not a 500', async () => {
      expect((await testConnection()).statusCode).toBe(409);
    });

    it('saves the connection with the password sealed, never sent back, and audits it', async () => {
      const res = await put(connection());
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        configured: true,
        enabled: true,
        password_set: true,
        tls_mode: 'starttls',
      });
      expect(JSON.stringify(res.json())).not.toContain(MASTER.password);
      const [row] = await t.db
        .select()
        .from(mailboxConnections)
        .where(eq(mailboxConnections.tenantId, tenant.id));
      expect(row!.secret).toMatch(/^v1\./);
      expect(row!.secret).not.toContain(MASTER.password);
      const [entry] = await auditOf('retraction.connection_update');
      expect(entry!.details).toMatchObject({
        host: '127.0.0.1',
        master_user: MASTER.user,
        password_changed: true,
      });
      expect(JSON.stringify(entry!.details)).not.toContain(MASTER.password);
      // Saved again without a password: the stored one is kept.
      const again = await put({ ...connection(), password: undefined });
      expect(again.json().password_set).toBe(true);
    });

    it('a test logs in as the mailbox through the master user and lists its folders', async () => {
      const res = await testConnection();
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ ok: true, stage: null, mailbox: ann });
      expect(res.json().folders).toContain('INBOX');
      expect((await get(RETRACTION_API.connection)).body.last_test).toMatchObject({ ok: true });
      expect(await auditOf('retraction.connection_test')).toHaveLength(1);
    });

    it('a wrong master password fails at the login, saying what to check', async () => {
      await put(connection({ password: 'not the password' }));
      const res = (await testConnection()).json();
      expect(res).toMatchObject({ ok: false, stage: 'login' });
      expect(res.message).toContain(`refused the master login as ${ann}*${MASTER.user}`);
      expect((await get(RETRACTION_API.connection)).body.last_test).toMatchObject({ ok: false });
    });

    it('a port nobody listens on fails at connecting', async () => {
      const port = await freePort();
      await put(connection({ port }));
      const res = (await testConnection()).json();
      expect(res).toMatchObject({ ok: false, stage: 'connect' });
      expect(res.message).toBe(`Nothing answers on 127.0.0.1:${port}: check the host and the port.`);
    });

    it('implicit TLS against the plain port fails at TLS, suggesting STARTTLS', async () => {
      await put(connection({ tls_mode: 'tls' }));
      const res = (await testConnection()).json();
      expect(res).toMatchObject({ ok: false, stage: 'tls' });
      expect(res.message).toContain('did not answer with TLS');
    });

    it('an untrusted certificate fails at TLS when the certificate is checked; implicit TLS works otherwise', async () => {
      await put(connection({ tls_mode: 'tls', port: dovecot.tlsPort, verify_tls: true }));
      const refused = (await testConnection()).json();
      expect(refused).toMatchObject({ ok: false, stage: 'tls' });
      expect(refused.message).toContain('certificate is not trusted');
      await put(connection({ tls_mode: 'tls', port: dovecot.tlsPort, verify_tls: false }));
      expect((await testConnection()).json()).toMatchObject({ ok: true });
    });
  });

  describe('retracting a delivered message', () => {
    let delivered: Awaited<ReturnType<typeof deliver>>;
    let retractionId: string;

    beforeAll(async () => {
      await put(connection());
    });

    it('finds every copy (INBOX and another folder), moves them to the quarantine folder, and holds them as retracted', async () => {
      delivered = await deliver([ann, bob], { folders: { [bob]: ['INBOX', 'Projects'] } });
      const res = await postJson(t.app, admin, RETRACTION_API.retractions, {
        mail_log_id: delivered.rows[0]!.id,
        verdict: 'phishing',
      });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ copies: 2, retraction: { trigger: 'admin', verdict: 'phishing' } });
      retractionId = res.json().retraction.id;
      await t.app.services.retraction.drain();

      const detail = (await get(retractionPath(retractionId))).body;
      expect(detail).toMatchObject({ status: 'done', total: 2, retracted: 2, not_found: 0, failed: 0 });
      const byRecipient = Object.fromEntries(
        (detail.copies as Array<{ recipient: string; quarantine_message_id: string }>).map((c) => [
          c.recipient,
          c,
        ]),
      );
      expect(byRecipient[ann]).toMatchObject({
        status: 'retracted',
        action: 'move',
        found: [{ folder: 'INBOX', count: 1 }],
      });
      expect(byRecipient[bob]).toMatchObject({
        status: 'retracted',
        found: [
          { folder: 'INBOX', count: 1 },
          { folder: 'Projects', count: 1 },
        ],
      });
      expect(await whereIs(ann, delivered.messageId)).toEqual({ 'Moat Quarantine': 1 });
      expect(await whereIs(bob, delivered.messageId)).toEqual({ 'Moat Quarantine': 2 });

      // Moat's quarantine holds each copy as retracted, with the delivered bytes.
      const list = await get(`/api/v1/quarantine/messages?q=${encodeURIComponent(delivered.subject)}`);
      expect(list.status).toBe(200);
      const items = list.body.items as Array<{
        recipient: string;
        retracted_at: string | null;
        verdict: string;
        state: string;
      }>;
      expect(items.map((i) => i.recipient).sort()).toEqual([ann, bob]);
      for (const item of items) {
        expect(item).toMatchObject({ verdict: 'phishing', state: 'quarantined' });
        expect(item.retracted_at).toEqual(expect.any(String));
      }
      const [held] = await t.db
        .select()
        .from(quarantineMessages)
        .where(eq(quarantineMessages.id, byRecipient[ann]!.quarantine_message_id));
      expect(Buffer.from(held!.raw).equals(delivered.raw)).toBe(true);

      // Audited: who started it, and what was found where.
      const [start] = await auditOf('retraction.start');
      expect(start).toMatchObject({ targetId: retractionId, actorEmail: `admin@${DOMAIN}` });
      const finish = (await auditOf('retraction.finish')).find((e) => e.targetId === retractionId);
      expect(finish!.details).toMatchObject({ retracted: 2 });
      expect(JSON.stringify(finish!.details)).toContain('Projects');
    });

    it('never retracts a copy twice', async () => {
      const res = await postJson(t.app, admin, RETRACTION_API.retractions, {
        mail_log_id: delivered.rows[1]!.id,
      });
      expect(res.statusCode).toBe(409);
    });

    it('the quarantine’s release puts a retracted copy back (redelivered through the outbox), and it stays restored', async () => {
      const detail = (await get(retractionPath(retractionId))).body;
      const annCopy = (detail.copies as Array<{ recipient: string; quarantine_message_id: string }>).find(
        (c) => c.recipient === ann,
      )!;
      const res = await postJson(
        t.app,
        admin,
        `/api/v1/quarantine/messages/${annCopy.quarantine_message_id}/release`,
        {},
      );
      expect(res.statusCode).toBe(200);
      const sent = await t.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.toAddress, ann), eq(outbox.kind, 'release')));
      expect(sent).toHaveLength(1);
      expect(Buffer.from(sent[0]!.raw!).toString('latin1')).toContain(delivered.messageId);
      // A trigger matching it later (its sender blocked) does not pull the restored copy back.
      const block = await postJson(t.app, admin, '/api/v1/exceptions', {
        list: 'block',
        kind: 'sender',
        value: 'mallory@outside.test',
      });
      expect(block.statusCode).toBe(200);
      await t.app.services.retraction.drain();
      const copies = await t.db
        .select()
        .from(retractionCopies)
        .where(eq(retractionCopies.inboundId, delivered.inboundId));
      expect(copies.map((c) => c.retractionId)).toEqual([retractionId, retractionId]);
      // Remove the block again so later deliveries are not matched by it.
      await postJson(t.app, admin, `/api/v1/exceptions/${block.json().id}`, undefined, 'DELETE');
    });

    it('a message not in the mailbox is recorded as not found', async () => {
      const gone = await deliver([carl]);
      await asOwner(carl, async (c) => {
        const lock = await c.getMailboxLock('INBOX');
        try {
          await c.messageDelete('1:*');
        } finally {
          lock.release();
        }
      });
      const res = await postJson(t.app, admin, RETRACTION_API.retractions, { mail_log_id: gone.rows[0]!.id });
      await t.app.services.retraction.drain();
      expect((await get(retractionPath(res.json().retraction.id))).body).toMatchObject({
        not_found: 1,
        retracted: 0,
      });
    });

    it('with the delete choice the copies are deleted from the mailbox (Moat keeps one to restore)', async () => {
      await put(connection({ action: 'delete' }));
      const gone = await deliver([dora], { folders: { [dora]: ['INBOX', 'Archive'] } });
      const res = await postJson(t.app, admin, RETRACTION_API.retractions, { mail_log_id: gone.rows[0]!.id });
      await t.app.services.retraction.drain();
      const detail = (await get(retractionPath(res.json().retraction.id))).body;
      expect(detail.copies[0]).toMatchObject({ status: 'retracted', action: 'delete' });
      expect(await whereIs(dora, gone.messageId)).toEqual({});
      expect(detail.copies[0].quarantine_message_id).toEqual(expect.any(String));
      await put(connection());
    });

    it('with the connection switched off, copies are skipped (untouched) and can be retracted later', async () => {
      await put(connection({ enabled: false }));
      const later = await deliver([ann]);
      const res = await postJson(t.app, admin, RETRACTION_API.retractions, {
        mail_log_id: later.rows[0]!.id,
      });
      await t.app.services.retraction.drain();
      const detail = (await get(retractionPath(res.json().retraction.id))).body;
      expect(detail).toMatchObject({ skipped: 1, retracted: 0 });
      expect(detail.copies[0].error).toContain('switched off');
      expect(await whereIs(ann, later.messageId)).toEqual({ INBOX: 1 });
      await put(connection());
      const retry = await postJson(t.app, admin, RETRACTION_API.retractions, {
        mail_log_id: later.rows[0]!.id,
      });
      expect(retry.statusCode).toBe(202);
      await t.app.services.retraction.drain();
      expect(await whereIs(ann, later.messageId)).toEqual({ 'Moat Quarantine': 1 });
    });

    it('refuses bad input with a 4xx', async () => {
      expect(
        (await postJson(t.app, admin, RETRACTION_API.retractions, { mail_log_id: 'nope' })).statusCode,
      ).toBe(400);
      expect(
        (await postJson(t.app, admin, RETRACTION_API.retractions, { mail_log_id: randomUUID() })).statusCode,
      ).toBe(404);
      expect(
        (
          await postJson(t.app, admin, RETRACTION_API.retractions, {
            mail_log_id: randomUUID(),
            verdict: 'bad',
          })
        ).statusCode,
      ).toBe(400);
      expect((await get(retractionPath(randomUUID()))).status).toBe(404);
      expect((await get(retractionPath('x'))).status).toBe(400);
      const held = await buildMailLogEntry(t.db, tenant.id, { action: 'quarantined' });
      expect(
        (await postJson(t.app, admin, RETRACTION_API.retractions, { mail_log_id: held.id })).statusCode,
      ).toBe(409);
      expect(
        (await postJson(t.app, plainUser, RETRACTION_API.retractions, { mail_log_id: held.id })).statusCode,
      ).toBe(403);
    });
  });

  describe('triggers', () => {
    it('a file hash added to the block list retracts the delivered mail carrying it, as malware', async () => {
      const file = Buffer.from(`not really malware ${randomUUID()}`);
      const hash = createHash('sha256').update(file).digest('hex');
      const bad = await deliver([carl], { attachment: file, sender: 'eve@elsewhere.test' });
      const clean = await deliver([carl], { sender: 'eve@elsewhere.test' });
      const res = await postJson(t.app, admin, '/api/v1/exceptions', {
        list: 'block',
        kind: 'sha256',
        value: hash,
      });
      expect(res.statusCode).toBe(200);
      await t.app.services.retraction.drain();
      expect(await whereIs(carl, bad.messageId)).toEqual({ 'Moat Quarantine': 1 });
      expect(await whereIs(carl, clean.messageId)).toEqual({ INBOX: 1 });
      const [copy] = await t.db
        .select()
        .from(retractionCopies)
        .where(eq(retractionCopies.inboundId, bad.inboundId));
      const [held] = await t.db
        .select()
        .from(quarantineMessages)
        .where(eq(quarantineMessages.id, copy!.quarantineMessageId!));
      expect(held).toMatchObject({ verdict: 'malware' });
    });

    it('a URL added to the block list retracts the delivered mail linking to it', async () => {
      const bad = await deliver([bob, dora], {
        body: 'Pay here: https://pay.evil.test/now?x=1 thanks',
        sender: 'eve@elsewhere.test',
      });
      const res = await postJson(t.app, admin, '/api/v1/exceptions', {
        list: 'block',
        kind: 'url',
        value: 'https://PAY.evil.test/now?x=1',
      });
      expect(res.statusCode).toBe(200);
      await t.app.services.retraction.drain();
      expect(await whereIs(bob, bad.messageId)).toEqual({ 'Moat Quarantine': 1 });
      expect(await whereIs(dora, bad.messageId)).toEqual({ 'Moat Quarantine': 1 });
    });

    it('a host blocked at click time retracts the mail linking to it; a blocked sender leaves its earlier mail', async () => {
      const linking = await deliver([ann], {
        body: 'Open https://files.lure.test/doc',
        sender: 'x@one.test',
      });
      const fromSender = await deliver([carl], { body: 'Minutes attached.', sender: 'y@two.test' });
      for (const body of [
        { list: 'block', kind: 'domain', scope: 'click_time', value: 'files.lure.test' },
        { list: 'block', kind: 'sender', value: 'y@two.test' },
      ]) {
        const res = await postJson(t.app, admin, '/api/v1/exceptions', body);
        expect(res.statusCode, res.body).toBe(200);
      }
      await t.app.services.retraction.drain();
      expect(await whereIs(ann, linking.messageId)).toEqual({ 'Moat Quarantine': 1 });
      expect(await whereIs(carl, fromSender.messageId)).toEqual({ INBOX: 1 });
    });

    it('a report the admin confirms retracts every delivered copy of the reported message', async () => {
      const bad = await deliver([ann, carl], { sender: 'trent@elsewhere.test' });
      const held = await buildQuarantinedMessage(t.db, tenant.id, {
        recipient: ann,
        messageIdHeader: bad.messageId,
        state: 'attachments_removed',
      });
      const [report] = await t.db
        .insert(phishingReports)
        .values({ tenantId: tenant.id, messageId: held.id, reporter: ann, kind: 'reported_phishing' })
        .returning();
      const res = await postJson(t.app, admin, `/api/v1/phishing_reports/${report!.id}/confirm`, {});
      expect(res.statusCode).toBe(200);
      await t.app.services.retraction.drain();
      expect(await whereIs(ann, bad.messageId)).toEqual({ 'Moat Quarantine': 1 });
      expect(await whereIs(carl, bad.messageId)).toEqual({ 'Moat Quarantine': 1 });
    });

    it('a retracted message’s links are blocked at the click from then on, for every recipient', async () => {
      const bad = await deliver([dora, carl], { body: 'Pay here: https://pay.elsewhere.test/now' });
      const linkOf = async (recipient: string) => {
        const rewrite = await t.app.services.clickTime.rewriterFor({
          tenantId: tenant.id,
          inboundId: bad.inboundId,
          recipient,
          verdict: 'suspicious',
        });
        const link = rewrite?.('https://pay.elsewhere.test/now', 0);
        if (!link) throw new Error('the link was not rewritten');
        const url = new URL(link);
        return { token: url.pathname.slice('/l/'.length), url: url.searchParams.get('u')! };
      };
      const res = await postJson(t.app, admin, RETRACTION_API.retractions, {
        mail_log_id: bad.rows[0]!.id,
        verdict: 'malware',
      });
      expect(res.statusCode).toBe(202);
      await t.app.services.retraction.drain();
      for (const recipient of [dora, carl]) {
        const { token, url } = await linkOf(recipient);
        const check = await t.app.services.clickTime.check(token, url);
        expect(check).toMatchObject({ verdict: 'malicious' });
      }
    });
  });

  describe('bulk retraction', () => {
    it('previews what a search would pull back, then retracts exactly that', async () => {
      const subject = `Invoice ${randomUUID().slice(0, 8)}`;
      const one = await deliver([ann, bob], { subject, sender: 'billing@fake-vendor.test' });
      const two = await deliver([carl], { subject: `Re: ${subject}`, sender: 'billing@fake-vendor.test' });
      await deliver([dora], { subject: 'Unrelated', sender: 'billing@fake-vendor.test' });

      const preview = await postJson(t.app, admin, RETRACTION_API.preview, {
        subject,
        sender: '@fake-vendor.test',
      });
      expect(preview.statusCode).toBe(200);
      expect(preview.json()).toMatchObject({ total: 3, already_retracted: 0 });
      expect((preview.json().items as Array<{ recipient: string }>).map((i) => i.recipient).sort()).toEqual([
        ann,
        bob,
        carl,
      ]);
      // Nothing changed by the preview.
      expect(await whereIs(ann, one.messageId)).toEqual({ INBOX: 1 });

      const stale = await postJson(t.app, admin, RETRACTION_API.bulk, { search: { subject }, expected: 2 });
      expect(stale.statusCode).toBe(409);
      const res = await postJson(t.app, admin, RETRACTION_API.bulk, {
        search: { subject },
        expected: 3,
        verdict: 'spam',
      });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ copies: 3, retraction: { trigger: 'bulk', verdict: 'spam' } });
      await t.app.services.retraction.drain();
      expect(await whereIs(bob, one.messageId)).toEqual({ 'Moat Quarantine': 1 });
      expect(await whereIs(carl, two.messageId)).toEqual({ 'Moat Quarantine': 1 });
      const after = await postJson(t.app, admin, RETRACTION_API.preview, { subject });
      expect(after.json()).toMatchObject({ total: 3, already_retracted: 3 });
      expect(
        (await postJson(t.app, admin, RETRACTION_API.bulk, { search: { subject }, expected: 3 })).statusCode,
      ).toBe(409);
      const listed = (await get(RETRACTION_API.retractions)).body.items as Array<{ id: string }>;
      expect(listed[0]!.id).toBe(res.json().retraction.id);
    });

    it('searches by link host and attachment hash', async () => {
      const file = Buffer.from(`bulk file ${randomUUID()}`);
      const hash = createHash('sha256').update(file).digest('hex');
      await deliver([dora], {
        attachment: file,
        body: 'see https://files.bulk-host.test/a',
        sender: 'x@y.test',
      });
      expect(
        (await postJson(t.app, admin, RETRACTION_API.preview, { sha256: hash.toUpperCase() })).json().total,
      ).toBe(1);
      expect(
        (await postJson(t.app, admin, RETRACTION_API.preview, { url: 'files.bulk-host.test' })).json().total,
      ).toBe(1);
      expect(
        (
          await postJson(t.app, admin, RETRACTION_API.preview, { url: 'https://files.bulk-host.test/a' })
        ).json().total,
      ).toBe(1);
      expect(
        (
          await postJson(t.app, admin, RETRACTION_API.preview, { url: 'https://files.bulk-host.test/b' })
        ).json().total,
      ).toBe(0);
    });

    it('refuses a search that says nothing, or says it wrongly, with a 400', async () => {
      for (const body of [
        {},
        { from: '2026-01-01T00:00:00Z' },
        { sha256: 'abc' },
        { sender: 'not an address@' },
        { url: 'ftp://x.test/' },
        { subject: 'x', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
        { subject: 'x', other: 1 },
      ]) {
        const res = await postJson(t.app, admin, RETRACTION_API.preview, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
      }
      expect(
        (await postJson(t.app, admin, RETRACTION_API.bulk, { search: {}, expected: 0 })).statusCode,
      ).toBe(400);
      expect((await postJson(t.app, plainUser, RETRACTION_API.preview, { subject: 'x' })).statusCode).toBe(
        403,
      );
    });
  });
});
