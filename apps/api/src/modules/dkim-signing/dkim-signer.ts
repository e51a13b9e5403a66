import type { DkimAlgorithm } from '@moat/contracts/dkim-signing';
import type { Clock } from '../../lib/clock.ts';
import { packageOnFirstUse } from '../../lib/on-first-use.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import type { DkimSigningRepo } from './dkim-signing.repo.ts';

/** The purpose DKIM private keys are sealed under (ServerKey.encrypt). */
export const DKIM_KEY_PURPOSE = 'dkim-signing';
/** How long a node signs from what it read before it reads the keys again (other nodes' changes). */
const CACHE_MS = 30_000;

/**
 * The header fields signed (RFC 6376 §5.4.1: those a receiver shows or acts on), each occurrence
 * present; a field named here but absent is not signed.
 */
const SIGNED_FIELDS = [
  'From',
  'Reply-To',
  'Subject',
  'Date',
  'To',
  'Cc',
  'Message-ID',
  'In-Reply-To',
  'References',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'List-Id',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
].join(':');

interface Signing {
  domain: string;
  tenantId: string;
  keys: Array<{ selector: string; algorithm: DkimAlgorithm; privateKey: string }>;
}

/** mailauth's signer, loaded with the first message signed, not at start (issue 14). */
const dkimModule = packageOnFirstUse<typeof import('mailauth/lib/dkim/sign.js')>('mailauth/lib/dkim/sign.js');

/**
 * DKIM signing of mail leaving through Moat: a tenant's message whose From domain is one of its
 * domains with signing on (or a subdomain of one: relaxed alignment, RFC 7489 §3.1.1) gets one signature per
 * active key of that domain (RSA, and Ed25519 beside it when the domain has one), relaxed/relaxed,
 * d= the tenant domain. Keys are read and unsealed once per 30 s per node (and at once after a
 * change on this node); a message from any other domain goes out as it is.
 */
export function createDkimSigner(deps: {
  repo: Pick<DkimSigningRepo, 'signingDomains'>;
  serverKey: Pick<ServerKey, 'decrypt'>;
  clock: Clock;
}) {
  let cache: { until: number; domains: Map<string, Signing> } | null = null;
  let loading: Promise<Map<string, Signing>> | null = null;

  async function load(): Promise<Map<string, Signing>> {
    const rows = await deps.repo.signingDomains();
    const domains = new Map<string, Signing>();
    for (const row of rows) {
      domains.set(row.domain, {
        domain: row.domain,
        tenantId: row.tenantId,
        keys: row.keys.map((k) => ({
          selector: k.selector,
          algorithm: k.algorithm,
          privateKey: deps.serverKey.decrypt(DKIM_KEY_PURPOSE, k.privateKey),
        })),
      });
    }
    return domains;
  }

  async function domains(): Promise<Map<string, Signing>> {
    const now = deps.clock.now().getTime();
    if (cache && cache.until > now) return cache.domains;
    loading ??= load().finally(() => {
      loading = null;
    });
    const read = await loading;
    cache = { until: now + CACHE_MS, domains: read };
    return read;
  }

  /**
   * The domain of `tenantId`'s that signs for `fromDomain`: itself, or the nearest parent that
   * signs. Another tenant's keys never sign this tenant's mail, whatever the names' nesting.
   */
  function signingFor(all: Map<string, Signing>, fromDomain: string, tenantId: string): Signing | null {
    const labels = fromDomain.toLowerCase().replace(/\.$/, '').split('.');
    for (let at = 0; at < labels.length - 1; at += 1) {
      const found = all.get(labels.slice(at).join('.'));
      if (found && found.tenantId === tenantId && found.keys.length > 0) return found;
    }
    return null;
  }

  return {
    /**
     * `message` with its DKIM-Signature fields on top, or as it is when nothing signs for
     * `fromDomain`. A key that cannot sign (a broken seal) throws: the caller keeps the mail queued
     * rather than send it unsigned from a domain that asked for signatures.
     */
    async sign(
      message: Buffer,
      fromDomain: string,
      tenantId: string | null,
    ): Promise<{ message: Buffer; selectors: string[] }> {
      const signing = tenantId ? signingFor(await domains(), fromDomain, tenantId) : null;
      if (!signing) return { message, selectors: [] };
      const { dkimSign } = await dkimModule();
      const result = await dkimSign(message, {
        canonicalization: 'relaxed/relaxed',
        headerList: SIGNED_FIELDS as unknown as string[],
        signTime: deps.clock.now(),
        signatureData: signing.keys.map((key) => ({
          signingDomain: signing.domain,
          selector: key.selector,
          privateKey: key.privateKey,
          algorithm: key.algorithm,
          canonicalization: 'relaxed/relaxed',
        })),
      } as Parameters<typeof dkimSign>[1]);
      if (result.errors && result.errors.length > 0) {
        const first = result.errors[0] as { err?: Error } | Error;
        const why = 'err' in first && first.err ? first.err.message : String(first);
        throw new Error(`DKIM signing for ${signing.domain} failed: ${why}`);
      }
      return {
        message: Buffer.concat([Buffer.from(result.signatures), message]),
        selectors: signing.keys.map((k) => k.selector),
      };
    },
    /** Read the keys again with the next message (after a change on this node). */
    invalidate() {
      cache = null;
    },
  };
}
export type DkimSigner = ReturnType<typeof createDkimSigner>;
