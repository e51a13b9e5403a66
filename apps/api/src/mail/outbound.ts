import fs from 'node:fs';
import path from 'node:path';
import { and, asc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db, DbOrTx } from '../db/client.ts';
import { outbox } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Rendered } from './templates.ts';

export interface OutgoingMail extends Rendered {
  tenantId: string | null;
  /** Send these bytes as they are (a released message) instead of rendering text and html. */
  raw?: Uint8Array;
  /** What the mail is for (mail_verification, password_reset, …): kept in the outbox. */
  kind: string;
  to: string;
  fromName: string;
  /** Relayed mail: the SMTP envelope sender ('' for none); default: Moat's own address. */
  envelopeFrom?: string;
  /** Queue this mail at most once per key; a second send with the key returns the first one's id. */
  idempotencyKey?: string;
}

const MAX_ATTEMPTS = 8;
const JOURNAL_ROTATE_BYTES = 1024 * 1024;

/**
 * An append-only file of outbox ids: appended synchronously (the page cache outlives a killed
 * process), read back and emptied once the database has them.
 */
function createSentJournal(file: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return {
    append(id: string) {
      fs.appendFileSync(file, `${id}\n`, { mode: 0o600 });
    },
    size(): number {
      try {
        return fs.statSync(file).size;
      } catch {
        return 0;
      }
    },
    /** The ids written so far; the file is emptied (the caller records them right away). */
    drain(): string[] {
      let text = '';
      try {
        text = fs.readFileSync(file, 'utf8');
        fs.truncateSync(file, 0);
      } catch {
        return [];
      }
      return [...new Set(text.split('\n').filter((line) => /^[0-9a-f-]{36}$/.test(line)))];
    },
  };
}
/** Wait before retry n: 5 s, 10 s, 20 s … capped at 10 minutes. */
const retryDelayMs = (attempts: number) => Math.min(5_000 * 2 ** Math.max(0, attempts - 1), 600_000);

/** The relay URL with a small connection pool, unless it sets its own: one connection per mail is slow. */
function pooled(relayUrl: string): string {
  const url = new URL(relayUrl);
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
  if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', '4');
  return url.toString();
}

/**
 * The one way out for every email. Each one is first stored in the outbox table; with an SMTP
 * relay it is then delivered in the background (retried with back-off, picked up again after
 * a restart), and without one it stays in the outbox with a log line.
 */
export function createMailer(deps: {
  db: Db;
  relayUrl: string | undefined;
  fromAddress: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  clock: Clock;
  /**
   * A local journal of ids the relay accepted, appended the moment it answers, before the
   * database hears of it: a crash in between would otherwise send that mail again on restart.
   */
  journalPath?: string;
}) {
  const transport: Transporter | null = deps.relayUrl
    ? nodemailer.createTransport(pooled(deps.relayUrl))
    : null;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const journal = deps.journalPath ? createSentJournal(deps.journalPath) : null;

  async function deliver(id: string): Promise<void> {
    const [row] = await deps.db
      .update(outbox)
      .set({ status: 'sending', attempts: sql`${outbox.attempts} + 1` })
      .where(and(eq(outbox.id, id), inArray(outbox.status, ['queued', 'failed'])))
      .returning();
    if (!row || !transport) return;
    try {
      await transport.sendMail(
        row.raw
          ? {
              envelope: { from: row.envelopeFrom ?? deps.fromAddress, to: [row.toAddress] },
              raw: Buffer.from(row.raw),
            }
          : {
              from: { name: row.fromName, address: deps.fromAddress },
              ...(row.envelopeFrom !== null
                ? { envelope: { from: row.envelopeFrom, to: [row.toAddress] } }
                : {}),
              to: row.toAddress,
              subject: row.subject,
              text: row.text,
              html: row.html,
              headers: { 'X-Moat-Mail-Kind': row.kind, 'Auto-Submitted': 'auto-generated' },
            },
      );
      journal?.append(id);
      await markSent([id]);
      if (journal && journal.size() > JOURNAL_ROTATE_BYTES) await markSent(journal.drain());
    } catch (error) {
      const lastError = (error as Error).message.slice(0, 500);
      // A permanent refusal (5xx) will not change with retries: it bounces at the next pass.
      const permanent = ((error as { responseCode?: number }).responseCode ?? 0) >= 500;
      await deps.db
        .update(outbox)
        .set({ status: 'failed', lastError, ...(permanent ? { attempts: MAX_ATTEMPTS } : {}) })
        .where(eq(outbox.id, id));
      deps.log.warn(
        { outboxId: id, attempts: row.attempts, err: lastError },
        'mail delivery failed; will retry',
      );
    }
  }

  function startDelivery(id: string): void {
    if (!transport) return;
    void deliver(id).catch((error) => deps.log.error({ err: error, outboxId: id }, 'mail delivery crashed'));
  }

  async function markSent(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await deps.db
      .update(outbox)
      .set({ status: 'sent', sentAt: deps.clock.now(), lastError: null })
      .where(and(inArray(outbox.id, ids), sql`${outbox.status} <> 'sent'`));
  }

  /** Store the mail (at most once per idempotency key), then deliver it unless inside a transaction. */
  async function sendMail(mail: OutgoingMail, tx?: DbOrTx): Promise<string> {
    const [row] = await (tx ?? deps.db)
      .insert(outbox)
      .values({
        tenantId: mail.tenantId,
        kind: mail.kind,
        fromName: mail.fromName,
        toAddress: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        raw: mail.raw ?? null,
        status: transport ? 'queued' : 'kept',
        envelopeFrom: mail.envelopeFrom ?? null,
        idempotencyKey: mail.idempotencyKey ?? null,
      })
      .onConflictDoNothing({ target: outbox.idempotencyKey })
      .returning({ id: outbox.id });
    if (!row) {
      // Already queued under this idempotency key: the same mail, once.
      const [existing] = await (tx ?? deps.db)
        .select({ id: outbox.id })
        .from(outbox)
        .where(eq(outbox.idempotencyKey, mail.idempotencyKey ?? ''));
      return existing!.id;
    }
    const id = row.id;
    if (!transport) {
      deps.log.info(
        { outboxId: id, to: mail.to, kind: mail.kind, subject: mail.subject },
        'mail kept in the outbox (no SMTP_RELAY_URL)',
      );
      return id;
    }
    if (!tx) startDelivery(id);
    return id;
  }

  /**
   * Mail that failed every attempt is bounced: marked so, and for relayed mail the original
   * sender gets a delivery-failure notice (sent with an empty envelope sender, as bounces are).
   */
  async function bounceExhausted(): Promise<void> {
    const rows = await deps.db
      .update(outbox)
      .set({ status: 'bounced' })
      .where(and(eq(outbox.status, 'failed'), gte(outbox.attempts, MAX_ATTEMPTS)))
      .returning();
    for (const row of rows) {
      deps.log.warn(
        { outboxId: row.id, to: row.toAddress, err: row.lastError },
        'mail bounced after every retry',
      );
      if (!row.envelopeFrom) continue;
      const text = [
        `Your message to ${row.toAddress} could not be delivered after ${row.attempts} attempts.`,
        `Subject: ${row.subject || '(no subject)'}`,
        `Last error: ${row.lastError ?? 'unknown'}`,
      ].join('\n');
      await sendMail({
        tenantId: row.tenantId,
        kind: 'bounce',
        to: row.envelopeFrom,
        fromName: 'Mail Delivery System',
        subject: `Undelivered Mail: ${row.subject || '(no subject)'}`,
        text,
        html: '',
        envelopeFrom: '',
        idempotencyKey: `bounce:${row.id}`,
      });
    }
  }

  /** Deliver what is due: queued mail, failed mail whose back-off has passed, mail stuck in sending after a crash. */
  async function drain(): Promise<void> {
    if (!transport) return;
    await bounceExhausted();
    const now = deps.clock.now().getTime();
    const rows = await deps.db
      .select({
        id: outbox.id,
        status: outbox.status,
        attempts: outbox.attempts,
        createdAt: outbox.createdAt,
      })
      .from(outbox)
      .where(
        and(
          // Mail "sending" is in this process's hands (waiting for a pooled connection, perhaps);
          // what a crash left sending is made due again by start().
          inArray(outbox.status, ['queued', 'failed']),
          lt(outbox.attempts, MAX_ATTEMPTS),
        ),
      )
      .orderBy(asc(outbox.createdAt))
      .limit(50);
    for (const row of rows) {
      if (row.status === 'failed' && row.createdAt.getTime() + retryDelayMs(row.attempts) > now) continue;
      await deliver(row.id);
    }
  }

  return {
    /**
     * Store the mail, then deliver it in the background. Resolves once it is stored. Inside a
     * transaction (`tx`), delivery starts only when `deliverStored` is called after the commit.
     */
    send: sendMail,
    /** Start delivering a mail stored inside a transaction, once that transaction committed. */
    deliverStored: (id: string) => startDelivery(id),

    /**
     * Start retrying in the background (the server does; tests call drain() themselves). Mail
     * left "sending" belongs to a process that ended (this server owns its outbox), so it is
     * made due again first; resolves once that is done, before anything new is sent.
     */
    async start(intervalMs = 5_000) {
      if (!transport || timer) return;
      // What the relay accepted just before a crash is sent already: record it before retrying.
      if (journal) {
        const accepted = journal.drain();
        for (let i = 0; i < accepted.length; i += 500) await markSent(accepted.slice(i, i + 500));
      }
      await deps.db
        .update(outbox)
        .set({ status: 'failed', lastError: 'interrupted by a restart' })
        .where(eq(outbox.status, 'sending'));
      timer = setInterval(() => {
        if (running) return;
        running = drain()
          .catch((error) => deps.log.error({ err: error }, 'mail retry loop failed'))
          .finally(() => {
            running = null;
          });
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      transport?.close();
    },
    drain,
  };
}
export type Mailer = ReturnType<typeof createMailer>;
