import { and, eq, gt, lte } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { ssoConfigs, ssoRequests, ssoUsedAssertions } from '../../db/schema.ts';

export type SsoProvider = 'saml' | 'microsoft' | 'google';
export type SsoConfigRow = typeof ssoConfigs.$inferSelect;
export type SsoRequestRow = typeof ssoRequests.$inferSelect;

/** Each tenant's identity providers, the sign-in requests in flight and the assertions used. */
export function createSsoRepo(db: DbOrTx) {
  return {
    async config(tenantId: string, provider: SsoProvider): Promise<SsoConfigRow | null> {
      const [row] = await db
        .select()
        .from(ssoConfigs)
        .where(and(eq(ssoConfigs.tenantId, tenantId), eq(ssoConfigs.provider, provider)));
      return row ?? null;
    },
    async saveConfig(
      tenantId: string,
      provider: SsoProvider,
      values: { enabled: boolean; settings: Record<string, unknown>; secret?: string | null },
      now: Date,
      tx?: DbOrTx,
    ): Promise<void> {
      await (tx ?? db)
        .insert(ssoConfigs)
        .values({ tenantId, provider, ...values, updatedAt: now })
        .onConflictDoUpdate({
          target: [ssoConfigs.tenantId, ssoConfigs.provider],
          set: { ...values, updatedAt: now },
        });
    },
    /** The providers some tenant signs in with (the public sign-in page's buttons): one query. */
    async enabledProviders(): Promise<Set<SsoProvider>> {
      const rows = await db
        .select({ provider: ssoConfigs.provider })
        .from(ssoConfigs)
        .where(eq(ssoConfigs.enabled, true))
        .groupBy(ssoConfigs.provider);
      return new Set(rows.map((r) => r.provider as SsoProvider));
    },

    async saveRequest(values: typeof ssoRequests.$inferInsert): Promise<void> {
      await db.insert(ssoRequests).values(values);
    },
    async findRequest(
      id: string,
      tenantId: string,
      provider: SsoProvider,
      now: Date,
    ): Promise<string | null> {
      const [row] = await db
        .select({ value: ssoRequests.value })
        .from(ssoRequests)
        .where(
          and(
            eq(ssoRequests.id, id),
            eq(ssoRequests.tenantId, tenantId),
            eq(ssoRequests.provider, provider),
            gt(ssoRequests.expiresAt, now),
          ),
        );
      return row?.value ?? null;
    },
    /** The browser binding of a live request of this tenant (null: no such request). */
    async browserOf(id: string, tenantId: string, now: Date): Promise<string | null> {
      const [row] = await db
        .select({ browser: ssoRequests.browser })
        .from(ssoRequests)
        .where(
          and(eq(ssoRequests.id, id), eq(ssoRequests.tenantId, tenantId), gt(ssoRequests.expiresAt, now)),
        );
      return row?.browser ?? null;
    },
    /** Take a live request of this provider out, whatever its tenant (an OIDC state): once. */
    async takeRequest(id: string, provider: SsoProvider, now: Date): Promise<SsoRequestRow | null> {
      const [row] = await db
        .delete(ssoRequests)
        .where(and(eq(ssoRequests.id, id), eq(ssoRequests.provider, provider)))
        .returning();
      return row && row.expiresAt > now ? row : null;
    },
    /** Take a request out: a response to it is taken once. */
    async removeRequest(id: string, tenantId: string): Promise<string | null> {
      const [row] = await db
        .delete(ssoRequests)
        .where(and(eq(ssoRequests.id, id), eq(ssoRequests.tenantId, tenantId)))
        .returning({ value: ssoRequests.value });
      return row?.value ?? null;
    },
    /** Remember an assertion until it expires: false when it was used before (a replay). */
    async useAssertion(key: string, expiresAt: Date): Promise<boolean> {
      const rows = await db
        .insert(ssoUsedAssertions)
        .values({ key, expiresAt })
        .onConflictDoNothing({ target: ssoUsedAssertions.key })
        .returning({ key: ssoUsedAssertions.key });
      return rows.length === 1;
    },
    async purgeExpired(now: Date): Promise<void> {
      await db.delete(ssoRequests).where(lte(ssoRequests.expiresAt, now));
      await db.delete(ssoUsedAssertions).where(lte(ssoUsedAssertions.expiresAt, now));
    },
  };
}
export type SsoRepo = ReturnType<typeof createSsoRepo>;
