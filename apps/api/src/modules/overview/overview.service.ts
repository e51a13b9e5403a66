import { MAIL_SUMMARY_DAYS, summariseMail } from '@moat/contracts/analytics';
import type { Overview } from '@moat/contracts/console';
import type { Clock } from '../../lib/clock.ts';
import type { AnalyticsRepo } from '../analytics/analytics.repo.ts';
import type { OverviewRepo } from './overview.repo.ts';

const WINDOW_MS = MAIL_SUMMARY_DAYS * 86_400_000;
/** How many of the newest events the dashboard lists. */
const RECENT_EVENTS = 5;

/** The Overview dashboard's counts, straight from the quarantine and events tables. */
export function createOverviewService(deps: {
  repo: Pick<OverviewRepo, 'heldCount' | 'pendingRequestCount' | 'releaseCountSince' | 'recentEvents'>;
  /** The gateway's mail by verdict and action: counted as the Analytics dashboard counts it. */
  mail: Pick<AnalyticsRepo, 'counts'>;
  clock: Clock;
}) {
  const { repo } = deps;
  return {
    /** `recipient`: a plain user's counts cover only mail sent to them; null (an admin) the tenant's. */
    async overview(tenantId: string, recipient: string | null = null): Promise<Overview> {
      const to = deps.clock.now();
      const since = new Date(to.getTime() - WINDOW_MS);
      const [held, pending, restored, counts, recent] = await Promise.all([
        repo.heldCount(tenantId, recipient),
        repo.pendingRequestCount(tenantId, recipient),
        repo.releaseCountSince(tenantId, recipient, since),
        deps.mail.counts({ tenantId, from: since, to }, recipient),
        repo.recentEvents(tenantId, recipient, RECENT_EVENTS),
      ]);
      return {
        quarantined: held,
        pending_requests: pending,
        restored_30d: restored,
        mail_30d: summariseMail(counts, since, to),
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
