import type { DkimAlgorithm, DkimKeyState } from '@moat/contracts/dkim-signing';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.ts';
import { dkimSigningKeys, tenantDomains } from '../../db/schema.ts';

export type SigningKeyRow = typeof dkimSigningKeys.$inferSelect;

export interface NewSigningKey {
  tenantId: string;
  domain: string;
  selector: string;
  algorithm: DkimAlgorithm;
  bits: number;
  /** Sealed with the server key. */
  privateKey: string;
  /** The p= value: base64 of the SubjectPublicKeyInfo (RSA) or of the bare 32 bytes (Ed25519). */
  publicKey: string;
  state: DkimKeyState;
  activatedAt: Date | null;
}

/** A domain whose mail is signed, with its signing keys: what the signer needs. */
export interface SigningDomain {
  domain: string;
  /** Whose domain it is: its keys sign only that tenant's mail. */
  tenantId: string;
  keys: Array<Pick<SigningKeyRow, 'selector' | 'algorithm' | 'privateKey'>>;
}

/** Moat's DKIM keys and each domain's signing switch (issue 38). */
export function createDkimSigningRepo(db: Db) {
  return {
    /** The tenant's domains with their signing switch, oldest first. */
    async domainsOf(tenantId: string, tx?: DbOrTx): Promise<Array<{ domain: string; enabled: boolean }>> {
      return (tx ?? db)
        .select({ domain: tenantDomains.domain, enabled: tenantDomains.dkimSigning })
        .from(tenantDomains)
        .where(eq(tenantDomains.tenantId, tenantId))
        .orderBy(asc(tenantDomains.createdAt), asc(tenantDomains.domain));
    },

    async keysOf(tenantId: string, domains: string[], tx?: DbOrTx): Promise<SigningKeyRow[]> {
      if (domains.length === 0) return [];
      return (tx ?? db)
        .select()
        .from(dkimSigningKeys)
        .where(and(eq(dkimSigningKeys.tenantId, tenantId), inArray(dkimSigningKeys.domain, domains)))
        .orderBy(asc(dkimSigningKeys.createdAt), asc(dkimSigningKeys.selector));
    },

    async insert(key: NewSigningKey, tx?: DbOrTx): Promise<SigningKeyRow> {
      const [row] = await (tx ?? db).insert(dkimSigningKeys).values(key).returning();
      return row!;
    },

    async setSigning(tenantId: string, domain: string, enabled: boolean, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .update(tenantDomains)
        .set({ dkimSigning: enabled })
        .where(and(eq(tenantDomains.tenantId, tenantId), eq(tenantDomains.domain, domain)));
    },

    /** A rotation's end: the pending key of `algorithm` signs, the active one retires; in one transaction. */
    async promote(domain: string, algorithm: DkimAlgorithm, now: Date, tx: DbOrTx): Promise<void> {
      await tx
        .update(dkimSigningKeys)
        .set({ state: 'retired', retiredAt: now })
        .where(
          and(
            eq(dkimSigningKeys.domain, domain),
            eq(dkimSigningKeys.algorithm, algorithm),
            eq(dkimSigningKeys.state, 'active'),
          ),
        );
      await tx
        .update(dkimSigningKeys)
        .set({ state: 'active', activatedAt: now })
        .where(
          and(
            eq(dkimSigningKeys.domain, domain),
            eq(dkimSigningKeys.algorithm, algorithm),
            eq(dkimSigningKeys.state, 'pending'),
          ),
        );
    },

    /** Every domain whose mail is signed, with its active keys (for the signer's cache). */
    async signingDomains(tx?: DbOrTx): Promise<SigningDomain[]> {
      const rows = await (tx ?? db)
        .select({
          domain: dkimSigningKeys.domain,
          tenantId: tenantDomains.tenantId,
          selector: dkimSigningKeys.selector,
          algorithm: dkimSigningKeys.algorithm,
          privateKey: dkimSigningKeys.privateKey,
        })
        .from(dkimSigningKeys)
        .innerJoin(tenantDomains, eq(tenantDomains.domain, dkimSigningKeys.domain))
        .where(
          and(
            eq(tenantDomains.dkimSigning, true),
            eq(dkimSigningKeys.state, 'active'),
            // A key belongs to the tenant that owns its domain now.
            eq(dkimSigningKeys.tenantId, tenantDomains.tenantId),
          ),
        )
        .orderBy(asc(dkimSigningKeys.domain), asc(dkimSigningKeys.algorithm));
      const byDomain = new Map<string, SigningDomain>();
      for (const { domain, tenantId, ...key } of rows) {
        const entry = byDomain.get(domain) ?? { domain, tenantId, keys: [] };
        entry.keys.push(key);
        byDomain.set(domain, entry);
      }
      return [...byDomain.values()];
    },
  };
}
export type DkimSigningRepo = ReturnType<typeof createDkimSigningRepo>;
