import type { MailExplorerList } from '@moat/contracts/mail-explorer';
import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { mailLog } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

type Entry = MailExplorerList['items'][number];

export interface MailLogFilter {
  verdict?: Entry['verdict'] | undefined;
  action?: Entry['action'] | undefined;
  /** Words anywhere in the subject, sender name, sender or recipient. */
  q?: string | undefined;
}

/** The columns the Mail Explorer shows (the row's other columns stay in the database). */
const listed = {
  id: mailLog.id,
  receivedAt: mailLog.receivedAt,
  sender: mailLog.sender,
  senderName: mailLog.senderName,
  recipient: mailLog.recipient,
  subject: mailLog.subject,
  verdict: mailLog.verdict,
  action: mailLog.action,
  reasons: mailLog.reasons,
  spf: mailLog.spf,
  dkim: mailLog.dkim,
  dmarc: mailLog.dmarc,
  size: mailLog.size,
  attachments: mailLog.attachments,
  quarantineMessageId: mailLog.quarantineMessageId,
};
export type MailLogRow = Omit<
  Pick<typeof mailLog.$inferSelect, keyof typeof listed>,
  'verdict' | 'action'
> & {
  // The table's check constraints keep both within the contract's lists.
  verdict: Entry['verdict'];
  action: Entry['action'];
};

export function createMailExplorerRepo(db: DbOrTx) {
  return {
    /** One page of the tenant's mail log, newest first, and how many rows match in all. */
    async page(
      tenantId: string,
      filter: MailLogFilter,
      page: { limit: number; offset: number },
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: MailLogRow[] }> {
      const where: SQL[] = [eq(mailLog.tenantId, tenantId)];
      if (filter.verdict) where.push(eq(mailLog.verdict, filter.verdict));
      if (filter.action) where.push(eq(mailLog.action, filter.action));
      if (filter.q) {
        where.push(
          sql`(${mailLog.subject} || ' ' || ${mailLog.senderName} || ' ' || ${mailLog.sender} || ' ' || ${mailLog.recipient}) ilike ${containsPattern(filter.q)}`,
        );
      }
      const q = tx ?? db;
      const [rows, [total]] = await Promise.all([
        q
          .select(listed)
          .from(mailLog)
          .where(and(...where))
          .orderBy(desc(mailLog.receivedAt), desc(mailLog.id))
          .limit(page.limit)
          .offset(page.offset),
        q
          .select({ n: count() })
          .from(mailLog)
          .where(and(...where)),
      ]);
      return { total: Number(total?.n ?? 0), rows: rows as MailLogRow[] };
    },
  };
}
export type MailExplorerRepo = ReturnType<typeof createMailExplorerRepo>;
