import type {
  ExceptionKind,
  ExceptionList,
  ExceptionScope,
  ExceptionSort,
  StoredExceptionScope,
} from '@moat/contracts/exceptions';
import type { SortDirection } from '@moat/contracts/list';
import { type AnyColumn, and, count, eq, gt, gte, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import { senderLists } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

export interface ExceptionFilter {
  list?: ExceptionList | undefined;
  kind?: ExceptionKind | undefined;
  /** A page's entries: that scope's and those for every engine. */
  scope?: ExceptionScope | undefined;
  q?: string | undefined;
  /** Created at or after / before. */
  from?: Date | undefined;
  to?: Date | undefined;
  /** Leave out entries expired at this time (unset: list them all). */
  liveAt?: Date | undefined;
}

export interface ExceptionRow {
  id: string;
  list: ExceptionList;
  kind: ExceptionKind;
  scope: StoredExceptionScope;
  value: string;
  comment: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export type NewException = Omit<ExceptionRow, 'id' | 'createdAt'>;

const listed = {
  id: senderLists.id,
  list: senderLists.list,
  kind: senderLists.kind,
  scope: senderLists.scope,
  value: senderLists.value,
  comment: senderLists.comment,
  createdBy: senderLists.createdBy,
  createdAt: senderLists.createdAt,
  expiresAt: senderLists.expiresAt,
};

class AlreadyListed extends Error {}

/** Expiry sorts with the entries that never expire last (ascending) or first (descending). */
const SORTED: Record<ExceptionSort, AnyColumn | SQL> = {
  created_at: senderLists.createdAt,
  value: senderLists.value,
  kind: senderLists.kind,
  expires_at: sql`coalesce(${senderLists.expiresAt}, 'infinity'::timestamptz)`,
};

/** A tenant's exception entries (the sender_lists table, which the gateway reads). */
export function createExceptionsRepo(db: DbOrTx) {
  function whereOf(tenantId: string, filter: ExceptionFilter): SQL | undefined {
    const where: (SQL | undefined)[] = [eq(senderLists.tenantId, tenantId)];
    if (filter.list) where.push(eq(senderLists.list, filter.list));
    if (filter.kind) where.push(eq(senderLists.kind, filter.kind));
    // DLP's page is about outbound mail: entries for every (inbound) engine are not its own.
    if (filter.scope === 'dlp') where.push(eq(senderLists.scope, 'dlp'));
    else if (filter.scope && filter.scope !== 'all')
      where.push(inArray(senderLists.scope, [filter.scope, 'all']));
    if (filter.from) where.push(gte(senderLists.createdAt, filter.from));
    if (filter.to) where.push(lt(senderLists.createdAt, filter.to));
    if (filter.liveAt)
      where.push(or(isNull(senderLists.expiresAt), gt(senderLists.expiresAt, filter.liveAt)));
    if (filter.q) {
      where.push(
        sql`(${senderLists.value} || ' ' || ${senderLists.comment} || ' ' || ${senderLists.createdBy}) ilike ${containsPattern(filter.q)}`,
      );
    }
    return and(...where);
  }

  return {
    async page(
      tenantId: string,
      filter: ExceptionFilter,
      page: { limit: number; offset: number; sort: ExceptionSort; dir: SortDirection },
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: ExceptionRow[] }> {
      const q = tx ?? db;
      const where = whereOf(tenantId, filter);
      const [rows, [total]] = await Promise.all([
        q
          .select(listed)
          .from(senderLists)
          .where(where)
          .orderBy(...orderOf(SORTED[page.sort], page.dir, senderLists.id))
          .limit(page.limit)
          .offset(page.offset),
        q.select({ n: count() }).from(senderLists).where(where),
      ]);
      return { total: Number(total?.n ?? 0), rows: rows as ExceptionRow[] };
    },

    /** The entries of these (list, value) pairs that exist already (a value is on a list once). */
    async existing(
      tenantId: string,
      pairs: Array<{ list: ExceptionList; value: string }>,
      tx?: DbOrTx,
    ): Promise<Array<{ list: ExceptionList; value: string; scope: StoredExceptionScope }>> {
      if (pairs.length === 0) return [];
      const rows = await (tx ?? db)
        .select({ list: senderLists.list, value: senderLists.value, scope: senderLists.scope })
        .from(senderLists)
        .where(
          and(
            eq(senderLists.tenantId, tenantId),
            inArray(
              senderLists.value,
              pairs.map((p) => p.value),
            ),
          ),
        );
      const wanted = new Set(pairs.map((p) => `${p.list}\n${p.value}`));
      return (rows as Array<{ list: ExceptionList; value: string; scope: StoredExceptionScope }>).filter(
        (r) => wanted.has(`${r.list}\n${r.value}`),
      );
    },

    /** How many entries of this kind the tenant has (expired ones too: they can be revived). */
    async countOfKind(tenantId: string, kind: ExceptionKind, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db)
        .select({ n: count() })
        .from(senderLists)
        .where(and(eq(senderLists.tenantId, tenantId), eq(senderLists.kind, kind)));
      return Number(row?.n ?? 0);
    },

    /** Insert the entries; none is inserted if one of them is on its list already (null then). */
    async insertAll(tenantId: string, entries: NewException[], tx?: DbOrTx): Promise<ExceptionRow[] | null> {
      if (entries.length === 0) return [];
      try {
        return await (tx ?? db).transaction(async (t) => {
          const rows = await t
            .insert(senderLists)
            .values(entries.map((e) => ({ tenantId, ...e })))
            .onConflictDoNothing()
            .returning(listed);
          // One was there already (written meanwhile): undo the others.
          if (rows.length !== entries.length) throw new AlreadyListed();
          return rows as ExceptionRow[];
        });
      } catch (error) {
        if (error instanceof AlreadyListed) return null;
        throw error;
      }
    },

    /** Delete one of the tenant's entries; the deleted row, or null when the tenant has no such entry. */
    async remove(tenantId: string, id: string, tx?: DbOrTx): Promise<ExceptionRow | null> {
      const [row] = await (tx ?? db)
        .delete(senderLists)
        .where(and(eq(senderLists.tenantId, tenantId), eq(senderLists.id, id)))
        .returning(listed);
      return (row as ExceptionRow | undefined) ?? null;
    },
  };
}
export type ExceptionsRepo = ReturnType<typeof createExceptionsRepo>;
