import { CSV_EXPORT_MAX_ROWS } from '@moat/contracts/list';
import type { MailExplorerList, mailExplorerQuerySchema } from '@moat/contracts/mail-explorer';
import type { z } from 'zod';
import { type CsvColumn, toCsv } from '../../lib/csv.ts';
import type { MailExplorerRepo, MailLogFilter, MailLogRow } from './mail-explorer.repo.ts';

type Query = z.output<typeof mailExplorerQuerySchema>;
type Entry = MailExplorerList['items'][number];

function filterOf(query: Query): MailLogFilter {
  return {
    verdict: query.verdict,
    action: query.action,
    q: query.q,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    messageId: query.message_id,
    delivery: query.delivery,
  };
}

function entryOf(r: MailLogRow): Entry {
  return {
    id: r.id,
    received_at: r.receivedAt.toISOString(),
    sender: r.sender,
    sender_name: r.senderName,
    recipient: r.recipient,
    subject: r.subject,
    message_id: r.messageIdHeader,
    verdict: r.verdict,
    action: r.action,
    reasons: r.reasons,
    spf: r.spf,
    dkim: r.dkim,
    dmarc: r.dmarc,
    size: r.size,
    attachments: r.attachments,
    quarantine_message_id: r.quarantineMessageId,
    delivery: r.delivery,
  };
}

/** The columns of the CSV export, in the order of the screen. */
const CSV_COLUMNS: CsvColumn<Entry>[] = [
  { header: 'received_at', value: (e) => e.received_at },
  { header: 'sender', value: (e) => e.sender },
  { header: 'sender_name', value: (e) => e.sender_name },
  { header: 'recipient', value: (e) => e.recipient },
  { header: 'subject', value: (e) => e.subject },
  { header: 'message_id', value: (e) => e.message_id },
  { header: 'verdict', value: (e) => e.verdict },
  { header: 'action', value: (e) => e.action },
  { header: 'delivery', value: (e) => e.delivery },
  { header: 'reasons', value: (e) => e.reasons },
  { header: 'spf', value: (e) => e.spf },
  { header: 'dkim', value: (e) => e.dkim },
  { header: 'dmarc', value: (e) => e.dmarc },
  { header: 'size', value: (e) => e.size },
  { header: 'attachments', value: (e) => e.attachments },
];

/** Mail Explorer: every message the gateway processed for the tenant. */
export function createMailExplorerService(deps: { repo: Pick<MailExplorerRepo, 'page'> }) {
  return {
    async list(tenantId: string, query: Query): Promise<MailExplorerList> {
      const { total, rows } = await deps.repo.page(tenantId, filterOf(query), query);
      return { total, items: rows.map(entryOf) };
    },

    /** The list's rows under the same filters and sort, as CSV (at most CSV_EXPORT_MAX_ROWS). */
    async exportCsv(tenantId: string, query: Query): Promise<string> {
      const { rows } = await deps.repo.page(tenantId, filterOf(query), {
        ...query,
        limit: CSV_EXPORT_MAX_ROWS,
        offset: 0,
      });
      return toCsv(CSV_COLUMNS, rows.map(entryOf));
    },
  };
}
export type MailExplorerService = ReturnType<typeof createMailExplorerService>;
