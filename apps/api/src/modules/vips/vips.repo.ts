import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { vips } from '../../db/schema.ts';

export interface VipRow {
  id: string;
  name: string;
  emails: string[];
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

const listed = {
  id: vips.id,
  name: vips.name,
  emails: vips.emails,
  createdBy: vips.createdBy,
  createdAt: vips.createdAt,
  updatedAt: vips.updatedAt,
};

/** A tenant's protected people (the vips table, which the gateway reads through its cache). */
export function createVipsRepo(db: DbOrTx) {
  return {
    /** Every VIP of the tenant, by name (at most VIPS_MAX: no paging). */
    async list(tenantId: string, tx?: DbOrTx): Promise<VipRow[]> {
      return (tx ?? db)
        .select(listed)
        .from(vips)
        .where(eq(vips.tenantId, tenantId))
        .orderBy(asc(sql`lower(${vips.name})`), asc(vips.id));
    },

    /** What the gateway hands the anti-phishing engine: names and real addresses only. */
    async namesOf(tenantId: string, tx?: DbOrTx): Promise<Array<{ name: string; emails: string[] }>> {
      return (tx ?? db)
        .select({ name: vips.name, emails: vips.emails })
        .from(vips)
        .where(eq(vips.tenantId, tenantId));
    },

    async countOf(tenantId: string, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db).select({ n: count() }).from(vips).where(eq(vips.tenantId, tenantId));
      return Number(row?.n ?? 0);
    },

    /** Whether another VIP of the tenant has this name, whatever its case. */
    async nameTaken(tenantId: string, name: string, exceptId?: string, tx?: DbOrTx): Promise<boolean> {
      const [row] = await (tx ?? db)
        .select({ id: vips.id })
        .from(vips)
        .where(
          and(
            eq(vips.tenantId, tenantId),
            sql`lower(${vips.name}) = lower(${name})`,
            exceptId ? ne(vips.id, exceptId) : undefined,
          ),
        )
        .limit(1);
      return row !== undefined;
    },

    /** The new VIP, or null when the name was taken meanwhile (the unique index). */
    async insert(
      tenantId: string,
      vip: { name: string; emails: string[]; createdBy: string },
      tx?: DbOrTx,
    ): Promise<VipRow | null> {
      const [row] = await (tx ?? db)
        .insert(vips)
        .values({ tenantId, ...vip })
        .onConflictDoNothing()
        .returning(listed);
      return row ?? null;
    },

    /**
     * Replace one of the tenant's VIPs' name and addresses: the row as it was and as it is now;
     * null when the tenant has no such VIP, 'taken' when another of its VIPs has the name.
     */
    async update(
      tenantId: string,
      id: string,
      vip: { name: string; emails: string[] },
      now: Date,
      tx?: DbOrTx,
    ): Promise<{ before: VipRow; after: VipRow } | 'taken' | null> {
      return (tx ?? db).transaction(async (t) => {
        const [before] = await t
          .select(listed)
          .from(vips)
          .where(and(eq(vips.tenantId, tenantId), eq(vips.id, id)))
          .for('update');
        if (!before) return null;
        const [after] = await t
          .update(vips)
          .set({ ...vip, updatedAt: now })
          .where(
            and(
              eq(vips.tenantId, tenantId),
              eq(vips.id, id),
              sql`not exists (select 1 from ${vips} other where other.tenant_id = ${tenantId}
                and lower(other.name) = lower(${vip.name}) and other.id <> ${id})`,
            ),
          )
          .returning(listed);
        return after ? { before, after } : 'taken';
      });
    },

    /** Delete one of the tenant's VIPs; the deleted row, or null when the tenant has no such VIP. */
    async remove(tenantId: string, id: string, tx?: DbOrTx): Promise<VipRow | null> {
      const [row] = await (tx ?? db)
        .delete(vips)
        .where(and(eq(vips.tenantId, tenantId), eq(vips.id, id)))
        .returning(listed);
      return row ?? null;
    },
  };
}
export type VipsRepo = ReturnType<typeof createVipsRepo>;
