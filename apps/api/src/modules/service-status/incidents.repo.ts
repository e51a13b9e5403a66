import type { Incident, IncidentSeverity } from '@moat/contracts/console';
import { asc, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { serviceIncidents } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';

const toIncident = (row: typeof serviceIncidents.$inferSelect): Incident => ({
  id: row.id,
  nav_item: row.navItem,
  severity: row.severity,
  title: row.title,
  started_at: row.startedAt.toISOString(),
});

/** Service-status incidents (SPEC §3): the provider's, opened and resolved with the CLI. */
export function createIncidentsRepo({ db, clock }: { db: DbOrTx; clock: Clock }) {
  return {
    async list(): Promise<Incident[]> {
      const rows = await db
        .select()
        .from(serviceIncidents)
        .where(isNull(serviceIncidents.resolvedAt))
        .orderBy(asc(serviceIncidents.startedAt));
      return rows.map(toIncident);
    },

    async open(input: {
      title: string;
      severity: IncidentSeverity;
      navItem: string | null;
    }): Promise<Incident> {
      const [row] = await db
        .insert(serviceIncidents)
        .values({
          title: input.title,
          severity: input.severity,
          navItem: input.navItem,
          startedAt: clock.now(),
        })
        .returning();
      return toIncident(row!);
    },

    async resolve(id: string): Promise<void> {
      const rows = await db
        .update(serviceIncidents)
        .set({ resolvedAt: clock.now() })
        .where(sql`${serviceIncidents.id}::text = ${id} and ${serviceIncidents.resolvedAt} is null`)
        .returning({ id: serviceIncidents.id });
      if (rows.length === 0) throw new AppError('not_found', `No open incident with id "${id}"`);
    },
  };
}
export type IncidentsRepo = ReturnType<typeof createIncidentsRepo>;
