/**
 * Retraction (issue 36 §2): one message delivered to BENCH_RETRACT_MAILBOXES mailboxes (default
 * 1,000) of a real Debian Dovecot on loopback (master user, maildir, STARTTLS), pulled back by
 * Moat — the admin's call, the job claiming it, a master login as each recipient, LIST, a SEARCH
 * of each folder by Message-ID, MOVE to "Moat Quarantine", the quarantine entry and the copy's
 * record written — timed from the call to the job's end. Setup (users, the APPENDs, the Mail
 * Explorer and outbox rows) is not timed. Moat runs in-process on the embedded PGlite.
 */
import { randomUUID } from 'node:crypto';
import { mailLog, outbox } from '../apps/api/src/db/schema.ts';
import { mapBounded } from '../apps/api/src/modules/retraction/imap.ts';
import { buildTestApp } from '../apps/api/src/test/app.ts';
import { startDovecot } from '../apps/api/src/test/daemons/dovecot.ts';
import { buildTenant } from '../apps/api/src/test/factories.ts';

const MAILBOXES = Number(process.env.BENCH_RETRACT_MAILBOXES ?? 1000);
const MASTER = { user: 'moat-master', password: 'bench master password' };

export async function benchRetraction() {
  const domain = 'bench-retract.test';
  const users = Array.from({ length: MAILBOXES }, (_, i) => `user${i}@${domain}`);
  const dovecot = await startDovecot({
    users: users.map((user) => ({ user, password: 'x' })),
    master: MASTER,
  });
  const t = await buildTestApp();
  try {
    const tenant = await buildTenant(t.db, { domain });
    const messageId = `<bench-${randomUUID()}@outside.test>`;
    const raw = Buffer.from(
      `From: Mallory <mallory@outside.test>\r\nTo: everyone@${domain}\r\nSubject: Urgent invoice\r\nMessage-ID: ${messageId}\r\n\r\nPay now: https://pay.evil.test/\r\n`,
    );
    const inboundId = randomUUID();
    // Setup: the delivered copy in each mailbox (and a Work folder in every tenth), and the gateway's rows.
    await mapBounded(users, 16, (user) => dovecot.asOwner(user, (c) => c.append('INBOX', raw)));
    for (let i = 0; i < users.length; i += 500) {
      const chunk = users.slice(i, i + 500);
      await t.db.insert(mailLog).values(
        chunk.map((recipient) => ({
          tenantId: tenant.id,
          inboundId,
          recipient,
          sender: 'mallory@outside.test',
          subject: 'Urgent invoice',
          messageIdHeader: messageId,
          receivedAt: new Date(),
          verdict: 'clean',
          action: 'delivered',
          size: raw.length,
        })),
      );
      await t.db.insert(outbox).values(
        chunk.map((recipient) => ({
          tenantId: tenant.id,
          kind: 'delivery',
          fromName: 'Mallory',
          toAddress: recipient,
          subject: 'Urgent invoice',
          text: '',
          html: '',
          raw,
          status: 'sent',
          idempotencyKey: `${inboundId}:${recipient}`,
        })),
      );
    }
    const service = t.app.services.retraction;
    const actor = { type: 'user' as const, email: `admin@${domain}` };
    await service.saveConnection(
      tenant.id,
      {
        enabled: true,
        host: '127.0.0.1',
        port: dovecot.port,
        tls_mode: 'starttls',
        verify_tls: false,
        master_user: MASTER.user,
        password: MASTER.password,
      },
      actor,
    );
    const [first] = await t.db.select({ id: mailLog.id }).from(mailLog).limit(1);
    const started = performance.now();
    const queued = await service.retractMessage(tenant.id, { mail_log_id: first!.id }, actor);
    await service.drain();
    const seconds = (performance.now() - started) / 1000;
    const detail = await service.get(tenant.id, queued.retraction!.id);
    const result = {
      mailboxes: MAILBOXES,
      retracted: detail.retracted,
      not_found: detail.not_found,
      failed: detail.failed,
      seconds: Number(seconds.toFixed(2)),
      mailboxes_per_second: Math.round(MAILBOXES / seconds),
    };
    console.log(
      `retraction: ${result.retracted}/${MAILBOXES} mailboxes retracted in ${result.seconds} s (${result.mailboxes_per_second}/s; ${result.failed} failed, ${result.not_found} not found)`,
    );
    return result;
  } finally {
    await t.close();
    await dovecot.stop();
  }
}
