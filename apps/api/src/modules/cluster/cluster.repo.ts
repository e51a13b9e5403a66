import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { clusterSettings } from '../../db/schema.ts';

/** Settings every node of one database agrees on. */
export function createClusterRepo(db: DbOrTx) {
  return {
    async get(key: string): Promise<string | null> {
      const [row] = await db
        .select({ value: clusterSettings.value })
        .from(clusterSettings)
        .where(eq(clusterSettings.key, key));
      return row?.value ?? null;
    },
    /** Record `value` unless some node recorded one first; the value in force. */
    async setOnce(key: string, value: string): Promise<string> {
      await db.insert(clusterSettings).values({ key, value }).onConflictDoNothing();
      return (await this.get(key)) ?? value;
    },
  };
}
