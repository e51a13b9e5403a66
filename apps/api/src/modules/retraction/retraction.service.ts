import { randomBytes } from 'node:crypto';
import { normalizeExceptionValue } from '@moat/contracts/exceptions';
import {
  BULK_RETRACTION_MAX,
  type Connection,
  type ConnectionBody,
  type ConnectionTestResult,
  checkConnection,
  type DeliveredSearch,
  PREVIEW_ROWS,
  type Retraction,
  type RetractionAction,
  type RetractionDetail,
  type RetractionPreview,
  type RetractionStarted,
  type RetractionTrigger,
  type RetractionVerdict,
} from '@moat/contracts/retraction';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { linksOf } from '../../mail/gateway/links.ts';
import { parseMessage, sha256 } from '../../mail/parse.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import {
  closeMailbox,
  DEFAULT_IMAP_TIMEOUTS,
  type ImapTarget,
  type ImapTimeouts,
  mapBounded,
  openMailbox,
  retractFrom,
  searchedFolders,
} from './imap.ts';
import type {
  ConnectionRow,
  DeliveredFilter,
  RetractionMeta,
  RetractionRepo,
  RetractionRow,
} from './retraction.repo.ts';

/** The purpose the master password is sealed under (ServerKey.encrypt). */
export const MAILBOX_SECRET_PURPOSE = 'mailbox-connection-password';
/** Mailboxes worked on at once by one node: enough to pull a message from 1,000 mailboxes in seconds. */
const DEFAULT_CONCURRENCY = 32;
/** How long a node holds a retraction before another may take it over (renewed while it works). */
const LEASE_MS = 120_000;
/** Delivered messages read for their links and attachments per pass of a search. */
const CONTENT_BATCH = 200;
/** The most delivered messages read for one search (older mail beyond it is not searched by content). */
const CONTENT_MAX = 20_000;
/** The copies an audit entry names one by one (the rest are counted). */
const AUDIT_COPIES_MAX = 1_000;

/** A trigger's search, as stored with its retraction (dates as ISO text). */
type StoredSearch =
  | { kind: 'filter'; filter: Omit<DeliveredFilter, 'from' | 'to'> & { from?: string; to?: string } }
  | { kind: 'held_message'; id: string };

const DEFAULTS = {
  enabled: false,
  host: '',
  port: 993,
  tls_mode: 'tls' as const,
  verify_tls: true,
  master_user: '',
  separator: '*',
  action: 'move' as const,
  folder: 'Moat Quarantine',
};

function connectionOf(row: ConnectionRow | null): Connection {
  if (!row) return { configured: false, ...DEFAULTS, password_set: false, last_test: null, updated_at: null };
  return {
    configured: true,
    enabled: row.enabled,
    host: row.host,
    port: row.port,
    tls_mode: row.tlsMode,
    verify_tls: row.verifyTls,
    master_user: row.masterUser,
    separator: row.separator,
    password_set: row.secret !== null,
    action: row.action,
    folder: row.folder,
    last_test:
      row.lastTestAt && row.lastTestOk !== null
        ? { at: row.lastTestAt.toISOString(), ok: row.lastTestOk, message: row.lastTestMessage ?? '' }
        : null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** What an audit entry of a saved connection names: its settings, not its state nor its secret. */
function auditedSettings(connection: Connection) {
  const { configured, separator, password_set, last_test, updated_at, ...settings } = connection;
  return settings;
}

const byOf = (actor: Actor) => actor.email ?? (actor.type === 'cli' ? 'cli' : actor.type);

/** A delivered message's links (normalised as block-list URLs are), their hosts and attachment hashes. */
export async function contentsOf(raw: Buffer) {
  const parsed = await parseMessage(raw);
  const urls = new Set<string>();
  const hosts = new Set<string>();
  for (const link of linksOf(parsed.html, parsed.text, 1_000)) {
    const url = normalizeExceptionValue('url', link.href);
    if (!url.ok) continue;
    urls.add(url.value);
    hosts.add(new URL(url.value).hostname.replace(/\.$/, ''));
  }
  return {
    urls: [...urls],
    hosts: [...hosts],
    sha256s: [...new Set(parsed.attachments.map((a) => a.sha256))],
  };
}

/**
 * Retraction: delivered mail later found bad is pulled back out of the recipients' mailboxes
 * over IMAP (a master user logs in as each recipient), moved to a quarantine folder or deleted,
 * and held in Moat's quarantine as retracted, where the usual restore paths put it back. Each
 * retraction is a job claimed with a lease (any node takes over one whose lease ran out); each
 * delivered copy is retracted at most once, whatever asks for it again.
 */
export function createRetractionService(deps: {
  repo: RetractionRepo;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  serverKey: ServerKey;
  nodeName: string;
  /** Days a held message is kept (the tenant's retention). */
  retentionDays: (tenantId: string) => Promise<number>;
  log: { warn: (obj: unknown, msg: string) => void };
  imapTimeouts?: ImapTimeouts;
  concurrency?: number;
}) {
  const { repo, audit, clock, serverKey } = deps;
  const timeouts = deps.imapTimeouts ?? DEFAULT_IMAP_TIMEOUTS;
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;

  function targetOf(row: ConnectionRow): ImapTarget {
    if (!row.secret) throw new AppError('conflict', 'No master password is stored: enter it and save first');
    return {
      host: row.host,
      port: row.port,
      tlsMode: row.tlsMode,
      verifyTls: row.verifyTls,
      masterUser: row.masterUser,
      separator: row.separator,
      password: serverKey.decrypt(MAILBOX_SECRET_PURPOSE, row.secret),
    };
  }

  /** A search as typed, checked and normalised, or a 400 naming every bad field. */
  function filterOf(search: DeliveredSearch): DeliveredFilter {
    const errors: Array<{ field: string; message: string }> = [];
    const filter: DeliveredFilter = {};
    const sender = search.sender?.trim() ?? '';
    if (sender !== '') {
      if (sender.startsWith('@') || !sender.includes('@')) {
        const domain = normalizeExceptionValue('domain', sender.replace(/^@/, ''));
        if (domain.ok) filter.senderDomain = domain.value;
        else
          errors.push({
            field: 'body.sender',
            message: 'Enter an address or a domain, such as @example.com',
          });
      } else {
        const address = normalizeExceptionValue('sender', sender);
        if (address.ok) filter.senderAddress = address.value;
        else errors.push({ field: 'body.sender', message: address.message });
      }
    }
    const subject = search.subject?.trim() ?? '';
    if (subject !== '') filter.subject = subject;
    const url = search.url?.trim() ?? '';
    if (url !== '') {
      if (url.includes('://')) {
        const checked = normalizeExceptionValue('url', url);
        if (checked.ok) filter.url = checked.value;
        else errors.push({ field: 'body.url', message: checked.message });
      } else {
        const host = normalizeExceptionValue('domain', url.replace(/\/.*$/, ''));
        if (host.ok) filter.host = host.value;
        else
          errors.push({ field: 'body.url', message: 'Enter a whole web address (https://…) or a host name' });
      }
    }
    if (search.sha256) filter.sha256 = search.sha256.toLowerCase();
    if (search.from) filter.from = new Date(search.from);
    if (search.to) filter.to = new Date(search.to);
    if (filter.from && filter.to && filter.from.getTime() >= filter.to.getTime())
      errors.push({ field: 'body.to', message: 'The end of the range must come after its start' });
    if (
      errors.length === 0 &&
      !filter.senderAddress &&
      !filter.senderDomain &&
      !filter.subject &&
      !filter.url &&
      !filter.host &&
      !filter.sha256
    ) {
      errors.push({
        field: 'body',
        message: 'Say what to look for: a sender, words of the subject, a link or an attachment’s SHA-256',
      });
    }
    if (errors.length > 0) throw badRequest(errors.map((e) => e.message).join('; '), errors);
    return filter;
  }

  /** Read the links and attachments of delivered mail a content search needs (once per message). */
  async function readContents(tenantId: string, filter: DeliveredFilter): Promise<void> {
    if (!filter.url && !filter.host && !filter.sha256) return;
    for (let read = 0; read < CONTENT_MAX; read += CONTENT_BATCH) {
      const batch = await repo.unreadContents(tenantId, filter, CONTENT_BATCH);
      if (batch.length === 0) return;
      const rows = [];
      for (const { inboundId, raw } of batch) {
        const contents = raw && raw.length > 0 ? await contentsOf(Buffer.from(raw)).catch(() => null) : null;
        rows.push({ inboundId, tenantId, ...(contents ?? { urls: [], hosts: [], sha256s: [] }) });
      }
      await repo.saveContents(rows);
      if (batch.length < CONTENT_BATCH) return;
    }
  }

  async function matching(tenantId: string, filter: DeliveredFilter, limit: number) {
    await readContents(tenantId, filter);
    return repo.delivered(tenantId, filter, limit);
  }

  function retractionOf(r: Awaited<ReturnType<RetractionRepo['list']>>[number]): Retraction {
    return {
      id: r.row.id,
      trigger: r.row.trigger,
      verdict: r.row.verdict,
      reason: r.row.reason,
      requested_by: r.row.requestedBy,
      status: r.row.status,
      total: r.total,
      retracted: r.retracted,
      not_found: r.notFound,
      failed: r.failed,
      skipped: r.skipped,
      created_at: r.row.createdAt.toISOString(),
      finished_at: r.row.finishedAt?.toISOString() ?? null,
    };
  }

  async function started(tenantId: string, queued: { retraction: RetractionRow; copies: number } | null) {
    if (!queued) return { retraction: null, copies: 0 };
    kick();
    const [row] = await repo.list(tenantId, 1, queued.retraction.id);
    return { retraction: row ? retractionOf(row) : null, copies: queued.copies };
  }

  async function recordStart(
    tenantId: string,
    retraction: RetractionRow,
    copies: number | null,
    actor: Actor,
  ) {
    await audit.record(actor, {
      tenantId,
      action: 'retraction.start',
      targetType: 'retraction',
      targetId: retraction.id,
      details: {
        trigger: retraction.trigger,
        verdict: retraction.verdict,
        reason: retraction.reason,
        ...(retraction.triggerRef ? { trigger_ref: retraction.triggerRef } : {}),
        ...(copies !== null ? { copies } : {}),
      },
    });
  }

  // ---- the job -------------------------------------------------------------------------------

  const attachmentsSeen = new Map<
    string,
    Array<{ filename: string; contentType: string; size: number; sha256: string; state: string }>
  >();
  let draining: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  /** Work through every retraction due, then stop; a kick meanwhile makes it look once more. */
  function drain(): Promise<void> {
    if (draining) {
      again = true;
      return draining;
    }
    draining = (async () => {
      try {
        do {
          again = false;
          for (;;) {
            if (stopped) return;
            const now = clock.now();
            const job = await repo.claim(deps.nodeName, now, new Date(now.getTime() + LEASE_MS));
            if (!job) break;
            await run(job).catch(async (error: unknown) => {
              deps.log.warn({ err: error, retraction: job.id }, 'a retraction failed');
              await repo.finish(
                job.id,
                deps.nodeName,
                'failed',
                clock.now(),
                (error as Error).message ?? String(error),
              );
            });
          }
        } while (again && !stopped);
      } finally {
        draining = null;
      }
    })();
    return draining;
  }

  function kick(): void {
    drain().catch((error: unknown) => deps.log.warn({ err: error }, 'the retraction queue failed'));
  }

  /** The copies of a trigger's search, found now (they join its retraction); false: nothing to do. */
  async function resolve(job: RetractionRow): Promise<boolean> {
    const search = job.search as StoredSearch | null;
    let filter: DeliveredFilter | null = null;
    if (search?.kind === 'held_message') {
      const header = await repo.heldMessageId(job.tenantId, search.id);
      filter = header ? { messageIdHeader: header } : null;
    } else if (search?.kind === 'filter') {
      const { from, to, ...rest } = search.filter;
      filter = { ...rest, ...(from ? { from: new Date(from) } : {}), ...(to ? { to: new Date(to) } : {}) };
    }
    const found = filter ? await matching(job.tenantId, filter, BULK_RETRACTION_MAX) : { rows: [] };
    const joined = await repo.resolve(
      job.tenantId,
      job.id,
      found.rows.filter((r) => !r.retracted),
    );
    if (joined === 0) {
      await repo.discard(job.id);
      return false;
    }
    await recordStart(job.tenantId, job, joined, { type: 'system' });
    return true;
  }

  async function run(job: RetractionRow): Promise<void> {
    if (!job.resolved && !(await resolve(job))) return;
    const lease = setInterval(() => {
      const until = new Date(clock.now().getTime() + LEASE_MS);
      repo.renewLease(job.id, deps.nodeName, until).catch(() => {});
    }, LEASE_MS / 4);
    lease.unref();
    try {
      await retractCopies(job);
    } finally {
      clearInterval(lease);
    }
    await repo.finish(job.id, deps.nodeName, 'done', clock.now(), null);
    const copies = await repo.copiesOf(job.id);
    const count = (status: string) => copies.filter((c) => c.status === status).length;
    await audit.record(
      { type: 'system' },
      {
        tenantId: job.tenantId,
        action: 'retraction.finish',
        targetType: 'retraction',
        targetId: job.id,
        details: {
          trigger: job.trigger,
          verdict: job.verdict,
          retracted: count('retracted'),
          not_found: count('not_found'),
          failed: count('failed'),
          skipped: count('skipped'),
          copies: copies.slice(0, AUDIT_COPIES_MAX).map((c) => ({
            recipient: c.recipient,
            message_id: c.messageIdHeader,
            status: c.status,
            action: c.action,
            found: c.found,
            ...(c.error ? { error: c.error } : {}),
          })),
          ...(copies.length > AUDIT_COPIES_MAX ? { more_copies: copies.length - AUDIT_COPIES_MAX } : {}),
        },
      },
    );
  }

  async function retractCopies(job: RetractionRow): Promise<void> {
    const pending = await repo.pendingCopies(job.id);
    if (pending.length === 0) return;
    const connection = await repo.connection(job.tenantId);
    const skip = async (message: string) => {
      for (const { copy } of pending) {
        await repo.settleCopy(
          copy.id,
          { status: 'skipped', action: null, found: [], error: message, quarantineMessageId: null },
          clock.now(),
        );
      }
    };
    if (!connection?.enabled || !connection.secret) {
      await skip(
        connection && !connection.enabled
          ? 'Retraction from mailboxes is switched off (Settings → Mail flow → Mailbox connection)'
          : 'No mailbox connection: connect the mail server in Settings → Mail flow',
      );
      return;
    }
    let target: ImapTarget;
    try {
      target = targetOf(connection);
    } catch {
      await skip('The stored master password cannot be read with this server’s key: enter it again');
      return;
    }
    const action: RetractionAction = connection.action;
    const retention = await deps.retentionDays(job.tenantId);
    // One session per mailbox, however many of its copies the retraction holds.
    const byMailbox = new Map<string, typeof pending>();
    for (const p of pending) {
      const list = byMailbox.get(p.copy.recipient) ?? [];
      list.push(p);
      byMailbox.set(p.copy.recipient, list);
    }
    await mapBounded([...byMailbox.entries()], concurrency, async ([mailbox, copies]) => {
      let client: Awaited<ReturnType<typeof openMailbox>> | null = null;
      try {
        client = await openMailbox(target, mailbox, timeouts);
      } catch (error) {
        for (const { copy } of copies) {
          await settleUnmoved(copy.id, 'failed', (error as Error).message);
        }
        return;
      }
      try {
        for (const p of copies) await retractOne(job, client, p, action, connection.folder, retention);
      } finally {
        await closeMailbox(client);
      }
    });
  }

  /** A copy left where it was: not found in the mailbox, or the mailbox not reached. */
  function settleUnmoved(copyId: string, status: 'failed' | 'not_found', error: string) {
    return repo.settleCopy(
      copyId,
      { status, action: null, found: [], error, quarantineMessageId: null },
      clock.now(),
    );
  }

  async function retractOne(
    job: RetractionRow,
    client: Awaited<ReturnType<typeof openMailbox>>,
    p: Awaited<ReturnType<RetractionRepo['pendingCopies']>>[number],
    action: RetractionAction,
    folder: string,
    retention: number,
  ): Promise<void> {
    const { copy } = p;
    if (!copy.messageIdHeader) {
      await settleUnmoved(
        copy.id,
        'not_found',
        'The message has no Message-ID header: it cannot be told apart in the mailbox',
      );
      return;
    }
    let found: Array<{ folder: string; count: number }>;
    let source: Buffer | null = null;
    try {
      // The delivered bytes are held in Moat's quarantine; read from the mailbox when Moat has none.
      source = await repo.deliveredRaw(job.tenantId, copy.inboundId, copy.recipient);
      const result = await retractFrom(client, copy.messageIdHeader, {
        action,
        folder,
        fetchSource: source === null,
      });
      found = result.found;
      source ??= result.source;
    } catch (error) {
      await settleUnmoved(copy.id, 'failed', (error as Error).message);
      return;
    }
    if (found.length === 0) {
      await repo.settleCopy(
        copy.id,
        { status: 'not_found', action: null, found: [], error: null, quarantineMessageId: null },
        clock.now(),
      );
      return;
    }
    const now = clock.now();
    const raw =
      source ?? Buffer.from(`Message-ID: ${copy.messageIdHeader}\r\nSubject: ${copy.subject}\r\n\r\n`);
    // One message's copies are mostly the same bytes: read once per job.
    const digest = sha256(raw);
    let attachments = attachmentsSeen.get(digest);
    if (!attachments) {
      attachments =
        (await parseMessage(raw).catch(() => null))?.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          size: a.size,
          sha256: a.sha256,
          state: 'delivered',
        })) ?? [];
      if (attachmentsSeen.size > 100) attachmentsSeen.clear();
      attachmentsSeen.set(digest, attachments);
    }
    await repo.transaction(async (tx) => {
      const heldId = await repo.insertHeld(
        {
          tenantId: job.tenantId,
          publicId: randomBytes(24).toString('base64url'),
          saasType: 'smtp_emails',
          recipient: copy.recipient,
          sender: p.sender,
          senderName: p.senderName,
          subject: copy.subject,
          messageIdHeader: copy.messageIdHeader,
          receivedAt: p.receivedAt,
          verdict: job.verdict,
          reasons: [retractedReason(job, action)],
          state: 'quarantined',
          // Pulled back, not held at the door: no digest lists it; an admin restores it.
          silent: true,
          raw,
          rawSha256: digest,
          size: raw.length,
          expiresAt: new Date(now.getTime() + retention * 86_400_000),
          retractedAt: now,
        },
        attachments,
        tx,
      );
      await repo.settleCopy(
        copy.id,
        { status: 'retracted', action, found, error: null, quarantineMessageId: heldId },
        now,
        tx,
      );
    });
  }

  return {
    async connection(tenantId: string): Promise<Connection> {
      return connectionOf(await repo.connection(tenantId));
    },

    async saveConnection(tenantId: string, body: ConnectionBody, actor: Actor): Promise<Connection> {
      const values = {
        host: body.host.trim().replace(/\.$/, '').toLowerCase(),
        port: body.port,
        tls_mode: body.tls_mode,
        master_user: body.master_user.trim(),
        separator: body.separator ?? '*',
        folder: (body.folder ?? 'Moat Quarantine').trim(),
      };
      const errors = checkConnection(values).map((e) => ({ ...e, field: `body.${e.field}` }));
      const before = await repo.connection(tenantId);
      const password = body.password ?? null;
      if (password !== null && password.length === 0)
        errors.push({
          field: 'body.password',
          message: 'Enter the master password, or leave it out to keep the stored one',
        });
      if (password === null && !before?.secret)
        errors.push({ field: 'body.password', message: 'Enter the master user’s password' });
      if (errors.length > 0) throw badRequest(errors.map((e) => e.message).join('; '), errors);
      const changedServer =
        !before ||
        before.host !== values.host ||
        before.port !== values.port ||
        before.tlsMode !== values.tls_mode ||
        before.masterUser !== values.master_user ||
        password !== null;
      const row = await repo.saveConnection(tenantId, {
        enabled: body.enabled,
        host: values.host,
        port: values.port,
        tlsMode: values.tls_mode,
        verifyTls: body.verify_tls ?? true,
        masterUser: values.master_user,
        separator: values.separator,
        secret:
          password !== null ? serverKey.encrypt(MAILBOX_SECRET_PURPOSE, password) : (before?.secret ?? null),
        action: body.action ?? 'move',
        folder: values.folder,
        // A test of another server or login says nothing of this one.
        ...(changedServer ? { lastTestAt: null, lastTestOk: null, lastTestMessage: null } : {}),
        updatedAt: clock.now(),
      });
      await audit.record(actor, {
        tenantId,
        action: 'retraction.connection_update',
        targetType: 'mailbox_connection',
        targetId: tenantId,
        details: { ...auditedSettings(connectionOf(row)), password_changed: password !== null },
      });
      return connectionOf(row);
    },

    /** Log in as one mailbox through the master user, and say what failed at which step. */
    async testConnection(
      tenantId: string,
      mailbox: string | undefined,
      actor: Actor,
    ): Promise<ConnectionTestResult> {
      const row = await repo.connection(tenantId);
      if (!row) throw new AppError('conflict', 'Save the mailbox connection first, then test it');
      const who = (mailbox ?? actor.email ?? '').trim().toLowerCase();
      const address = normalizeExceptionValue('sender', who);
      if (!address.ok)
        throw badRequest('Enter the address of a mailbox to log in as', [
          { field: 'body.mailbox', message: address.message },
        ]);
      let result: ConnectionTestResult;
      try {
        const target = targetOf(row);
        const client = await openMailbox(target, address.value, timeouts);
        try {
          const folders = await searchedFolders(client, row.folder).catch((error: unknown) => {
            throw Object.assign(
              new Error(`The folders of ${address.value} could not be listed: ${(error as Error).message}`),
              {
                stage: 'folders',
              },
            );
          });
          result = {
            ok: true,
            stage: null,
            mailbox: address.value,
            folders,
            message: `Logged in as ${address.value} through ${row.masterUser}; ${folders.length} folder(s) would be searched.`,
          };
        } finally {
          await closeMailbox(client);
        }
      } catch (error) {
        if (error instanceof AppError) throw error;
        const e = error as Error & { stage?: ConnectionTestResult['stage'] };
        result = {
          ok: false,
          stage: e.stage ?? 'connect',
          mailbox: address.value,
          folders: [],
          message: e.message,
        };
      }
      await repo.recordTest(tenantId, clock.now(), result.ok, result.message);
      await audit.record(actor, {
        tenantId,
        action: 'retraction.connection_test',
        targetType: 'mailbox_connection',
        targetId: tenantId,
        details: { mailbox: result.mailbox, ok: result.ok, stage: result.stage, message: result.message },
      });
      return result;
    },

    async list(tenantId: string): Promise<{ items: Retraction[] }> {
      return { items: (await repo.list(tenantId, 100)).map(retractionOf) };
    },

    async get(tenantId: string, id: string): Promise<RetractionDetail> {
      const [row] = await repo.list(tenantId, 1, id);
      if (!row) throw notFound('No such retraction');
      const copies = await repo.copiesOf(id);
      return {
        ...retractionOf(row),
        copies: copies.map((c) => ({
          id: c.id,
          mail_log_id: c.mailLogId,
          recipient: c.recipient,
          message_id: c.messageIdHeader,
          subject: c.subject,
          status: c.status,
          action: c.action,
          found: c.found,
          error: c.error,
          quarantine_message_id: c.quarantineMessageId,
          updated_at: c.updatedAt.toISOString(),
        })),
      };
    },

    /** An admin marks a delivered message bad: every delivered copy of it is retracted. */
    async retractMessage(
      tenantId: string,
      body: { mail_log_id: string; verdict?: RetractionVerdict | undefined; reason?: string | undefined },
      actor: Actor,
    ): Promise<RetractionStarted> {
      const row = await repo.mailLogRow(tenantId, body.mail_log_id);
      if (!row) throw notFound('No such message in the Mail Explorer');
      if (!['delivered', 'delivered_banner', 'attachments_removed'].includes(row.action))
        throw new AppError(
          'conflict',
          'This message was not delivered to a mailbox: there is nothing to retract',
        );
      const copies = await repo.delivered(tenantId, { inboundId: row.inboundId }, BULK_RETRACTION_MAX);
      const queued = await repo.queue(
        tenantId,
        meta(
          'admin',
          row.inboundId,
          body.verdict ?? 'phishing',
          body.reason?.trim() || `Marked ${body.verdict ?? 'phishing'} by ${byOf(actor)}`,
          actor,
        ),
        copies.rows.filter((c) => !c.retracted),
      );
      if (!queued)
        throw new AppError('conflict', 'Every delivered copy of this message was retracted already');
      await recordStart(tenantId, queued.retraction, queued.copies, actor);
      return started(tenantId, queued);
    },

    async preview(tenantId: string, search: DeliveredSearch): Promise<RetractionPreview> {
      const filter = filterOf(search);
      const { total, rows } = await matching(tenantId, filter, PREVIEW_ROWS);
      return {
        total,
        already_retracted: await repo.countRetracted(tenantId, filter),
        items: rows.map((r) => ({
          mail_log_id: r.mailLogId,
          recipient: r.recipient,
          sender: r.sender,
          subject: r.subject,
          received_at: r.receivedAt.toISOString(),
          retracted: r.retracted,
        })),
      };
    },

    async bulk(
      tenantId: string,
      body: {
        search: DeliveredSearch;
        verdict?: RetractionVerdict | undefined;
        reason?: string | undefined;
        expected: number;
      },
      actor: Actor,
    ): Promise<RetractionStarted> {
      const filter = filterOf(body.search);
      const { total, rows } = await matching(tenantId, filter, BULK_RETRACTION_MAX);
      if (total > BULK_RETRACTION_MAX)
        throw badRequest(
          `The search matches ${total} copies; at most ${BULK_RETRACTION_MAX} are retracted at once: narrow it`,
          [{ field: 'body.search', message: 'too_many' }],
        );
      if (total !== body.expected)
        throw new AppError(
          'conflict',
          `The search now matches ${total} copies, not the ${body.expected} of the preview: preview it again`,
        );
      const queued = await repo.queue(
        tenantId,
        meta(
          'bulk',
          null,
          body.verdict ?? 'phishing',
          body.reason?.trim() || `Bulk retraction by ${byOf(actor)}`,
          actor,
        ),
        rows.filter((r) => !r.retracted),
      );
      if (!queued) throw new AppError('conflict', 'Every copy this search matches was retracted already');
      await recordStart(tenantId, queued.retraction, queued.copies, actor);
      return started(tenantId, queued);
    },

    /**
     * New block-list entries: the delivered mail each would have blocked at the door (its sender
     * or domain, a link, an attachment) is retracted by the job. Answers at once.
     */
    async blocked(
      tenantId: string,
      entries: Array<{ id: string; list: string; kind: string; value: string; scope?: string }>,
      actor: Actor,
    ): Promise<void> {
      for (const e of entries) {
        if (e.list !== 'block') continue;
        let trigger: RetractionTrigger;
        let filter: Extract<StoredSearch, { kind: 'filter' }>['filter'];
        if (e.kind === 'url') {
          trigger = 'block_url';
          filter = { url: e.value };
        } else if (e.kind === 'sha256') {
          trigger = 'block_sha256';
          filter = { sha256: e.value };
        } else if (e.kind === 'domain' && e.scope === 'click_time') {
          // A host blocked at click time: the delivered mail linking to it.
          trigger = 'block_url';
          filter = { host: e.value };
        } else continue; // A blocked sender stops its next mail; what it sent before stays.
        await repo.queueSearch(
          tenantId,
          meta(
            trigger,
            e.id,
            e.kind === 'sha256' ? 'malware' : 'phishing',
            `Blocked ${e.kind.replace('_', ' ')} ${e.value}`,
            actor,
          ),
          { kind: 'filter', filter },
        );
      }
      kick();
    },

    /** A report an admin confirmed: every delivered copy of the reported message is retracted. */
    async confirmedReport(
      tenantId: string,
      reportId: string,
      heldMessageId: string,
      actor: Actor,
    ): Promise<void> {
      await repo.queueSearch(
        tenantId,
        meta('report', reportId, 'phishing', `Reported as phishing; confirmed by ${byOf(actor)}`, actor),
        { kind: 'held_message', id: heldMessageId },
      );
      kick();
    },

    drain,
    kick,
    /** Look for retractions left by a node that stopped (their lease ran out) now and then. */
    start(intervalMs = 30_000): void {
      stopped = false;
      if (timer) return;
      kick();
      timer = setInterval(kick, intervalMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await draining;
    },
  };
}
export type RetractionService = ReturnType<typeof createRetractionService>;

function meta(
  trigger: RetractionTrigger,
  triggerRef: string | null,
  verdict: RetractionVerdict,
  reason: string,
  actor: Actor,
): RetractionMeta {
  return { trigger, triggerRef, verdict, reason: reason.slice(0, 500), requestedBy: byOf(actor) };
}

function retractedReason(job: RetractionRow, action: RetractionAction): string {
  const done =
    action === 'move'
      ? 'Retracted from the mailbox (moved to the quarantine folder)'
      : 'Retracted from the mailbox (deleted there)';
  return job.reason ? `${done}: ${job.reason}` : done;
}
