import { createHmac } from 'node:crypto';
import type { ServerKey } from '../../lib/server-key.ts';
import type { createClusterRepo } from './cluster.repo.ts';

const KEY_CHECK = 'secret_key_check';

/** A node's key differs from the one the database was set up with. */
export class KeyMismatchError extends Error {
  override name = 'KeyMismatchError';
}

/**
 * One secret for all nodes (issue 9): the first node records a fingerprint of its key (an HMAC
 * under a key derived for this purpose only, so it reveals nothing of the key); a node whose key
 * gives another fingerprint refuses to start, and `/readyz` reports it. Captchas, emailed codes,
 * recipient proofs and encrypted MFA secrets made by one node then hold on every other.
 */
export function createClusterService(deps: {
  repo: ReturnType<typeof createClusterRepo>;
  serverKey: ServerKey;
}) {
  const fingerprint = createHmac('sha256', deps.serverKey.derive('cluster-key-check'))
    .update('moat: every node of one database shares this key')
    .digest('hex');
  return {
    fingerprint,
    /** At start-up: record this key's fingerprint, or check it against the one recorded. */
    async ensureKey(): Promise<void> {
      const recorded = await deps.repo.setOnce(KEY_CHECK, fingerprint);
      if (recorded !== fingerprint) {
        throw new KeyMismatchError(
          'SECRET_KEY differs from the key this database was set up with: every node must use the same SECRET_KEY',
        );
      }
    },
    /** For /readyz: 'ok', 'mismatch', or 'unset' before any node recorded one. */
    async keyState(): Promise<'ok' | 'mismatch' | 'unset'> {
      const recorded = await deps.repo.get(KEY_CHECK);
      if (recorded === null) return 'unset';
      return recorded === fingerprint ? 'ok' : 'mismatch';
    },
  };
}
export type ClusterService = ReturnType<typeof createClusterService>;
