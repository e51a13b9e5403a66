import { SPF_LIMITS, type SpfDomain, type SpfResponse } from '@moat/contracts/dmarc';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { systemResolver } from '../onboarding/onboarding.service.ts';
import { checkSpf, SPF_BOUNDS, type SpfBounds, type SpfResolver, type SpfRrtype } from './spf.ts';

/** The system resolver (or `servers`, DNS_SERVERS), bounded as Onboarding's is (3 s, two tries). */
export const spfResolver = (servers: string[] = [], bounds?: { timeoutMs: number; tries: number }) =>
  systemResolver<SpfRrtype>(servers, bounds);

/** The domains are looked up this many at a time. */
const DOMAINS_AT_ONCE = 4;

/**
 * SPF Management (issue 37): the SPF record of each of the tenant's domains, looked up now (the
 * resolver asks DNS_SERVERS), parsed, counted and corrected. A domain whose lookup fails is
 * reported as not checked, never as an error of the request.
 */
export function createSpfService(deps: {
  domainsOf: (tenantId: string) => Promise<string[]>;
  resolver: SpfResolver;
  clock: Clock;
  bounds?: SpfBounds;
}) {
  return {
    /** Every domain of the tenant's, or only `domain` (404 when it is not one of them). */
    async check(tenantId: string, domain?: string): Promise<SpfResponse> {
      const domains = await deps.domainsOf(tenantId);
      let chosen = domains;
      if (domain !== undefined) {
        const wanted = domain.toLowerCase().replace(/\.$/, '');
        const own = domains.find((d) => d.toLowerCase() === wanted);
        if (!own) {
          throw new AppError(
            'not_found',
            `${wanted} is not one of your domains (${domains.join(', ') || 'none yet'})`,
          );
        }
        chosen = [own];
      }
      const checkedAt = deps.clock.now().toISOString();
      const results: SpfDomain[] = [];
      for (let at = 0; at < chosen.length; at += DOMAINS_AT_ONCE) {
        const batch = chosen.slice(at, at + DOMAINS_AT_ONCE);
        results.push(
          ...(await Promise.all(batch.map((d) => checkSpf(d, deps.resolver, deps.bounds ?? SPF_BOUNDS)))),
        );
      }
      return {
        limits: { lookups: SPF_LIMITS.lookups, voidLookups: SPF_LIMITS.voidLookups },
        checkedAt,
        domains: results,
      };
    },
  };
}
export type SpfService = ReturnType<typeof createSpfService>;
