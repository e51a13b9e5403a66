import { randomUUID } from 'node:crypto';
import type { DlpHit } from '@moat/contracts/dlp';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.ts';
import { dlpContentOf } from '../../engines/dlp/index.ts';
import { engineInputOf } from '../../engines/engine-input.ts';
import type { Engine } from '../../engines/types.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Counters } from '../../lib/counters.ts';
import { outboundDeclinedEmail, outboundHeldEmail } from '../../mail/notifications.ts';
import { type Mailer, OUTBOUND_KIND } from '../../mail/outbound.ts';
import { type ParsedMessage, parseMessage } from '../../mail/parse.ts';
import { headerField, type SubmittedMessage } from '../../mail/submission/submission-in.ts';
import { type MailBrand, mailBrand } from '../../mail/templates.ts';
import type { Alerts } from '../alerts/alerts.service.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { DlpRepo, OutboundHeldRow } from '../dlp/dlp.repo.ts';
import type { DlpDecision, DlpService } from '../dlp/dlp.service.ts';

/** RFC 5322 date-time, as a Received field carries it. */
const rfc5322 = (date: Date) => date.toUTCString().replace(/GMT$/, '+0000');

/** What became of a submitted message: queued for delivery, held for an admin, or refused (554). */
export type SubmitOutcome = { queued: string } | { held: string } | { refused: string };

/** The kinds of data found, in words, once each: what the sender and the admins are told. */
const foundKinds = (hits: DlpHit[]) => [...new Set(hits.map((h) => h.ruleName))];
/** What the sender is told was found: the data kinds, and phishing when the engine saw it. */
const foundIn = (hits: DlpHit[], phishing: boolean) => [
  ...foundKinds(hits),
  ...(phishing ? ['signs of phishing'] : []),
];

/** An event's line: each hit's kind, count, where, and its masked samples. */
function describeHits(hits: DlpHit[]): string {
  return hits
    .map(
      (h) =>
        `${h.ruleName} (${h.count}) in ${h.places.slice(0, 3).join(', ')}${h.samples.length > 0 ? `: ${h.samples.join(', ')}` : ''}`,
    )
    .join('; ')
    .slice(0, 1_000);
}

const SEVERITY_OF = { deliver: 'low', notify: 'medium', hold: 'high', refuse: 'high' } as const;

/**
 * A person's outbound mail past these in an hour is held for an admin with an alert: a compromised
 * account sends spam or phishing in bulk, a person rarely writes to more than a few hundred
 * people an hour. (The credential's own hourly limit bounds a whole server.)
 */
export const SENDER_MESSAGES_PER_HOUR = 200;
export const SENDER_RECIPIENTS_PER_HOUR = 500;
const HOUR_MS = 3_600_000;
/** The stored and shown subject of outbound mail whose subject holds what DLP found. */
const SUBJECT_WITHHELD = '(subject withheld: it holds sensitive data)';

/**
 * The tenants' outbound mail, once submitted (issue 38): scanned for malware (refused), checked
 * by DLP (refused, held for an admin, or sent on with an event and maybe an alert), then given a
 * Received field for the submission hop and the DKIM signature of the From domain when it signs,
 * and queued as one delivery per recipient in the outbox, all in one transaction, before the
 * submitter hears 250. The outbox retries with back-off for days, bounces to the sender, and
 * delivers through the smarthost or the recipients' MX.
 */
export function createOutboundService(deps: {
  db: Db;
  /**
   * The malware engines (the embedded one, clamd when configured) and the anti-phishing engine, as
   * for inbound mail: malware is refused at the door (the submitting server bounces it to its
   * user), never sent on; phishing is held for an admin (a compromised account sending lures).
   */
  scanEngines?: () => Engine[];
  dlp?: DlpService;
  dlpRepo: DlpRepo;
  /** Counted across nodes: each sender's messages and recipients per hour (a compromised account). */
  counters?: Pick<Counters, 'hitMany'>;
  alerts?: Pick<Alerts, 'raise' | 'deliver'>;
  audit: Pick<AuditRepo, 'record'>;
  brandOf: (tenantId: string, tx?: DbOrTx) => Promise<Parameters<typeof mailBrand>[0]>;
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  sign: (message: Buffer, fromDomain: string, tenantId: string) => Promise<Buffer>;
  clock: { now(): Date };
  hostname: string;
  log: Pick<FastifyBaseLogger, 'info'>;
}) {
  const { clock } = deps;

  /**
   * What the engines find in a submitted message: malware's and phishing's reasons, none when
   * clean. The sender logged in and the message will be signed for its domain: it is judged as
   * authenticated mail (impersonation of the tenant's own domain is not the question here).
   */
  async function scanned(
    message: SubmittedMessage,
    engines: Engine[],
  ): Promise<{ found: string[]; phishing: string[]; parsed: ParsedMessage }> {
    const input = await engineInputOf(message.raw, {
      envelope: {
        mailFrom: message.envelopeFrom,
        clientIp: message.clientAddress,
        helo: '',
        rcptTo: message.recipients,
      },
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass', authenticationResults: '' },
      tenant: { id: message.tenantId, domains: [], people: [] },
    });
    const findings = await Promise.all(
      engines.map((engine) =>
        engine.scan(input).catch((error: Error) =>
          // A malware engine that cannot scan fails closed, as inbound: nothing unscanned leaves.
          engine.failClosed
            ? [
                {
                  engine: engine.name,
                  verdict: 'malware' as const,
                  reason: `could not be scanned (${error.message})`,
                },
              ]
            : [],
        ),
      ),
    );
    const all = findings.flat();
    return {
      found: all.filter((f) => f.verdict === 'malware').map((f) => f.reason),
      phishing: all.filter((f) => f.verdict === 'phishing').map((f) => f.reason),
      parsed: input.parsed,
    };
  }

  /**
   * The bytes that leave: a Received field for the submission hop, then the DKIM signature of
   * the From domain when it signs. Made before the transaction that queues them (the signer
   * reads its keys on its own connection).
   */
  async function outgoingBytes(message: {
    id: string;
    tenantId: string;
    fromDomain: string;
    raw: Buffer;
    clientAddress: string;
  }): Promise<Buffer> {
    const received = Buffer.from(
      `Received: from [${message.clientAddress}] by ${deps.hostname} (Moat) with ESMTPSA id ${message.id};\r\n\t${rfc5322(clock.now())}\r\n`,
    );
    return deps.sign(Buffer.concat([received, message.raw]), message.fromDomain, message.tenantId);
  }

  /** Queue one delivery per recipient of the signed bytes, on `tx`; the outbox ids to deliver after commit. */
  async function enqueue(
    tx: DbOrTx,
    message: { id: string; tenantId: string; envelopeFrom: string; subject: string },
    signed: Buffer,
    recipients: string[],
  ): Promise<string[]> {
    const { subject } = message;
    const stored: string[] = [];
    for (const to of recipients) {
      stored.push(
        await deps.mailer.send(
          {
            tenantId: message.tenantId,
            kind: OUTBOUND_KIND,
            to,
            fromName: '',
            subject,
            text: '',
            html: '',
            raw: signed,
            envelopeFrom: message.envelopeFrom,
            idempotencyKey: `outbound:${message.id}:${to}`,
          },
          tx,
        ),
      );
    }
    return stored;
  }

  /** The event of a DLP decision (hits, or a DLP block entry), on `tx`. */
  async function recordDlpEvent(
    tx: DbOrTx,
    message: SubmittedMessage,
    subject: string,
    decision: DlpDecision,
    heldId?: string,
  ): Promise<void> {
    const action = decision.action ?? 'deliver';
    const blocked = decision.exception?.list === 'block' ? decision.exception.entry : null;
    const what = blocked
      ? `Outbound mail blocked by DLP exception ${blocked.kind} ${blocked.value}`
      : `${{ deliver: 'Delivered', notify: 'Delivered, admins alerted', hold: 'Held for review', refuse: 'Refused' }[action]}: ${describeHits(decision.hits)}`;
    await deps.dlpRepo.recordEvent(
      {
        tenantId: message.tenantId,
        engine: 'dlp',
        verdict: 'suspicious',
        severity: blocked ? 'medium' : SEVERITY_OF[action],
        type: blocked || action === 'refuse' ? 'block' : action === 'hold' ? 'hold' : 'detection',
        description: what.slice(0, 1_000),
        recipient: message.recipients.join(', ').slice(0, 300),
        sender: message.envelopeFrom,
        subject,
        details: {
          direction: 'outbound',
          dlp: decision.hits,
          decision: { verdict: 'suspicious', action, source: blocked ? 'block_list' : 'tenant_policy' },
          ...(heldId ? { outbound_held_id: heldId } : {}),
        },
      },
      tx,
    );
  }

  async function noticeToSender(
    tx: DbOrTx,
    tenantId: string,
    to: string,
    key: string,
    mail: (brand: MailBrand) => ReturnType<typeof outboundHeldEmail>,
  ): Promise<string | null> {
    if (to === '') return null;
    const brand = mailBrand(await deps.brandOf(tenantId, tx));
    return deps.mailer.send(
      {
        tenantId,
        kind: 'outbound_notice',
        to,
        ...mail(brand),
        envelopeFrom: '',
        aboutOwnMail: true,
        idempotencyKey: key,
      },
      tx,
    );
  }

  /** Why a sender's mail looks like a compromised account's this hour, in words; null when it does not. */
  async function anomalyOf(tenantId: string, sender: string, recipients: number): Promise<string | null> {
    if (!deps.counters || sender === '') return null;
    const key = `outbound-sender:${tenantId}:${sender.toLowerCase()}`;
    const counted = await deps.counters.hitMany([
      { key: `${key}:msgs`, windowMs: HOUR_MS, limit: SENDER_MESSAGES_PER_HOUR },
      ...Array.from({ length: recipients }, () => ({
        key: `${key}:rcpts`,
        windowMs: HOUR_MS,
        limit: SENDER_RECIPIENTS_PER_HOUR,
      })),
    ]);
    const messages = counted[0]?.count ?? 0;
    const reached = Math.max(0, ...counted.slice(1).map((c) => c.count));
    if (messages > SENDER_MESSAGES_PER_HOUR)
      return `${sender} sent ${messages} messages in the last hour (more than ${SENDER_MESSAGES_PER_HOUR})`;
    if (reached > SENDER_RECIPIENTS_PER_HOUR)
      return `${sender} wrote to ${reached} recipients in the last hour (more than ${SENDER_RECIPIENTS_PER_HOUR})`;
    return null;
  }

  /** The audit entry of an admin's decision on held mail, on its transaction. */
  function auditDecision(
    tx: DbOrTx,
    actor: Actor,
    row: OutboundHeldRow,
    action: 'outbound.held_released' | 'outbound.held_declined',
  ) {
    return deps.audit.record(
      actor,
      {
        tenantId: row.tenantId,
        action,
        targetType: 'tenant',
        targetId: row.tenantId,
        details: { id: row.id, sender: row.envelopeFrom, recipients: row.recipients.length },
      },
      tx,
    );
  }

  /** Why held mail could not be decided: not there, or decided already. */
  async function undecidable(tenantId: string, id: string): Promise<Error> {
    const row = await deps.dlpRepo.heldById(tenantId, id);
    if (!row) return notFound('No such held message');
    return new AppError(
      'conflict',
      `This message was ${row.status} already${row.decidedBy ? ` by ${row.decidedBy}` : ''}`,
    );
  }

  /**
   * An admin's decision on held mail, once: the row moves from held, `then` queues what follows
   * (the deliveries, or the sender's notice) and the decision is audited, in one transaction; what
   * was queued is delivered after it commits.
   */
  async function decide(
    tenantId: string,
    id: string,
    status: 'released' | 'declined',
    actor: Actor,
    then: (tx: DbOrTx, row: OutboundHeldRow) => Promise<string[]>,
  ) {
    const { row, queued } = await deps.db.transaction(async (tx) => {
      const row = await deps.dlpRepo.decide(tenantId, id, status, actor.email ?? actor.type, clock.now(), tx);
      if (!row) return { row: null, queued: [] };
      const queued = await then(tx, row);
      await auditDecision(
        tx,
        actor,
        row,
        status === 'released' ? 'outbound.held_released' : 'outbound.held_declined',
      );
      return { row, queued };
    });
    if (!row) throw await undecidable(tenantId, id);
    for (const outboxId of queued)
      if (status === 'released') deps.mailer.deliverStored(outboxId, tenantId, OUTBOUND_KIND);
      else deps.mailer.deliverStored(outboxId);
    return heldView(row);
  }

  function heldView(row: Omit<OutboundHeldRow, 'raw'>) {
    return {
      id: row.id,
      sender: row.envelopeFrom,
      recipients: row.recipients,
      subject: row.subject,
      reason: row.reason,
      hits: row.hits,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      decidedAt: row.decidedAt?.toISOString() ?? null,
      decidedBy: row.decidedBy,
    };
  }

  return {
    /**
     * Take a submitted message: refused (its words, answered 554) when it carries malware, when a
     * DLP block entry names its sender or a recipient, or when DLP's action is refuse; held for an
     * admin when it is hold; otherwise queued. Events, the held copy and the deliveries are
     * stored in one transaction before the answer.
     */
    async submit(message: SubmittedMessage): Promise<SubmitOutcome> {
      const engines = (deps.scanEngines?.() ?? []).filter((e) => e.status === 'on');
      let parsed: ParsedMessage | null = null;
      let phishing: string[] = [];
      if (engines.length > 0) {
        const scan = await scanned(message, engines);
        parsed = scan.parsed;
        phishing = scan.phishing;
        if (scan.found.length > 0) {
          deps.log.info(
            { tenantId: message.tenantId, sender: message.envelopeFrom, reasons: scan.found },
            'outbound mail refused: malware',
          );
          return {
            refused: `5.7.1 Message refused: it carries malware (${scan.found[0]!.slice(0, 200)})`,
          };
        }
      }
      const recipients = [...new Set(message.recipients.map((r) => r.toLowerCase()))];
      const parsedOnce = async () => {
        parsed ??= await parseMessage(message.raw);
        return parsed;
      };
      const fromHeader = (await parsedOnce()).fromAddress.toLowerCase();
      const decision: DlpDecision = deps.dlp
        ? await deps.dlp.check(
            message.tenantId,
            {
              senders: [...new Set([message.envelopeFrom.toLowerCase(), fromHeader].filter(Boolean))],
              recipients,
            },
            async () => dlpContentOf(await parsedOnce()),
          )
        : { hits: [], action: null, exception: null };
      // A subject that holds what DLP found is not kept or repeated anywhere (events, held mail, notices).
      const subject = decision.hits.some((h) => h.places.includes('subject'))
        ? SUBJECT_WITHHELD
        : (parsed?.subject ?? headerField(message.raw, 'subject') ?? '').slice(0, 300);
      const id = randomUUID();
      const mustRecord = decision.hits.length > 0 || decision.exception?.list === 'block';

      if (decision.action === 'refuse') {
        await recordDlpEvent(deps.db, message, subject, decision);
        const blocked = decision.exception?.list === 'block';
        deps.log.info(
          { tenantId: message.tenantId, sender: message.envelopeFrom, blocked },
          'outbound mail refused: DLP',
        );
        return {
          refused: blocked
            ? '5.7.1 Message refused: your organisation does not allow this mail to leave (DLP exception)'
            : `5.7.1 Message refused: it appears to contain ${foundKinds(decision.hits).join(', ').slice(0, 200)}, which your organisation does not allow to leave by email`,
        };
      }

      const volume = await anomalyOf(message.tenantId, message.envelopeFrom, recipients.length);
      const anomaly =
        volume ??
        (phishing.length > 0
          ? `the message looks like phishing (${phishing.slice(0, 3).join('; ').slice(0, 400)})`
          : null);
      if (decision.action === 'hold' || anomaly) {
        const queued = await deps.db.transaction(async (tx) => {
          const held = await deps.dlpRepo.hold(
            {
              id,
              tenantId: message.tenantId,
              envelopeFrom: message.envelopeFrom,
              fromDomain: message.fromDomain,
              recipients,
              subject,
              clientAddress: message.clientAddress,
              raw: message.raw,
              reason: volume ? 'rate' : phishing.length > 0 ? 'phishing' : 'dlp',
              hits: decision.hits,
            },
            tx,
          );
          if (decision.hits.length > 0) await recordDlpEvent(tx, message, subject, decision, held.id);
          if (anomaly) {
            await deps.dlpRepo.recordEvent(
              {
                tenantId: message.tenantId,
                engine: volume ? 'gateway' : 'anti_phishing',
                verdict: volume ? 'suspicious' : 'phishing',
                severity: 'high',
                type: 'hold',
                description: `Outbound mail held: ${anomaly}, as a compromised account would send`.slice(
                  0,
                  1_000,
                ),
                recipient: recipients.join(', ').slice(0, 300),
                sender: message.envelopeFrom,
                subject,
                details: {
                  direction: 'outbound',
                  decision: {
                    verdict: volume ? 'suspicious' : 'phishing',
                    action: 'hold',
                    source: 'gateway',
                  },
                  outbound_held_id: held.id,
                },
              },
              tx,
            );
          }
          const notice = await noticeToSender(
            tx,
            message.tenantId,
            message.envelopeFrom,
            `outbound-held:${id}`,
            (brand) =>
              outboundHeldEmail(brand, {
                subject,
                recipients,
                found: foundIn(decision.hits, phishing.length > 0),
                unusual: volume !== null,
              }),
          );
          const alerts = (await deps.alerts?.raise(message.tenantId, 'outbound_hold', tx)) ?? [];
          return [...(notice ? [notice] : []), ...alerts];
        });
        for (const outboxId of queued) deps.mailer.deliverStored(outboxId);
        deps.log.info(
          { submissionId: id, tenantId: message.tenantId, anomaly },
          anomaly ? 'outbound mail held: unusual volume' : 'outbound mail held: DLP',
        );
        return { held: id };
      }

      const signed = await outgoingBytes({ ...message, id });
      const { ids, alerts } = await deps.db.transaction(async (tx) => {
        const ids = await enqueue(tx, { ...message, id, subject }, signed, recipients);
        if (mustRecord) await recordDlpEvent(tx, message, subject, decision);
        const alerts =
          decision.action === 'notify'
            ? ((await deps.alerts?.raise(message.tenantId, 'dlp_hit', tx)) ?? [])
            : [];
        return { ids, alerts };
      });
      for (const outboxId of ids) deps.mailer.deliverStored(outboxId, message.tenantId, OUTBOUND_KIND);
      deps.alerts?.deliver(alerts);
      deps.log.info(
        {
          submissionId: id,
          tenantId: message.tenantId,
          recipients: recipients.length,
          bytes: message.raw.length,
        },
        'outbound mail accepted',
      );
      return { queued: id };
    },

    async held(
      tenantId: string,
      query: {
        status?: OutboundHeldRow['status'] | undefined;
        limit?: number | undefined;
        offset?: number | undefined;
      },
    ) {
      const page = await deps.dlpRepo.heldOf(tenantId, query.status, {
        limit: query.limit ?? 50,
        offset: query.offset ?? 0,
      });
      return { total: page.total, items: page.rows.map(heldView) };
    },

    /** An admin sends held mail on: signed and queued now, once (a second release is refused). */
    async release(tenantId: string, id: string, actor: Actor) {
      const stored = await deps.dlpRepo.heldById(tenantId, id);
      if (stored?.status !== 'held') throw await undecidable(tenantId, id);
      const signed = await outgoingBytes({ ...stored, raw: Buffer.from(stored.raw) });
      return decide(tenantId, id, 'released', actor, (tx, row) => enqueue(tx, row, signed, row.recipients));
    },

    /** An admin declines held mail: it is never sent, and its sender is told. */
    async decline(tenantId: string, id: string, actor: Actor) {
      return decide(tenantId, id, 'declined', actor, async (tx, row) => {
        const notice = await noticeToSender(
          tx,
          tenantId,
          row.envelopeFrom,
          `outbound-declined:${row.id}`,
          (brand) =>
            outboundDeclinedEmail(brand, {
              subject: row.subject,
              recipients: row.recipients,
              found: foundIn(row.hits, row.reason === 'phishing'),
            }),
        );
        return notice ? [notice] : [];
      });
    },
  };
}
export type OutboundService = ReturnType<typeof createOutboundService>;
