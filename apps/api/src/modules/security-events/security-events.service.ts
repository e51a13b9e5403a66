import { CSV_EXPORT_MAX_ROWS } from '@moat/contracts/list';
import type {
  HistoryEntry,
  SecurityEvent,
  SecurityEventDetail,
  SecurityEventList,
  securityEventsQuerySchema,
} from '@moat/contracts/security-events';
import type { z } from 'zod';
import { AppError } from '../../errors.ts';
import { type CsvColumn, toCsv } from '../../lib/csv.ts';
import type { EventFilter, EventRow, SecurityEventsRepo } from './security-events.repo.ts';

type Query = z.output<typeof securityEventsQuerySchema>;

/**
 * Whose events a reader sees: an admin every event of the tenant; a plain user (SPEC §2.4 shows
 * Events to every role) only those of mail sent to their own address, like the Overview's counts.
 */
export interface Reader {
  tenantId: string;
  /** Null for an admin; the user's address otherwise. */
  ownRecipient: string | null;
}

function filterOf(reader: Reader, query: Query): EventFilter {
  return {
    type: query.type,
    verdict: query.verdict,
    severity: query.severity,
    engine: query.engine || undefined,
    recipient: query.recipient || undefined,
    sender: query.sender || undefined,
    ownRecipient: reader.ownRecipient ?? undefined,
    q: query.q,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
  };
}

function eventOf(r: EventRow): SecurityEvent {
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    type: r.type,
    engine: r.engine,
    verdict: r.verdict,
    severity: r.severity,
    description: r.description,
    recipient: r.recipient,
    sender: r.sender,
    subject: r.subject,
    quarantine_message_id: r.messageId,
  };
}

const CSV_COLUMNS: CsvColumn<SecurityEvent>[] = [
  { header: 'created_at', value: (e) => e.created_at },
  { header: 'type', value: (e) => e.type },
  { header: 'severity', value: (e) => e.severity },
  { header: 'verdict', value: (e) => e.verdict },
  { header: 'engine', value: (e) => e.engine },
  { header: 'recipient', value: (e) => e.recipient },
  { header: 'sender', value: (e) => e.sender },
  { header: 'subject', value: (e) => e.subject },
  { header: 'description', value: (e) => e.description },
  { header: 'id', value: (e) => e.id },
];

/** The Events screen: the tenant's security events, one event's evidence and its message's story. */
export function createSecurityEventsService(deps: {
  repo: Pick<SecurityEventsRepo, 'page' | 'eventIn' | 'historyOf' | 'mailLogIdOf'>;
}) {
  const { repo } = deps;
  return {
    async list(reader: Reader, query: Query): Promise<SecurityEventList> {
      const { total, rows } = await repo.page(reader.tenantId, filterOf(reader, query), query);
      const items = rows.map(eventOf);
      return {
        total,
        items:
          reader.ownRecipient === null ? items : items.map((e) => ({ ...e, quarantine_message_id: null })),
      };
    },

    async exportCsv(reader: Reader, query: Query): Promise<string> {
      const { rows } = await repo.page(reader.tenantId, filterOf(reader, query), {
        ...query,
        limit: CSV_EXPORT_MAX_ROWS,
        offset: 0,
      });
      return toCsv(CSV_COLUMNS, rows.map(eventOf));
    },

    /** One event: what was found by which engine, which policy decided what, and what happened since. */
    async detail(reader: Reader, id: string): Promise<SecurityEventDetail> {
      const row = await repo.eventIn(reader.tenantId, id, reader.ownRecipient ?? undefined);
      if (!row) throw new AppError('not_found', 'No such event');
      const history: HistoryEntry[] = [];
      if (row.messageId) {
        const { events, requests, released } = await repo.historyOf(reader.tenantId, row.messageId);
        for (const e of events) {
          history.push({
            at: e.createdAt.toISOString(),
            kind: 'event',
            event_id: e.id,
            status: e.type,
            description: e.description,
          });
        }
        for (const r of requests) {
          const who = r.requestedBy;
          history.push({
            at: r.createdAt.toISOString(),
            kind: 'restore_request',
            event_id: null,
            status: 'requested',
            description: `${who} asked to restore the ${r.kind === 'email' ? 'message' : 'original attachments'}`,
          });
          if (r.decidedAt && r.status !== 'requested') {
            history.push({
              at: r.decidedAt.toISOString(),
              kind: 'restore_request',
              event_id: null,
              status: r.status,
              description:
                r.status === 'declined'
                  ? `The request was declined${r.declineReason ? `: ${r.declineReason}` : ''}`
                  : r.status === 'restored'
                    ? 'The request was approved and the message restored'
                    : `The request was ${r.status}`,
            });
          }
        }
        for (const r of released) {
          history.push({
            at: r.createdAt.toISOString(),
            kind: 'release',
            event_id: null,
            status: r.kind,
            description:
              r.kind === 'email'
                ? 'Released to the recipient'
                : 'Original attachments released to the recipient',
          });
        }
        history.sort((a, b) => a.at.localeCompare(b.at));
      } else {
        history.push({
          at: row.createdAt.toISOString(),
          kind: 'event',
          event_id: row.id,
          status: row.type,
          description: row.description,
        });
      }
      // The trace page and Quarantined Items are admins' pages: a plain user is not sent there.
      const admin = reader.ownRecipient === null;
      return {
        event: { ...eventOf(row), quarantine_message_id: admin ? row.messageId : null },
        findings: row.details.findings ?? [],
        decision: row.details.decision ?? null,
        history,
        mail_log_id: admin ? await repo.mailLogIdOf(reader.tenantId, row) : null,
      };
    },
  };
}
export type SecurityEventsService = ReturnType<typeof createSecurityEventsService>;
