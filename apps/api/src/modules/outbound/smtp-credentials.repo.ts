import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.ts';
import { smtpCredentials } from '../../db/schema.ts';

export type SmtpCredentialRow = typeof smtpCredentials.$inferSelect;

/** The SMTP AUTH credentials of outbound submission (issue 38). */
export function createSmtpCredentialsRepo(db: Db) {
  return {
    async insert(
      row: { tenantId: string; username: string; passwordHash: string; label: string },
      tx?: DbOrTx,
    ): Promise<SmtpCredentialRow> {
      const [created] = await (tx ?? db).insert(smtpCredentials).values(row).returning();
      return created!;
    },
    async listOf(tenantId: string, tx?: DbOrTx): Promise<SmtpCredentialRow[]> {
      return (tx ?? db)
        .select()
        .from(smtpCredentials)
        .where(eq(smtpCredentials.tenantId, tenantId))
        .orderBy(asc(smtpCredentials.createdAt), asc(smtpCredentials.username));
    },
    /** A credential that is not revoked, by its user name. */
    async findActive(username: string, tx?: DbOrTx): Promise<SmtpCredentialRow | null> {
      const [row] = await (tx ?? db)
        .select()
        .from(smtpCredentials)
        .where(and(eq(smtpCredentials.username, username), isNull(smtpCredentials.revokedAt)));
      return row ?? null;
    },
    async isActive(id: string, tx?: DbOrTx): Promise<boolean> {
      const [row] = await (tx ?? db)
        .select({ id: smtpCredentials.id })
        .from(smtpCredentials)
        .where(and(eq(smtpCredentials.id, id), isNull(smtpCredentials.revokedAt)));
      return row !== undefined;
    },
    async touch(id: string, at: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).update(smtpCredentials).set({ lastUsedAt: at }).where(eq(smtpCredentials.id, id));
    },
    /** Revoke one of the tenant's credentials; false when it has none by that id (or it was revoked). */
    async revoke(tenantId: string, id: string, at: Date, tx?: DbOrTx): Promise<SmtpCredentialRow | null> {
      const [row] = await (tx ?? db)
        .update(smtpCredentials)
        .set({ revokedAt: at })
        .where(
          and(
            eq(smtpCredentials.tenantId, tenantId),
            eq(smtpCredentials.id, id),
            isNull(smtpCredentials.revokedAt),
          ),
        )
        .returning();
      return row ?? null;
    },
  };
}
export type SmtpCredentialsRepo = ReturnType<typeof createSmtpCredentialsRepo>;
