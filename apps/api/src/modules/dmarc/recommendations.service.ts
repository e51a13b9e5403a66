import type { DmarcOverview, RecommendationsResponse, SpfResponse } from '@moat/contracts/dmarc';
import type { Clock } from '../../lib/clock.ts';
import type { RecommendationsRepo } from './recommendations.repo.ts';
import { alignedRateOf, type DkimFinding, recommend, THRESHOLDS } from './recommendations.ts';

/**
 * DMARC → Recommendations (issue 37): per domain, what to change next, from its DMARC record,
 * its reports over the period (the Overview's figures and the sources that authenticate but do
 * not align), its SPF record and its DKIM keys. A check that cannot answer (DNS down) leaves
 * its steps out; it never fails the page.
 */
export function createRecommendationsService(deps: {
  repo: RecommendationsRepo;
  overview: (tenantId: string, days: number) => Promise<DmarcOverview>;
  spf: (tenantId: string) => Promise<SpfResponse>;
  dkimFindings?: (tenantId: string) => Promise<Map<string, DkimFinding[]>>;
  clock: Clock;
  log: { warn: (obj: object, msg: string) => void };
}) {
  const quietly = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (error) {
      deps.log.warn({ err: error }, `DMARC recommendations: the ${what} check failed`);
      return undefined;
    }
  };
  return {
    async of(tenantId: string, days: number): Promise<RecommendationsResponse> {
      const from = new Date(deps.clock.now().getTime() - days * 86_400_000);
      const [overview, unaligned, spf, dkim] = await Promise.all([
        deps.overview(tenantId, days),
        deps.repo.unalignedSources(tenantId, from),
        quietly('SPF', () => deps.spf(tenantId)),
        deps.dkimFindings ? quietly('DKIM', () => deps.dkimFindings!(tenantId)) : undefined,
      ]);
      return {
        days,
        thresholds: { ...THRESHOLDS },
        domains: overview.domains.map((o) => {
          const facts = {
            overview: o,
            unaligned: unaligned.filter((u) => u.domain === o.domain),
            spf: spf?.domains.find((d) => d.domain.toLowerCase() === o.domain),
            dkim: dkim?.get(o.domain),
          };
          const published = o.published.status === 'found' ? o.published.policy : o.reportedPolicy;
          return {
            domain: o.domain,
            policy: published?.toLowerCase() ?? null,
            messages: o.messages,
            alignedRate: alignedRateOf(facts),
            recommendations: recommend(facts, days),
          };
        }),
      };
    },
  };
}
export type RecommendationsService = ReturnType<typeof createRecommendationsService>;
