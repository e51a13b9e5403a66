import { CSV_EXPORT_MAX_ROWS } from '@moat/contracts/list';
import type {
  ModifiedAttachmentsList,
  modifiedAttachmentsQuerySchema,
  summaryQuerySchema,
  UserInteractionSummary,
} from '@moat/contracts/phishing-reports';
import type { RestoreStatus } from '@moat/contracts/quarantine';
import type { z } from 'zod';
import { type CsvColumn, toCsv } from '../../lib/csv.ts';
import type { AlertsRepo } from '../alerts/alerts.repo.ts';
import type { AttachmentFilter, AttachmentRow, UserInteractionRepo } from './user-interaction.repo.ts';

type AttachmentsQuery = z.output<typeof modifiedAttachmentsQuerySchema>;
type Entry = ModifiedAttachmentsList['items'][number];

const DAY_MS = 86_400_000;

/** The UTC days from `from` to before `to`, as YYYY-MM-DD. */
function daysOf(from: Date, to: Date): string[] {
  const days: string[] = [];
  let at = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  while (at < to.getTime()) {
    days.push(new Date(at).toISOString().slice(0, 10));
    at += DAY_MS;
  }
  return days;
}

const filterOf = (q: AttachmentsQuery): AttachmentFilter => ({
  state: q.state,
  q: q.q,
  from: q.from ? new Date(q.from) : undefined,
  to: q.to ? new Date(q.to) : undefined,
});

function entryOf(r: AttachmentRow): Entry {
  return {
    id: r.id,
    filename: r.filename,
    content_type: r.contentType,
    size: r.size,
    state: r.state,
    message_id: r.messageId,
    received_at: r.receivedAt.toISOString(),
    sender: r.sender,
    recipient: r.recipient,
    subject: r.subject,
    verdict: r.verdict,
    restore_status: r.released ? 'restored' : ((r.requestStatus as RestoreStatus | null) ?? 'quarantined'),
  };
}

const CSV_COLUMNS: CsvColumn<Entry>[] = [
  { header: 'received_at', value: (e) => e.received_at },
  { header: 'filename', value: (e) => e.filename },
  { header: 'content_type', value: (e) => e.content_type },
  { header: 'size', value: (e) => e.size },
  { header: 'state', value: (e) => e.state },
  { header: 'sender', value: (e) => e.sender },
  { header: 'recipient', value: (e) => e.recipient },
  { header: 'subject', value: (e) => e.subject },
  { header: 'verdict', value: (e) => e.verdict },
  { header: 'restore_status', value: (e) => e.restore_status },
];

/** The User Interaction dashboard and Modified Attachments (issue 11). */
export function createUserInteractionService(deps: {
  repo: UserInteractionRepo;
  alerts: Pick<AlertsRepo, 'waiting'>;
}) {
  const { repo } = deps;
  return {
    async summary(
      tenantId: string,
      query: z.output<typeof summaryQuerySchema>,
    ): Promise<UserInteractionSummary> {
      const from = new Date(query.from);
      const to = new Date(query.to);
      const [perDay, times, waiting] = await Promise.all([
        repo.perDay(tenantId, from, to),
        repo.decisionTimes(tenantId, from, to),
        deps.alerts.waiting(tenantId),
      ]);
      const byDay = new Map(perDay.map((d) => [d.day, d]));
      const days = daysOf(from, to).map((day) => ({
        day,
        restore_requests: byDay.get(day)?.requests ?? 0,
        reports: byDay.get(day)?.reports ?? 0,
      }));
      return {
        days,
        totals: {
          restore_requests: perDay.reduce((n, d) => n + d.requests, 0),
          reports: perDay.reduce((n, d) => n + d.reports, 0),
        },
        waiting_requests: waiting.waitingRequests,
        open_reports: waiting.openReports,
        decision: {
          decided: times.decided,
          median_seconds: times.median === null ? null : Math.round(times.median),
          average_seconds: times.average === null ? null : Math.round(times.average),
        },
      };
    },

    async modifiedAttachments(tenantId: string, query: AttachmentsQuery): Promise<ModifiedAttachmentsList> {
      const { total, rows } = await repo.attachments(tenantId, filterOf(query), query);
      return { total, items: rows.map(entryOf) };
    },

    async modifiedAttachmentsCsv(tenantId: string, query: AttachmentsQuery): Promise<string> {
      const { rows } = await repo.attachments(tenantId, filterOf(query), {
        ...query,
        limit: CSV_EXPORT_MAX_ROWS,
        offset: 0,
      });
      return toCsv(CSV_COLUMNS, rows.map(entryOf));
    },
  };
}
export type UserInteractionService = ReturnType<typeof createUserInteractionService>;
