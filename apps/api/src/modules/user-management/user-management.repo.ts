import type { SortDirection } from '@moat/contracts/list';
import type { UserSort } from '@moat/contracts/users';
import { type AnyColumn, and, count, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import { users } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';
import type { UserRow } from '../users/users.repo.ts';

export interface UserFilter {
  q?: string | undefined;
  role?: string | undefined;
  status?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export type ListedUser = UserRow & { lastSignInAt: Date | null };

/** The latest session a user opened: their last sign-in. */
// Written out in full: inside a subquery drizzle would leave the columns unqualified.
const lastSignIn = sql<Date | null>`(select max(s."created_at") from "sessions" s where s."user_id" = "users"."id")`;

/** A raw aggregate comes back as text: the date is made here. */
const listedOf = (r: { user: UserRow; lastSignInAt: Date | string | null }): ListedUser => ({
  ...r.user,
  lastSignInAt: r.lastSignInAt ? new Date(r.lastSignInAt) : null,
});

const SORTED: Record<UserSort, AnyColumn | SQL> = {
  email: users.email,
  role: users.role,
  created_at: users.createdAt,
  last_sign_in_at: sql`coalesce(${lastSignIn}, '-infinity'::timestamptz)`,
};

/** User Management's reads and the checks its changes need (the writes go through the users repo). */
export function createUserManagementRepo(db: DbOrTx) {
  return {
    async page(
      tenantId: string,
      filter: UserFilter,
      page: { limit: number; offset: number; sort: UserSort; dir: SortDirection },
    ): Promise<{ total: number; rows: ListedUser[] }> {
      const where: (SQL | undefined)[] = [eq(users.tenantId, tenantId)];
      if (filter.role) where.push(eq(users.role, filter.role as UserRow['role']));
      if (filter.status) where.push(eq(users.status, filter.status as UserRow['status']));
      if (filter.from) where.push(gte(users.createdAt, filter.from));
      if (filter.to) where.push(lt(users.createdAt, filter.to));
      if (filter.q) {
        where.push(
          sql`(${users.email} || ' ' || ${users.firstName} || ' ' || ${users.lastName}) ilike ${containsPattern(filter.q)}`,
        );
      }
      const condition = and(...where);
      const [rows, [total]] = await Promise.all([
        db
          .select({ user: users, lastSignInAt: lastSignIn })
          .from(users)
          .where(condition)
          .orderBy(...orderOf(SORTED[page.sort], page.dir, users.id))
          .limit(page.limit)
          .offset(page.offset),
        db.select({ n: count() }).from(users).where(condition),
      ]);
      return {
        total: Number(total?.n ?? 0),
        rows: rows.map(listedOf),
      };
    },

    /** One user of the tenant as the list shows them; null for none (or another tenant's). */
    async one(tenantId: string, id: string): Promise<ListedUser | null> {
      const [row] = await db
        .select({ user: users, lastSignInAt: lastSignIn })
        .from(users)
        .where(and(eq(users.tenantId, tenantId), eq(users.id, id)));
      return row ? listedOf(row) : null;
    },

    /** One user of the tenant, locked for the change being made. */
    async lockUser(tenantId: string, id: string, tx: DbOrTx): Promise<UserRow | null> {
      const [row] = await tx
        .select()
        .from(users)
        .where(and(eq(users.tenantId, tenantId), eq(users.id, id)))
        .for('update');
      return row ?? null;
    },

    /**
     * The tenant's active admins, locked: two admins demoting or disabling each other at once
     * cannot both pass the last-admin check.
     */
    async lockActiveAdmins(tenantId: string, tx: DbOrTx): Promise<string[]> {
      const rows = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.tenantId, tenantId), eq(users.role, 'admin'), eq(users.status, 'active')))
        .orderBy(users.id)
        .for('update');
      return rows.map((r) => r.id);
    },
  };
}
export type UserManagementRepo = ReturnType<typeof createUserManagementRepo>;
