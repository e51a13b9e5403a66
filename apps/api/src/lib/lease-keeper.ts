import type { Clock } from './clock.ts';
import { createPeriodic } from './periodic.ts';

/**
 * How long work a node claimed stays its own without a renewal (WORK_LEASE_SECONDS): renewed every
 * third of it while the node lives (its heartbeat), so a node killed mid-work leaves its claims
 * to the others within this long — seconds, not minutes (issue 34).
 */
export const DEFAULT_WORK_LEASE_MS = 30_000;

/**
 * The work a node holds under leases (inbound messages it processes, mails it sends): while an
 * item is held, its lease is renewed every third of the lease time, so a long job is never taken
 * over by another node; a node that dies stops renewing and its leases run out.
 */
export function createLeaseKeeper(deps: {
  clock: Clock;
  leaseMs: number;
  /** Extend this node's leases on `ids` until `until`. */
  renew: (ids: string[], until: Date) => Promise<void>;
  onError: (error: unknown) => void;
}) {
  const held = new Set<string>();
  /** When a lease taken now ends. */
  const until = () => new Date(deps.clock.now().getTime() + deps.leaseMs);
  const periodic = createPeriodic(async () => {
    if (held.size > 0) await deps.renew([...held], until());
  }, deps.onError);
  return {
    held,
    until,
    start: () => periodic.start(Math.max(1_000, Math.floor(deps.leaseMs / 3))),
    stop: () => periodic.stop(),
  };
}
