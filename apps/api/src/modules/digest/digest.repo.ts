import type { Verdict } from '@moat/contracts/quarantine';
import { and, asc, eq, gte, inArray, lt, ne } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { quarantineMessages, tenants } from '../../db/schema.ts';

/** What a digest needs of a tenant: its schedule and the brand its mail goes out under. */
const tenantColumns = {
  id: tenants.id,
  name: tenants.name,
  brand: tenants.brand,
  brandName: tenants.brandName,
  digestSchedule: tenants.digestSchedule,
  quarantineSettings: tenants.quarantineSettings,
};
export type DigestTenant = Pick<typeof tenants.$inferSelect, keyof typeof tenantColumns>;

/** What a digest lists of a held message, and what its restore link is made of (never its bytes). */
const messageColumns = {
  publicId: quarantineMessages.publicId,
  saasType: quarantineMessages.saasType,
  recipient: quarantineMessages.recipient,
  sender: quarantineMessages.sender,
  subject: quarantineMessages.subject,
  receivedAt: quarantineMessages.receivedAt,
  verdict: quarantineMessages.verdict,
  state: quarantineMessages.state,
};
export type DigestMessage = Pick<typeof quarantineMessages.$inferSelect, keyof typeof messageColumns>;

export function createDigestRepo(db: DbOrTx) {
  return {
    /** The tenants whose recipients get a digest. */
    async scheduledTenants(tx?: DbOrTx): Promise<DigestTenant[]> {
      return (tx ?? db).select(tenantColumns).from(tenants).where(ne(tenants.digestSchedule, 'off'));
    },

    /**
     * The messages a digest lists: still held, received in [from, to), of the verdicts given
     * (never malware: it is not restorable), not held silently; by recipient, oldest first.
     */
    async heldForDigest(
      tenantId: string,
      from: Date,
      to: Date,
      verdicts: readonly Verdict[],
      tx?: DbOrTx,
    ): Promise<DigestMessage[]> {
      const listed = verdicts.filter((v) => v !== 'malware');
      if (listed.length === 0) return [];
      return (tx ?? db)
        .select(messageColumns)
        .from(quarantineMessages)
        .where(
          and(
            eq(quarantineMessages.tenantId, tenantId),
            inArray(quarantineMessages.state, ['quarantined', 'attachments_removed']),
            gte(quarantineMessages.receivedAt, from),
            lt(quarantineMessages.receivedAt, to),
            inArray(quarantineMessages.verdict, listed),
            eq(quarantineMessages.silent, false),
          ),
        )
        .orderBy(asc(quarantineMessages.recipient), asc(quarantineMessages.receivedAt));
    },
  };
}
export type DigestRepo = ReturnType<typeof createDigestRepo>;
