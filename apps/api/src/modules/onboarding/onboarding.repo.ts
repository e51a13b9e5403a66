import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { pendingDomains } from '../../db/schema.ts';

/** Domains an admin added from the console that wait for their TXT proof (onboarding.service.ts). */
export function createOnboardingRepo(db: DbOrTx) {
  return {
    async pendingOf(tenantId: string, tx?: DbOrTx) {
      return (tx ?? db)
        .select({ domain: pendingDomains.domain, token: pendingDomains.token })
        .from(pendingDomains)
        .where(eq(pendingDomains.tenantId, tenantId))
        .orderBy(asc(pendingDomains.createdAt), asc(pendingDomains.domain));
    },
    async pendingCount(tenantId: string, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db)
        .select({ n: count() })
        .from(pendingDomains)
        .where(eq(pendingDomains.tenantId, tenantId));
      return row?.n ?? 0;
    },
    /** Adds the domain with `token`, or keeps the one it has (the same record stays valid). */
    async addPending(tenantId: string, domain: string, token: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(pendingDomains).values({ tenantId, domain, token }).onConflictDoNothing();
    },
    async removePending(tenantId: string, domain: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .delete(pendingDomains)
        .where(and(eq(pendingDomains.tenantId, tenantId), eq(pendingDomains.domain, domain)));
    },
  };
}
export type OnboardingRepo = ReturnType<typeof createOnboardingRepo>;
