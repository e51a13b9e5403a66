import { CSV_EXPORT_MAX_ROWS } from '@moat/contracts/list';
import type { ReportDecision, ReportsList, reportsQuerySchema } from '@moat/contracts/phishing-reports';
import { reportSettingsFrom } from '@moat/contracts/user-interaction-settings';
import type { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { type CsvColumn, toCsv } from '../../lib/csv.ts';
import { isOwnDomain } from '../../lib/own-domain.ts';
import { reportOutcomeEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { TenantSettings } from '../tenants/tenant-settings.ts';
import type { PhishingReportsRepo, ReportFilter, ReportRow } from './phishing-reports.repo.ts';

type Query = z.output<typeof reportsQuerySchema>;
type Entry = ReportsList['items'][number];

const filterOf = (q: Query): ReportFilter => ({
  status: q.status,
  kind: q.kind,
  q: q.q,
  from: q.from ? new Date(q.from) : undefined,
  to: q.to ? new Date(q.to) : undefined,
});

function entryOf(r: ReportRow): Entry {
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    reporter: r.reporter,
    kind: r.kind,
    status: r.status,
    block_sender: r.blockSender,
    decided_at: r.decidedAt?.toISOString() ?? null,
    message_id: r.messageId,
    sender: r.sender,
    subject: r.subject,
    verdict: r.verdict,
    received_at: r.receivedAt.toISOString(),
  };
}

const CSV_COLUMNS: CsvColumn<Entry>[] = [
  { header: 'reported_at', value: (e) => e.created_at },
  { header: 'reporter', value: (e) => e.reporter },
  { header: 'kind', value: (e) => e.kind },
  { header: 'status', value: (e) => e.status },
  { header: 'sender', value: (e) => e.sender },
  { header: 'subject', value: (e) => e.subject },
  { header: 'verdict', value: (e) => e.verdict },
  { header: 'received_at', value: (e) => e.received_at },
  { header: 'decided_at', value: (e) => e.decided_at },
  { header: 'block_sender', value: (e) => e.block_sender },
];

/**
 * Phishing Reports (issue 11): the queue of what recipients reported from the action page. What a
 * confirmation does is the tenant's (Settings → User Interaction → Phishing Reports): it hides
 * every recipient's held copy or the reported one, blocks the sender when the admin asks, always
 * or never, and teaches the anti-spam engine unless turned off; a dismissal marks it safe. Each
 * reporter of that message is told once, in the tenant's words, unless it turned that off.
 */
export function createPhishingReportsService(deps: {
  repo: PhishingReportsRepo;
  audit: Pick<AuditRepo, 'record'>;
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  settings: Pick<TenantSettings, 'tenantById'>;
  clock: Clock;
  /** A confirmed report teaches the anti-spam engine the message is unwanted (issue 13). */
  learnConfirmed?: (tenantId: string, heldId: string, actor: Actor & { userId: string }) => Promise<void>;
  /** A confirmed report: the delivered copies of the message are retracted from mailboxes (issue 36). */
  confirmed?: (tenantId: string, reportId: string, heldId: string, actor: Actor) => Promise<void>;
}) {
  const { repo, clock } = deps;

  async function decide(
    tenantId: string,
    id: string,
    actor: Actor & { userId: string },
    outcome: 'confirmed' | 'dismissed',
    blockSender: boolean,
  ): Promise<ReportDecision> {
    const tenant = await deps.settings.tenantById(tenantId);
    const brand = mailBrand(tenant);
    const settings = reportSettingsFrom(tenant?.reportSettings);
    if (outcome === 'confirmed' && settings.block_sender === 'never' && blockSender) {
      throw new AppError(
        'validation_error',
        'Blocking the sender on confirmation is turned off in Settings → User Interaction → Phishing Reports',
        [{ field: 'body.block_sender', message: 'block_sender_off' }],
      );
    }
    const block = outcome === 'confirmed' && (settings.block_sender === 'always' || blockSender);
    const outbox: string[] = [];
    const hidden = await repo.transaction(async (tx) => {
      const report = await repo.reportToDecide(tenantId, id, tx);
      if (!report) throw new AppError('not_found', 'Report not found');
      if (report.status !== 'open') throw new AppError('conflict', `The report is ${report.status} already`);
      // A confirmation hides every recipient's copy (or the reported one), and answers their reports of it too.
      const hiddenIds =
        outcome !== 'confirmed'
          ? []
          : settings.confirm_scope === 'all_copies'
            ? await repo.hideCopies({ ...report, tenantId }, tx)
            : await repo.hideOne(tenantId, report.messageId, tx);
      const hiddenCount = hiddenIds.length;
      const decided = await repo.decide(
        report,
        hiddenIds,
        {
          status: outcome,
          by: actor.userId,
          at: clock.now(),
          blockSender: block,
        },
        tx,
      );
      // Never an empty sender (a bounce) nor one of the organisation's own domains (a spoofed From).
      const sender = report.sender.toLowerCase();
      if (block && sender.includes('@') && !isOwnDomain(sender, await repo.ownDomains(tenantId, tx))) {
        await repo.blockSender(tenantId, sender, tx);
      }
      for (const r of settings.verdict_email ? decided : []) {
        outbox.push(
          await deps.mailer.send(
            {
              tenantId,
              kind: 'report_outcome',
              to: r.reporter,
              ...reportOutcomeEmail(brand, {
                subject: report.subject,
                sender: report.sender,
                kind: r.kind,
                outcome,
                text: outcome === 'confirmed' ? settings.confirmed_text : settings.dismissed_text,
                scope: settings.confirm_scope,
              }),
            },
            tx,
          ),
        );
      }
      await deps.audit.record(
        actor,
        {
          tenantId,
          action: outcome === 'confirmed' ? 'phishing_report.confirm' : 'phishing_report.dismiss',
          targetType: 'phishing_report',
          targetId: report.id,
          details: {
            message_id: report.messageId,
            reports: decided.length,
            hidden: hiddenCount,
            ...(outcome === 'confirmed'
              ? { block_sender: block, sender: report.sender, scope: settings.confirm_scope }
              : {}),
            reporters_told: settings.verdict_email,
          },
        },
        tx,
      );
      return { hiddenCount, heldId: report.messageId };
    });
    for (const outboxId of outbox) deps.mailer.deliverStored(outboxId);
    if (outcome === 'confirmed' && settings.learn)
      await deps.learnConfirmed?.(tenantId, hidden.heldId, actor);
    if (outcome === 'confirmed') await deps.confirmed?.(tenantId, id, hidden.heldId, actor);
    return { status: outcome, hidden: hidden.hiddenCount };
  }

  return {
    async list(tenantId: string, query: Query): Promise<ReportsList> {
      const { total, rows } = await repo.page(tenantId, filterOf(query), query);
      return { total, items: rows.map(entryOf) };
    },

    async exportCsv(tenantId: string, query: Query): Promise<string> {
      const { rows } = await repo.page(tenantId, filterOf(query), {
        ...query,
        limit: CSV_EXPORT_MAX_ROWS,
        offset: 0,
      });
      return toCsv(CSV_COLUMNS, rows.map(entryOf));
    },

    confirm: (tenantId: string, id: string, actor: Actor & { userId: string }, blockSender: boolean) =>
      decide(tenantId, id, actor, 'confirmed', blockSender),
    dismiss: (tenantId: string, id: string, actor: Actor & { userId: string }) =>
      decide(tenantId, id, actor, 'dismissed', false),
  };
}
export type PhishingReportsService = ReturnType<typeof createPhishingReportsService>;
