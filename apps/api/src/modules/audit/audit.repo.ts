import type { AuditAction, AuditSort, AuditTargetType } from '@moat/contracts/audit';
import type { SortDirection } from '@moat/contracts/list';
import { type AnyColumn, and, count, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import { auditLog } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

export interface AuditEvent {
  tenantId: string | null;
  action: AuditAction;
  targetType?: AuditTargetType | null;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/** System Logs' filters; text filters match anywhere, the action also as a prefix (`user.`). */
export interface AuditFilter {
  q?: string | undefined;
  actor?: string | undefined;
  actorType?: string | undefined;
  action?: string | undefined;
  target?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Only what this user did (a plain user sees no one else's actions). */
  actorUserId?: string | undefined;
}

export type AuditRow = typeof auditLog.$inferSelect;

/** Who acted, as one word: the address of a user, else the kind of actor. */
const actorWord = sql<string>`coalesce(${auditLog.actorEmail}, ${auditLog.actorType})`;
const targetWords = sql<string>`(coalesce(${auditLog.targetType}, '') || ' ' || coalesce(${auditLog.targetId}, ''))`;

const SORTED: Record<AuditSort, AnyColumn | SQL> = {
  created_at: auditLog.createdAt,
  action: auditLog.action,
  actor: actorWord,
};

/** The audit log only grows: there is deliberately no update or delete here (and the database forbids them). */
export function createAuditRepo(db: DbOrTx) {
  function whereOf(tenantId: string, filter: AuditFilter): SQL | undefined {
    const where: (SQL | undefined)[] = [eq(auditLog.tenantId, tenantId)];
    if (filter.actor) where.push(sql`${actorWord} ilike ${containsPattern(filter.actor)}`);
    if (filter.actorUserId) where.push(eq(auditLog.actorUserId, filter.actorUserId));
    if (filter.actorType) where.push(eq(auditLog.actorType, filter.actorType));
    if (filter.action) where.push(sql`${auditLog.action} ilike ${containsPattern(filter.action)}`);
    if (filter.target) where.push(sql`${targetWords} ilike ${containsPattern(filter.target)}`);
    if (filter.from) where.push(gte(auditLog.createdAt, filter.from));
    if (filter.to) where.push(lt(auditLog.createdAt, filter.to));
    if (filter.q) {
      where.push(
        sql`(${actorWord} || ' ' || ${auditLog.action} || ' ' || ${targetWords} || ' ' || coalesce(${auditLog.ip}, '') || ' ' || ${auditLog.details}::text) ilike ${containsPattern(filter.q)}`,
      );
    }
    return and(...where);
  }

  return {
    async record(actor: Actor, event: AuditEvent, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(auditLog).values({
        tenantId: event.tenantId,
        actorType: actor.type,
        actorUserId: actor.userId ?? null,
        actorEmail: actor.email ?? null,
        ip: actor.ip ?? null,
        action: event.action,
        targetType: event.targetType ?? null,
        targetId: event.targetId ?? null,
        details: event.details ?? {},
      });
    },

    /** One page of the tenant's entries, and how many match. */
    async page(
      tenantId: string,
      filter: AuditFilter,
      page: { limit: number; offset: number; sort: AuditSort; dir: SortDirection },
    ): Promise<{ total: number; rows: AuditRow[] }> {
      const where = whereOf(tenantId, filter);
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(auditLog)
          .where(where)
          .orderBy(...orderOf(SORTED[page.sort], page.dir, auditLog.id))
          .limit(page.limit)
          .offset(page.offset),
        db.select({ n: count() }).from(auditLog).where(where),
      ]);
      return { total: Number(total?.n ?? 0), rows };
    },
  };
}
export type AuditRepo = ReturnType<typeof createAuditRepo>;
