import type { SortDirection } from '@moat/contracts/list';
import type {
  PhishingReport,
  REPORT_SORTS,
  ReportKind,
  ReportStatus,
} from '@moat/contracts/phishing-reports';
import { type AnyColumn, and, count, eq, gte, inArray, lt, ne, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import { phishingReports, quarantineMessages, senderLists, tenantDomains } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

type Sort = (typeof REPORT_SORTS)[number];

export interface ReportFilter {
  status?: ReportStatus | undefined;
  kind?: ReportKind | undefined;
  q?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

const SORTED: Record<Sort, AnyColumn | SQL> = {
  created_at: phishingReports.createdAt,
  reporter: phishingReports.reporter,
  sender: sql`lower(${quarantineMessages.sender})`,
  subject: sql`lower(${quarantineMessages.subject})`,
  status: phishingReports.status,
};

const listed = {
  id: phishingReports.id,
  createdAt: phishingReports.createdAt,
  reporter: phishingReports.reporter,
  kind: phishingReports.kind,
  status: phishingReports.status,
  blockSender: phishingReports.blockSender,
  decidedAt: phishingReports.decidedAt,
  messageId: phishingReports.messageId,
  sender: quarantineMessages.sender,
  subject: quarantineMessages.subject,
  verdict: quarantineMessages.verdict,
  receivedAt: quarantineMessages.receivedAt,
};
export interface ReportRow {
  id: string;
  createdAt: Date;
  reporter: string;
  kind: ReportKind;
  status: ReportStatus;
  blockSender: boolean;
  decidedAt: Date | null;
  messageId: string;
  sender: string;
  subject: string;
  verdict: PhishingReport['verdict'];
  receivedAt: Date;
}

/** A report with what deciding it needs of its message. */
export interface ReportToDecide {
  id: string;
  tenantId: string;
  status: ReportStatus;
  kind: ReportKind;
  reporter: string;
  messageId: string;
  sender: string;
  subject: string;
  messageIdHeader: string | null;
  rawSha256: string;
}

export function createPhishingReportsRepo(db: DbOrTx) {
  return {
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    /** A recipient's report: its id, or null when they have an open one of this message already. */
    async insertReport(
      report: { tenantId: string; messageId: string; reporter: string; kind: ReportKind; createdAt: Date },
      tx?: DbOrTx,
    ): Promise<string | null> {
      const [row] = await (tx ?? db)
        .insert(phishingReports)
        .values(report)
        .onConflictDoNothing()
        .returning({ id: phishingReports.id });
      return row?.id ?? null;
    },

    /** Whether someone reported this held message as phishing and no admin has decided yet. */
    async openPhishingReport(messageId: string, tx?: DbOrTx): Promise<boolean> {
      const [row] = await (tx ?? db)
        .select({ id: phishingReports.id })
        .from(phishingReports)
        .where(
          and(
            eq(phishingReports.messageId, messageId),
            eq(phishingReports.kind, 'reported_phishing'),
            eq(phishingReports.status, 'open'),
          ),
        )
        .limit(1);
      return row !== undefined;
    },

    async page(
      tenantId: string,
      filter: ReportFilter,
      page: { limit: number; offset: number; sort: Sort; dir: SortDirection },
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: ReportRow[] }> {
      const where: SQL[] = [eq(phishingReports.tenantId, tenantId)];
      if (filter.status) where.push(eq(phishingReports.status, filter.status));
      if (filter.kind) where.push(eq(phishingReports.kind, filter.kind));
      if (filter.from) where.push(gte(phishingReports.createdAt, filter.from));
      if (filter.to) where.push(lt(phishingReports.createdAt, filter.to));
      if (filter.q)
        where.push(
          sql`(${quarantineMessages.subject} || ' ' || ${quarantineMessages.sender} || ' ' || ${phishingReports.reporter}) ilike ${containsPattern(filter.q)}`,
        );
      const q = tx ?? db;
      const [rows, [total]] = await Promise.all([
        q
          .select(listed)
          .from(phishingReports)
          .innerJoin(quarantineMessages, eq(quarantineMessages.id, phishingReports.messageId))
          .where(and(...where))
          .orderBy(...orderOf(SORTED[page.sort], page.dir, phishingReports.id))
          .limit(page.limit)
          .offset(page.offset),
        q
          .select({ n: count() })
          .from(phishingReports)
          .innerJoin(quarantineMessages, eq(quarantineMessages.id, phishingReports.messageId))
          .where(and(...where)),
      ]);
      return { total: Number(total?.n ?? 0), rows: rows as ReportRow[] };
    },

    /** One of the tenant's reports, locked for the decision (another tenant's is not found). */
    async reportToDecide(tenantId: string, id: string, tx: DbOrTx): Promise<ReportToDecide | null> {
      const [row] = await tx
        .select({
          id: phishingReports.id,
          tenantId: phishingReports.tenantId,
          status: phishingReports.status,
          kind: phishingReports.kind,
          reporter: phishingReports.reporter,
          messageId: phishingReports.messageId,
          sender: quarantineMessages.sender,
          subject: quarantineMessages.subject,
          messageIdHeader: quarantineMessages.messageIdHeader,
          rawSha256: quarantineMessages.rawSha256,
        })
        .from(phishingReports)
        .innerJoin(quarantineMessages, eq(quarantineMessages.id, phishingReports.messageId))
        .where(and(eq(phishingReports.tenantId, tenantId), eq(phishingReports.id, id)))
        .for('update', { of: phishingReports });
      return row ?? null;
    },

    /**
     * Decide a report and every other open one of the same message or of `copies` (other
     * recipients' copies of it: the same question).
     */
    async decide(
      report: ReportToDecide,
      copies: string[],
      decision: { status: 'confirmed' | 'dismissed'; by: string; at: Date; blockSender: boolean },
      tx: DbOrTx,
    ): Promise<Array<{ id: string; reporter: string; kind: ReportKind }>> {
      return tx
        .update(phishingReports)
        .set({
          status: decision.status,
          decidedBy: decision.by,
          decidedAt: decision.at,
          blockSender: decision.blockSender,
        })
        .where(
          and(
            eq(phishingReports.tenantId, report.tenantId),
            eq(phishingReports.status, 'open'),
            or(
              eq(phishingReports.id, report.id),
              inArray(phishingReports.messageId, [report.messageId, ...copies]),
            ),
          ),
        )
        .returning({
          id: phishingReports.id,
          reporter: phishingReports.reporter,
          kind: phishingReports.kind,
        });
    },

    /**
     * Hide every copy of a message in the tenant (each recipient's): the copies with its
     * Message-ID from the same sender (a Message-ID alone is the sender's to choose: a forged one
     * must not pull other people's mail), or with its exact bytes when it has none. A hidden copy
     * is `deleted`: out of every quarantine list and no longer restorable from the public pages.
     * Returns their ids.
     */
    async hideCopies(
      m: {
        tenantId: string;
        messageId: string;
        messageIdHeader: string | null;
        rawSha256: string;
        sender: string;
      },
      tx: DbOrTx,
    ): Promise<string[]> {
      const same = m.messageIdHeader
        ? and(
            eq(quarantineMessages.messageIdHeader, m.messageIdHeader),
            sql`lower(${quarantineMessages.sender}) = ${m.sender.toLowerCase()}`,
          )
        : eq(quarantineMessages.rawSha256, m.rawSha256);
      const rows = await tx
        .update(quarantineMessages)
        .set({ state: 'deleted' })
        .where(
          and(
            eq(quarantineMessages.tenantId, m.tenantId),
            ne(quarantineMessages.state, 'deleted'),
            sql`(${quarantineMessages.id} = ${m.messageId} or ${same})`,
          ),
        )
        .returning({ id: quarantineMessages.id });
      return rows.map((r) => r.id);
    },

    /** Hide the reported copy only (`deleted`, as `hideCopies` does for every copy). */
    async hideOne(tenantId: string, messageId: string, tx: DbOrTx): Promise<string[]> {
      const rows = await tx
        .update(quarantineMessages)
        .set({ state: 'deleted' })
        .where(
          and(
            eq(quarantineMessages.tenantId, tenantId),
            eq(quarantineMessages.id, messageId),
            ne(quarantineMessages.state, 'deleted'),
          ),
        )
        .returning({ id: quarantineMessages.id });
      return rows.map((r) => r.id);
    },

    /** The tenant's own mail domains. */
    async ownDomains(tenantId: string, tx: DbOrTx): Promise<string[]> {
      const rows = await tx
        .select({ domain: tenantDomains.domain })
        .from(tenantDomains)
        .where(eq(tenantDomains.tenantId, tenantId));
      return rows.map((r) => r.domain);
    },

    /** A block entry for the sender; an expired entry of it comes back to life. */
    async blockSender(tenantId: string, value: string, tx: DbOrTx): Promise<void> {
      await tx
        .insert(senderLists)
        .values({ tenantId, list: 'block', value })
        .onConflictDoUpdate({
          target: [senderLists.tenantId, senderLists.list, senderLists.value],
          set: { expiresAt: null },
          setWhere: sql`${senderLists.expiresAt} is not null`,
        });
    },
  };
}
export type PhishingReportsRepo = ReturnType<typeof createPhishingReportsRepo>;
