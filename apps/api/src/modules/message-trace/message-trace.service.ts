import type { DeliveryStatus, MailLogEntry } from '@moat/contracts/mail-explorer';
import type {
  AuthCheck,
  MessageTrace,
  SpamExplanation,
  StoredMessageDetails,
  TraceEntry,
} from '@moat/contracts/message-trace';
import { PHISHING_POINTS, SUSPICIOUS_POINTS } from '../../engines/phishing/evidence.ts';
import { combinedSpamScore, spamParts } from '../../engines/spam/combine.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../../engines/types.ts';
import { AppError } from '../../errors.ts';
import type { MessageTraceRepo } from './message-trace.repo.ts';

type Outcome = TraceEntry['outcome'];
type LogEntry = NonNullable<Awaited<ReturnType<MessageTraceRepo['logEntry']>>>;
type Held = NonNullable<Awaited<ReturnType<MessageTraceRepo['held']>>>;
type Delivery = Awaited<ReturnType<MessageTraceRepo['deliveries']>>[number];
type History = Awaited<ReturnType<MessageTraceRepo['heldHistory']>>;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** An authentication result as good, bad or in between. */
function authOutcome(result: string): Outcome {
  if (result === 'pass') return 'good';
  if (result === 'fail' || result === 'permerror') return 'bad';
  return 'warn';
}

/** What each gateway action does, as the end of "the policy for … is to …". */
const ACTION_WORDS: Record<string, string> = {
  delivered: 'deliver it',
  delivered_banner: 'deliver it with a warning banner',
  attachments_removed: 'remove its attachments and deliver the rest',
  quarantined: 'quarantine it and notify the recipient',
  quarantined_silent: 'quarantine it without telling the recipient',
  failed: 'hold it unscanned for an admin',
};

/** What became of the message, as the first words of its explanation. */
const OUTCOME_WORDS: Record<string, string> = {
  delivered: 'Delivered',
  delivered_banner: 'Delivered with a warning banner',
  attachments_removed: 'Delivered without its attachments',
  quarantined: 'Held',
  quarantined_silent: 'Held silently',
  failed: 'Held unscanned',
};

/** What the gateway did with a message, in the trace's words. */
const LOGGED_ACTION_WORDS: Record<string, string> = {
  delivered: 'delivered',
  delivered_banner: 'delivered with a warning banner',
  attachments_removed: 'delivered without its attachments',
  quarantined: 'held',
  quarantined_silent: 'held without telling the recipient',
  failed: 'held, processing failed',
};

const ACTION_OUTCOME: Record<string, Outcome> = {
  delivered: 'good',
  delivered_banner: 'warn',
  attachments_removed: 'warn',
  quarantined: 'bad',
  quarantined_silent: 'bad',
  failed: 'bad',
};

/** The delivery state of an outbox row (as the Mail Explorer's `delivery`). */
function deliveryState(d: Delivery): DeliveryStatus {
  if (d.status === 'sent') return 'sent';
  if (d.status === 'bounced') return 'failed';
  if (d.status === 'failed' || d.lastError) return 'deferred';
  if (d.status === 'queued' || d.status === 'sending') return 'queued';
  return 'none';
}
const DELIVERY_OUTCOME: Record<DeliveryStatus, Outcome> = {
  sent: 'good',
  queued: 'info',
  deferred: 'warn',
  failed: 'bad',
  none: 'info',
};
const DELIVERY_WORDS: Record<DeliveryStatus, string> = {
  sent: 'sent',
  queued: 'queued',
  deferred: 'deferred, will be retried',
  failed: 'failed, given up',
  none: 'not sent',
};

function listOf(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** The verdict in plain words, from the verdict, the findings and what decided. */
export function explain(input: {
  verdict: string;
  action: string | null;
  findings: Array<{ engine: string; reason: string }>;
  source: string | null;
  lastError?: string | null;
  released: boolean;
  delivery: DeliveryStatus;
}): string {
  const { verdict, action, findings, source } = input;
  const sentences: string[] = [];
  // The first three reasons, each engine named once in words: "Anti-phishing found A; B".
  const byEngine = new Map<string, string[]>();
  for (const f of findings.filter((f) => f.engine !== 'policy').slice(0, 3)) {
    byEngine.set(f.engine, [...(byEngine.get(f.engine) ?? []), f.reason.replace(/[.\s]+$/, '')]);
  }
  const found = [...byEngine].map(
    ([engine, reasons]) => `${engineTitle(engine)} found ${reasons.join('; ')}`,
  );
  const opening = action ? OUTCOME_WORDS[action]! : 'Held';
  if (action === 'failed') {
    sentences.push(
      `${opening} because it could not be processed${input.lastError ? ` (${input.lastError})` : ''}; an admin can retry or release it.`,
    );
  } else if (source?.startsWith('block list:')) {
    // Rows written before the exceptions (issue 11) named the block list this way.
    sentences.push(
      `${opening} because the sender is on the organisation's block list (${source.slice(12)}).`,
    );
  } else if (source?.startsWith('Blocked by exception ')) {
    sentences.push(
      `${opening} because a block exception matches it (${source.slice('Blocked by exception '.length)}).`,
    );
  } else if (verdict === 'clean') {
    sentences.push(
      source?.startsWith('allow list:') || source?.startsWith('Allowed by exception ')
        ? `${opening}: the sender is on the allow list and proved its domain, and no malware was found.`
        : `${opening}: no engine found anything wrong with it.`,
    );
  } else {
    const why = found.length ? listOf(found) : `it was judged ${verdict}`;
    const policy = action
      ? source?.startsWith('override:') || source?.startsWith('known malware is never delivered')
        ? `known malware is never delivered, so it was quarantined whatever the policy says`
        : source?.startsWith('override on the Policy screen')
          ? `the Policy screen's override for this recipient is to ${ACTION_WORDS[action]}`
          : `the policy for ${verdict} is to ${ACTION_WORDS[action]}`
      : `it was judged ${verdict}`;
    sentences.push(`${opening} because ${why}; ${policy}.`);
  }
  if (input.released) sentences.push('It was later released to the recipient.');
  if (input.delivery === 'failed') sentences.push('The delivery failed and was given up.');
  else if (input.delivery === 'deferred') sentences.push('The delivery was deferred and is being retried.');
  return sentences.join(' ');
}

function authEntries(auth: Record<'spf' | 'dkim' | 'dmarc', AuthCheck>, at: string | null): TraceEntry[] {
  return (['spf', 'dkim', 'dmarc'] as const).map((check) => ({
    at,
    kind: 'authentication',
    title: `${check.toUpperCase()} ${auth[check].result}`,
    detail: auth[check].reason,
    outcome: authOutcome(auth[check].result),
  }));
}

function deliveryEntries(deliveries: Delivery[]): TraceEntry[] {
  return deliveries.map((d) => {
    const state = deliveryState(d);
    const facts = [
      `${d.kind.replace(/_/g, ' ')}, ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`,
      d.lastError ? `last error: ${d.lastError}` : '',
      state === 'deferred' && d.nextAttemptAt ? `next attempt ${d.nextAttemptAt.toISOString()}` : '',
    ].filter(Boolean);
    return {
      at: iso(d.sentAt ?? d.createdAt),
      kind: 'delivery',
      title: `Delivery to ${d.toAddress}: ${DELIVERY_WORDS[state]}`,
      detail: facts.join('; '),
      outcome: DELIVERY_OUTCOME[state],
    };
  });
}

function heldEntries(held: Held | null, history: History | null): TraceEntry[] {
  const entries: TraceEntry[] = [];
  if (held) {
    // Delivered without its attachments: so it still reads once the originals were released.
    const stripped =
      held.state === 'attachments_removed' ||
      (history?.released.some((r) => r.kind === 'original') ?? false) ||
      (history?.requests.some((r) => r.kind === 'original') ?? false);
    entries.push({
      at: iso(held.createdAt),
      kind: 'hold',
      title: stripped ? 'Attachments held in quarantine' : 'Held in quarantine',
      detail: [
        held.reasons.join('; '),
        held.silent ? 'the recipient was not told' : 'the recipient was notified',
      ]
        .filter(Boolean)
        .join('; '),
      outcome: 'bad',
    });
  }
  if (!history) return entries;
  for (const e of history.events) {
    entries.push({
      at: iso(e.createdAt),
      kind: 'event',
      title: `Security event: ${e.verdict} (${e.engine.split(',').map(engineTitle).join(', ')}, ${e.severity})`,
      detail: e.description,
      outcome: 'info',
    });
  }
  for (const r of history.requests) {
    entries.push({
      at: iso(r.createdAt),
      kind: 'request',
      title: `Release requested by ${r.requestedBy}`,
      detail: [`${r.kind}, ${r.mode}`, r.commentary].filter(Boolean).join('; '),
      outcome: 'info',
    });
    if (r.decidedAt && (r.status === 'declined' || r.status === 'approved' || r.status === 'restored')) {
      entries.push({
        at: iso(r.decidedAt),
        kind: 'request',
        title: r.status === 'declined' ? 'Request declined' : 'Request approved',
        detail: r.declineReason ?? '',
        outcome: r.status === 'declined' ? 'warn' : 'good',
      });
    }
  }
  for (const r of history.released) {
    entries.push({
      at: iso(r.createdAt),
      kind: 'release',
      title: `Released by ${r.releasedBy}`,
      detail: r.kind === 'email' ? 'the whole message' : r.kind.replace(/_/g, ' '),
      outcome: 'good',
    });
  }
  return entries;
}

/** The spam score's make-up from what the gateway kept; null when no scoring engine scanned it. */
/** The engines' names in a timeline's words. */
const ENGINE_TITLE: Record<string, string> = {
  anti_phishing: 'Anti-phishing',
  anti_malware: 'Anti-malware',
  anti_spam: 'Anti-spam',
  moat_spam: 'Moat anti-spam',
  rspamd: 'rspamd',
  spamassassin: 'SpamAssassin',
  clamav: 'ClamAV',
  dnsbl: 'DNS blocklists',
  gateway: 'Gateway',
};

const engineTitle = (engine: string) => ENGINE_TITLE[engine.trim()] ?? engine.trim().replace(/_/g, ' ');

/** Anti-phishing's evidence with its points, when it found any (findings kept since issue 35). */
export function phishingExplanation(details: StoredMessageDetails): Partial<Pick<MessageTrace, 'phishing'>> {
  const rules = (details.findings ?? [])
    .filter((f) => f.engine === 'anti_phishing' && f.points !== undefined)
    .map((f) => ({ name: f.rule ?? '', score: f.points!, description: f.reason }));
  if (rules.length === 0) return {};
  const points = Math.round(rules.reduce((sum, r) => sum + r.score, 0) * 10) / 10;
  return {
    phishing: { points, thresholds: { suspicious: SUSPICIOUS_POINTS, phishing: PHISHING_POINTS }, rules },
  };
}

export function spamExplanation(
  details: StoredMessageDetails,
  learned: 'spam' | 'ham' | null,
  learnable: boolean,
): SpamExplanation | null {
  if (!details.scores?.length) return null;
  const parts = spamParts(details.scores);
  return {
    score: combinedSpamScore(details.scores),
    thresholds: details.spam_thresholds ?? DEFAULT_SPAM_THRESHOLDS,
    engines: details.scores.map(({ engine, score, rules }, i) => ({
      engine,
      score,
      weight: parts[i]!.weight,
      rules,
    })),
    learned,
    learnable,
  };
}

const byTime = (a: TraceEntry, b: TraceEntry) => (a.at ?? '').localeCompare(b.at ?? '');

/** The message trace: one message's story from the SMTP session to its delivery or release. */
export function createMessageTraceService(deps: {
  repo: MessageTraceRepo;
  /** How the tenant taught its anti-spam engine this message, if it did. */
  learnedLabel: (tenantId: string, messageKey: string) => Promise<'spam' | 'ham' | null>;
}) {
  const { repo } = deps;

  async function fromLog(tenantId: string, row: LogEntry): Promise<MessageTrace> {
    const details = row.details as StoredMessageDetails;
    const [inbound, held, history, learned] = await Promise.all([
      repo.inbound(row.inboundId),
      row.quarantineMessageId ? repo.held(tenantId, row.quarantineMessageId) : Promise.resolve(null),
      row.quarantineMessageId ? repo.heldHistory(tenantId, row.quarantineMessageId) : Promise.resolve(null),
      deps.learnedLabel(tenantId, row.inboundId),
    ]);
    const deliveries = await repo.deliveries(
      tenantId,
      [`${row.inboundId}:${row.recipient}`],
      (history?.released ?? []).flatMap((r) => (r.outboxId ? [r.outboxId] : [])),
    );
    const processedAt = iso(inbound?.processedAt);
    const received = details.received;
    const auth = details.auth ?? {
      spf: { result: row.spf, reason: '' },
      dkim: { result: row.dkim, reason: '' },
      dmarc: { result: row.dmarc, reason: '' },
    };
    const findings: NonNullable<StoredMessageDetails['findings']> =
      details.findings ?? row.reasons.map((reason) => ({ engine: 'gateway', verdict: row.verdict, reason }));
    const source = details.decision?.source ?? null;

    const opening: TraceEntry[] = [
      {
        at: iso(row.receivedAt),
        kind: 'received',
        title: received ? `Received from ${received.client_ip}` : 'Received',
        detail: received
          ? [
              `HELO ${received.helo || '(none)'}`,
              received.tls ? `TLS ${received.tls.protocol} ${received.tls.cipher}`.trim() : 'without TLS',
              `MAIL FROM <${received.mail_from}>`,
              `RCPT TO ${received.rcpt_to.map((r) => `<${r}>`).join(', ')}`,
              `${row.size} bytes`,
            ].join('; ')
          : `${row.size} bytes`,
        outcome: received && !received.tls ? 'warn' : 'info',
      },
    ];
    if (row.action !== 'failed') opening.push(...authEntries(auth, processedAt));
    if (row.action === 'failed') {
      opening.push({
        at: processedAt,
        kind: 'engine',
        title: `Processing failed after ${inbound?.attempts ?? 0} attempts`,
        detail: inbound?.lastError ?? row.reasons.join('; '),
        outcome: 'bad',
      });
    } else if (findings.length === 0) {
      opening.push({
        at: processedAt,
        kind: 'engine',
        title: 'No engine found anything',
        detail: 'every engine that is on scanned the message',
        outcome: 'good',
      });
    } else {
      for (const f of findings) {
        opening.push({
          at: processedAt,
          kind: 'engine',
          title: `${engineTitle(f.engine)}: ${f.verdict}${
            f.points !== undefined ? ` (${f.points > 0 ? '+' : ''}${f.points} points)` : ''
          }`,
          detail: f.reason,
          outcome: f.verdict === 'clean' ? 'good' : 'bad',
        });
      }
    }
    opening.push({
      at: processedAt,
      kind: 'decision',
      title: `Decision: ${row.verdict}, ${LOGGED_ACTION_WORDS[row.action] ?? row.action.replace(/_/g, ' ')}`,
      detail:
        source ??
        `Judged ${row.verdict}: ${LOGGED_ACTION_WORDS[row.action] ?? row.action.replace(/_/g, ' ')}`,
      outcome: ACTION_OUTCOME[row.action] ?? 'info',
    });
    const rest = [...heldEntries(held, history), ...deliveryEntries(deliveries)].sort(byTime);
    return {
      message: {
        mail_log_id: row.id,
        inbound_id: row.inboundId,
        quarantine_message_id: row.quarantineMessageId,
        received_at: row.receivedAt.toISOString(),
        sender: row.sender,
        sender_name: row.senderName,
        recipient: row.recipient,
        subject: row.subject,
        message_id: row.messageIdHeader,
        verdict: row.verdict as MailLogEntry['verdict'],
        action: row.action as MailLogEntry['action'],
        size: row.size,
        delivery: row.delivery,
      },
      explanation: explain({
        verdict: row.verdict,
        action: row.action,
        findings,
        source,
        lastError: row.action === 'failed' ? inbound?.lastError : null,
        released: (history?.released.length ?? 0) > 0,
        delivery: row.delivery,
      }),
      auth: row.action === 'failed' ? null : auth,
      spam: spamExplanation(details, learned, Boolean(details.spam_tokens || row.quarantineMessageId)),
      ...phishingExplanation(details),
      timeline: [...opening, ...rest],
    };
  }

  return {
    /** The trace of a Mail Explorer row of the tenant. */
    async byMailLog(tenantId: string, id: string): Promise<MessageTrace> {
      const row = await repo.logEntry(tenantId, { id });
      if (!row) throw new AppError('not_found', 'No such message');
      return fromLog(tenantId, row);
    },

    /** The trace of a held message of the tenant: from its Mail Explorer row, else from the held copy. */
    async byHeld(tenantId: string, id: string): Promise<MessageTrace> {
      const row = await repo.logEntry(tenantId, { heldId: id });
      if (row) return fromLog(tenantId, row);
      const held = await repo.held(tenantId, id);
      if (!held) throw new AppError('not_found', 'No such message');
      const history = await repo.heldHistory(tenantId, id);
      const deliveries = await repo.deliveries(
        tenantId,
        [],
        history.released.flatMap((r) => (r.outboxId ? [r.outboxId] : [])),
      );
      const latest = deliveries.at(-1);
      const delivery = latest ? deliveryState(latest) : 'none';
      return {
        message: {
          mail_log_id: null,
          quarantine_message_id: held.id,
          received_at: held.receivedAt.toISOString(),
          sender: held.sender,
          sender_name: held.senderName,
          recipient: held.recipient,
          subject: held.subject,
          message_id: held.messageIdHeader,
          verdict: held.verdict,
          action: null,
          size: held.size,
          delivery,
        },
        explanation: explain({
          verdict: held.verdict,
          action: null,
          findings: held.reasons.map((reason) => ({ engine: 'a check', reason })),
          source: null,
          released: history.released.length > 0,
          delivery,
        }),
        auth: null,
        spam: null,
        timeline: [
          {
            at: iso(held.receivedAt),
            kind: 'received',
            title: 'Received',
            detail: `${held.size} bytes`,
            outcome: 'info',
          },
          ...[...heldEntries(held, history), ...deliveryEntries(deliveries)].sort(byTime),
        ],
      };
    },
  };
}
export type MessageTraceService = ReturnType<typeof createMessageTraceService>;
