import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';

export function createServiceStatusRepo(db: DbOrTx) {
  return {
    /** The version the database server reports (PGlite reports the PostgreSQL it embeds). */
    async databaseVersion(tx?: DbOrTx): Promise<string> {
      const [row] = rowsOf<{ v: string }>(
        await (tx ?? db).execute(sql`select current_setting('server_version') as v`),
      );
      return String(row?.v ?? 'unknown');
    },
  };
}
export type ServiceStatusRepo = ReturnType<typeof createServiceStatusRepo>;
