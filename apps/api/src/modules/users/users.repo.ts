import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { users } from '../../db/schema.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

export function createUsersRepo(db: DbOrTx) {
  return {
    async insert(values: NewUser, tx?: DbOrTx): Promise<UserRow> {
      const [row] = await (tx ?? db).insert(users).values(values).returning();
      return row!;
    },
    async findByEmail(email: string, tx?: DbOrTx): Promise<UserRow | null> {
      const [row] = await (tx ?? db).select().from(users).where(eq(users.email, email.toLowerCase()));
      return row ?? null;
    },
    async update(id: string, values: Partial<NewUser>, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .update(users)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(users.id, id));
    },
    /** Record an accepted TOTP step, only if it is newer than the last one: false means a replay. */
    async acceptTotpStep(id: string, step: number, tx?: DbOrTx): Promise<boolean> {
      const rows = await (tx ?? db)
        .update(users)
        .set({ mfaLastStep: step })
        .where(and(eq(users.id, id), or(isNull(users.mfaLastStep), lt(users.mfaLastStep, step))))
        .returning({ id: users.id });
      return rows.length === 1;
    },
    async findByInviteHash(inviteTokenHash: string, tx?: DbOrTx): Promise<UserRow | null> {
      const [row] = await (tx ?? db).select().from(users).where(eq(users.inviteTokenHash, inviteTokenHash));
      return row ?? null;
    },
    /** The tenant's people by name and address, for the gateway's impersonation checks. */
    async peopleOf(tenantId: string, tx?: DbOrTx): Promise<Array<{ name: string; email: string }>> {
      const rows = await (tx ?? db)
        .select({ first: users.firstName, last: users.lastName, email: users.email })
        .from(users)
        .where(eq(users.tenantId, tenantId));
      return rows.map((r) => ({ name: `${r.first} ${r.last}`.trim(), email: r.email }));
    },
    async findById(id: string, tx?: DbOrTx): Promise<UserRow | null> {
      const [row] = await (tx ?? db).select().from(users).where(eq(users.id, id));
      return row ?? null;
    },
  };
}
export type UsersRepo = ReturnType<typeof createUsersRepo>;
