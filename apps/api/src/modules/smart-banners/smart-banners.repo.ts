import type { Verdict } from '@moat/contracts/quarantine';
import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { gatewayPolicies, quarantineMessages, tenants } from '../../db/schema.ts';

/** A held message the preview can show (its bytes are read only for the one previewed). */
export interface SampleRow {
  id: string;
  receivedAt: Date;
  recipient: string;
  sender: string;
  subject: string;
  verdict: string;
}

/** Smart Banners: the tenant's stored banner settings, the policy's actions, the messages to preview. */
export function createSmartBannersRepo(db: DbOrTx) {
  return {
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    /** The stored settings (`tenants.banner_settings`), or null for no such tenant. */
    async settingsOf(tenantId: string, tx?: DbOrTx): Promise<Record<string, unknown> | null> {
      const [row] = await (tx ?? db)
        .select({ settings: tenants.bannerSettings })
        .from(tenants)
        .where(eq(tenants.id, tenantId));
      return row ? row.settings : null;
    },

    async saveSettings(tenantId: string, settings: Record<string, unknown>, tx: DbOrTx): Promise<void> {
      await tx
        .update(tenants)
        .set({ bannerSettings: settings, updatedAt: new Date() })
        .where(eq(tenants.id, tenantId));
    },

    /** The tenant's stored action per verdict (verdicts without one use the default policy). */
    async actionsOf(tenantId: string, tx?: DbOrTx): Promise<Partial<Record<Verdict, string>>> {
      const rows = await (tx ?? db)
        .select({ verdict: gatewayPolicies.verdict, action: gatewayPolicies.action })
        .from(gatewayPolicies)
        .where(eq(gatewayPolicies.tenantId, tenantId));
      return Object.fromEntries(rows.map((r) => [r.verdict, r.action]));
    },

    /** The tenant's newest messages Moat holds a copy of (held or stripped, not deleted). */
    async samples(tenantId: string, limit: number, tx?: DbOrTx): Promise<SampleRow[]> {
      return (tx ?? db)
        .select({
          id: quarantineMessages.id,
          receivedAt: quarantineMessages.receivedAt,
          recipient: quarantineMessages.recipient,
          sender: quarantineMessages.sender,
          subject: quarantineMessages.subject,
          verdict: quarantineMessages.verdict,
        })
        .from(quarantineMessages)
        .where(
          and(
            eq(quarantineMessages.tenantId, tenantId),
            ne(quarantineMessages.state, 'deleted'),
            sql`octet_length(${quarantineMessages.raw}) > 0`,
          ),
        )
        .orderBy(desc(quarantineMessages.receivedAt), desc(quarantineMessages.id))
        .limit(limit);
    },

    /** One of the tenant's held messages with its bytes (another tenant's is not found). */
    async messageOf(
      tenantId: string,
      id: string,
      tx?: DbOrTx,
    ): Promise<{ raw: Uint8Array; verdict: string; reasons: string[]; recipient: string } | null> {
      const [row] = await (tx ?? db)
        .select({
          raw: quarantineMessages.raw,
          verdict: quarantineMessages.verdict,
          reasons: quarantineMessages.reasons,
          recipient: quarantineMessages.recipient,
        })
        .from(quarantineMessages)
        .where(
          and(
            eq(quarantineMessages.tenantId, tenantId),
            eq(quarantineMessages.id, id),
            ne(quarantineMessages.state, 'deleted'),
          ),
        );
      return row && row.raw.length > 0 ? row : null;
    },
  };
}
export type SmartBannersRepo = ReturnType<typeof createSmartBannersRepo>;
