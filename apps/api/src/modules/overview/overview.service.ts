import type { Overview } from '@moat/contracts/console';
import type { Clock } from '../../lib/clock.ts';
import type { OverviewRepo } from './overview.repo.ts';

const WINDOW_MS = 30 * 86_400_000;
/** How many of the newest events the dashboard lists. */
const RECENT_EVENTS = 5;

/** The Overview dashboard's counts, straight from the quarantine and events tables. */
export function createOverviewService(deps: {
  repo: Pick<
    OverviewRepo,
    'heldCount' | 'pendingRequestCount' | 'releaseCountSince' | 'eventCountsSince' | 'recentEvents'
  >;
  clock: Clock;
}) {
  const { repo } = deps;
  return {
    /** `recipient`: a plain user's counts cover only mail sent to them; null (an admin) the tenant's. */
    async overview(tenantId: string, recipient: string | null = null): Promise<Overview> {
      const since = new Date(deps.clock.now().getTime() - WINDOW_MS);
      const [held, pending, restored, byVerdict, recent] = await Promise.all([
        repo.heldCount(tenantId, recipient),
        repo.pendingRequestCount(tenantId, recipient),
        repo.releaseCountSince(tenantId, recipient, since),
        repo.eventCountsSince(tenantId, recipient, since),
        repo.recentEvents(tenantId, recipient, RECENT_EVENTS),
      ]);
      const verdicts = { phishing: 0, malware: 0, spam: 0, suspicious: 0 };
      for (const row of byVerdict) {
        if (Object.hasOwn(verdicts, row.verdict)) verdicts[row.verdict as keyof typeof verdicts] = row.n;
      }
      return {
        quarantined: held,
        pending_requests: pending,
        restored_30d: restored,
        events_30d: { total: Object.values(verdicts).reduce((a, b) => a + b, 0), ...verdicts },
        recent_events: recent.map((r) => ({
          id: r.id,
          verdict: r.verdict,
          subject: r.subject,
          recipient: r.recipient,
          detected_at: r.createdAt.toISOString(),
        })),
      };
    },
  };
}
export type OverviewService = ReturnType<typeof createOverviewService>;
