import { and, asc, count, desc, eq, getTableColumns } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.ts';
import { dlpCustomRules, dlpDataTypes, outboundHeld, securityEvents } from '../../db/schema.ts';

export type DlpDataTypeRow = typeof dlpDataTypes.$inferSelect;
export type DlpCustomRuleRow = typeof dlpCustomRules.$inferSelect;
export type OutboundHeldRow = typeof outboundHeld.$inferSelect;
export type NewOutboundHeld = typeof outboundHeld.$inferInsert;

/** A tenant's DLP settings and the outbound mail held for its admins (issue 38). */
export function createDlpRepo(db: Db) {
  return {
    dataTypesOf: (tenantId: string, tx?: DbOrTx): Promise<DlpDataTypeRow[]> =>
      (tx ?? db).select().from(dlpDataTypes).where(eq(dlpDataTypes.tenantId, tenantId)),

    async saveDataType(row: Omit<DlpDataTypeRow, 'updatedAt'>, at: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .insert(dlpDataTypes)
        .values({ ...row, updatedAt: at })
        .onConflictDoUpdate({
          target: [dlpDataTypes.tenantId, dlpDataTypes.type],
          set: {
            enabled: row.enabled,
            action: row.action,
            threshold: row.threshold,
            fileTypes: row.fileTypes,
            updatedAt: at,
          },
        });
    },

    customRulesOf: (tenantId: string, tx?: DbOrTx): Promise<DlpCustomRuleRow[]> =>
      (tx ?? db)
        .select()
        .from(dlpCustomRules)
        .where(eq(dlpCustomRules.tenantId, tenantId))
        .orderBy(asc(dlpCustomRules.createdAt), asc(dlpCustomRules.id)),

    async countRules(tenantId: string, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db)
        .select({ n: count() })
        .from(dlpCustomRules)
        .where(eq(dlpCustomRules.tenantId, tenantId));
      return Number(row?.n ?? 0);
    },

    async insertRule(
      row: Omit<DlpCustomRuleRow, 'id' | 'createdAt' | 'updatedAt'>,
      at: Date,
      tx?: DbOrTx,
    ): Promise<DlpCustomRuleRow> {
      const [created] = await (tx ?? db)
        .insert(dlpCustomRules)
        .values({ ...row, createdAt: at, updatedAt: at })
        .returning();
      return created!;
    },

    async updateRule(
      tenantId: string,
      id: string,
      row: Omit<DlpCustomRuleRow, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>,
      at: Date,
      tx?: DbOrTx,
    ): Promise<DlpCustomRuleRow | null> {
      const [updated] = await (tx ?? db)
        .update(dlpCustomRules)
        .set({ ...row, updatedAt: at })
        .where(and(eq(dlpCustomRules.tenantId, tenantId), eq(dlpCustomRules.id, id)))
        .returning();
      return updated ?? null;
    },

    async deleteRule(tenantId: string, id: string, tx?: DbOrTx): Promise<DlpCustomRuleRow | null> {
      const [deleted] = await (tx ?? db)
        .delete(dlpCustomRules)
        .where(and(eq(dlpCustomRules.tenantId, tenantId), eq(dlpCustomRules.id, id)))
        .returning();
      return deleted ?? null;
    },

    async hold(row: NewOutboundHeld, tx?: DbOrTx): Promise<OutboundHeldRow> {
      const [created] = await (tx ?? db).insert(outboundHeld).values(row).returning();
      return created!;
    },

    /** Held mail of a tenant, newest first, without its bytes. */
    async heldOf(
      tenantId: string,
      status: OutboundHeldRow['status'] | undefined,
      page: { limit: number; offset: number },
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: Array<Omit<OutboundHeldRow, 'raw'>> }> {
      const q = tx ?? db;
      const where = and(
        eq(outboundHeld.tenantId, tenantId),
        status ? eq(outboundHeld.status, status) : undefined,
      );
      const { raw: _raw, ...columns } = getTableColumns(outboundHeld);
      const [rows, [total]] = await Promise.all([
        q
          .select(columns)
          .from(outboundHeld)
          .where(where)
          .orderBy(desc(outboundHeld.createdAt), desc(outboundHeld.id))
          .limit(page.limit)
          .offset(page.offset),
        q.select({ n: count() }).from(outboundHeld).where(where),
      ]);
      return { total: Number(total?.n ?? 0), rows };
    },

    /**
     * Decide a held message once: the row moves from `held` to `status` only if it is still held
     * (two admins deciding at once: one wins, the other is told). Its bytes are emptied.
     */
    async decide(
      tenantId: string,
      id: string,
      status: 'released' | 'declined',
      by: string,
      at: Date,
      tx?: DbOrTx,
    ): Promise<OutboundHeldRow | null> {
      const [row] = await (tx ?? db)
        .update(outboundHeld)
        // Its bytes are kept no longer than the decision needs them (a released copy is in the outbox).
        .set({ status, decidedBy: by, decidedAt: at, raw: new Uint8Array() })
        .where(
          and(eq(outboundHeld.tenantId, tenantId), eq(outboundHeld.id, id), eq(outboundHeld.status, 'held')),
        )
        .returning();
      return row ?? null;
    },

    /** A DLP event (outbound): its hits with the matched data masked. */
    async recordEvent(event: typeof securityEvents.$inferInsert, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(securityEvents).values(event);
    },

    async heldById(tenantId: string, id: string, tx?: DbOrTx): Promise<OutboundHeldRow | null> {
      const [row] = await (tx ?? db)
        .select()
        .from(outboundHeld)
        .where(and(eq(outboundHeld.tenantId, tenantId), eq(outboundHeld.id, id)));
      return row ?? null;
    },
  };
}
export type DlpRepo = ReturnType<typeof createDlpRepo>;
