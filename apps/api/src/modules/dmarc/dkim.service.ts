import {
  DKIM_LIMITS,
  type DkimDomain,
  type DkimPlan,
  type DkimProblem,
  type DkimResponse,
  type DkimSeenIn,
  type DkimSelector,
} from '@moat/contracts/dmarc';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { systemResolver } from '../onboarding/onboarding.service.ts';
import {
  type DkimRepo,
  type KeySeen,
  type KeySeenRow,
  SELECTORS_MAX,
  type SeenSelector,
} from './dkim.repo.ts';
import {
  type CheckedKey,
  COMMON_SELECTORS,
  type DkimResolver,
  dkimProblem,
  keyName,
  lookupKey,
  rotationPlan,
  sorted,
  validSelector,
} from './dkim.ts';

/** DNS for DKIM keys: DNS_SERVERS (or the system's), 1.5 s and one try per question. */
export function dkimResolver(servers: string[] = [], bounds = { timeoutMs: 1500, tries: 1 }): DkimResolver {
  const resolve = systemResolver<'TXT'>(servers, bounds);
  return async (name) => (await resolve(name, 'TXT')) as string[][];
}

/** Look-ups asked of DNS at once, across the domains. */
const LOOKUPS_AT_ONCE = 16;
const DAY = 86_400_000;
/** A revoked key whose selector signed mail this recently is still in use. */
const IN_USE_DAYS = 7;
/** Below this share of passing mail (with enough mail to tell), a selector is said to be failing. */
const FAILING_BELOW = 80;
const FAILING_MIN_MESSAGES = 20;

/** `items` through `run`, at most `width` at a time, in order. */
async function pooled<T, R>(items: T[], width: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await run(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** What one domain's selectors are, put together from the places they were seen. */
interface Gathered {
  selector: string;
  seenIn: Set<DkimSeenIn>;
  messages: number;
  passed: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
}

const earliest = (a: Date | null, b: Date | null) => (!a ? b : !b ? a : a < b ? a : b);
const latest = (a: Date | null, b: Date | null) => (!a ? b : !b ? a : a > b ? a : b);

/**
 * DKIM Management (issue 37): for each of the tenant's domains, the selectors it signs with as
 * the aggregate reports and the gateway's mail show them, and the usual selectors asked of DNS;
 * each key looked up now and checked; each key Moat sees remembered with when it was first seen,
 * for the rotation plan. A look-up that fails is said, never an error of the request.
 */
export function createDkimService(deps: {
  domainsOf: (tenantId: string) => Promise<string[]>;
  /**
   * The keys Moat holds itself for the tenant's domains (DKIM signing, issue 38): their selectors
   * are asked of DNS too, and a domain with no key published yet is told to publish Moat's.
   */
  ownKeys?: (tenantId: string) => Promise<Array<{ domain: string; selector: string; recordValue: string }>>;
  repo: DkimRepo;
  resolver: DkimResolver;
  clock: Clock;
}) {
  async function check(tenantId: string, domain?: string): Promise<DkimResponse> {
    const all = await deps.domainsOf(tenantId);
    let chosen = all;
    if (domain !== undefined) {
      const wanted = domain.toLowerCase().replace(/\.$/, '');
      const own = all.find((d) => d.toLowerCase() === wanted);
      if (!own)
        throw new AppError(
          'not_found',
          `${wanted} is not one of your domains (${all.join(', ') || 'none yet'})`,
        );
      chosen = [own];
    }
    const now = deps.clock.now();
    const domains = chosen.map((d) => d.toLowerCase());
    const since = new Date(now.getTime() - DKIM_LIMITS.lookbackDays * DAY);
    const [reported, mailed, remembered, own] = await Promise.all([
      deps.repo.reportSelectors(tenantId, domains, since),
      deps.repo.mailSelectors(tenantId, domains, since),
      deps.repo.keysSeen(tenantId),
      deps.ownKeys ? deps.ownKeys(tenantId) : Promise.resolve([]),
    ]);

    // Each domain's selectors: those seen signing, then the usual ones.
    const gathered = new Map<string, Map<string, Gathered>>(domains.map((d) => [d, new Map()]));
    const add = (d: string, selector: string, place: DkimSeenIn, seen?: SeenSelector) => {
      const of = gathered.get(d);
      if (!of || !validSelector(selector)) return;
      const key = selector.toLowerCase();
      const at = of.get(key) ?? {
        selector: key,
        seenIn: new Set<DkimSeenIn>(),
        messages: 0,
        passed: 0,
        firstSeen: null,
        lastSeen: null,
      };
      if (seen) {
        at.seenIn.add(place);
        at.messages += seen.messages;
        at.passed += seen.passed;
        at.firstSeen = earliest(at.firstSeen, seen.firstSeen);
        at.lastSeen = latest(at.lastSeen, seen.lastSeen);
      }
      of.set(key, at);
    };
    for (const s of reported) add(s.domain, s.selector, 'reports', s);
    for (const s of mailed) add(s.domain, s.selector, 'mail', s);
    // Selectors whose keys were seen before (the newest first), then the usual ones.
    const known = [...remembered].sort((a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime());
    for (const d of domains) {
      for (const r of known.filter((k) => k.domain === d).slice(0, SELECTORS_MAX)) add(d, r.selector, 'dns');
      for (const k of own.filter((k) => k.domain === d)) add(d, k.selector, 'dns');
      for (const s of COMMON_SELECTORS) add(d, s, 'dns');
    }

    const questions = [...gathered].flatMap(([d, of]) => [...of.keys()].map((selector) => ({ d, selector })));
    const answers = await pooled(questions, LOOKUPS_AT_ONCE, ({ d, selector }) =>
      lookupKey(deps.resolver, d, selector),
    );
    const answerOf = new Map(questions.map((q, i) => [`${q.d} ${q.selector}`, answers[i]!]));

    const fresh: KeySeen[] = [];
    const results: DkimDomain[] = domains.map((d) => {
      const selectors: DkimSelector[] = [];
      let failedLookups = 0;
      for (const g of gathered.get(d)!.values()) {
        const found = answerOf.get(`${d} ${g.selector}`)!;
        const signed = g.seenIn.size > 0;
        if (found.lookup === 'failed' && !signed) failedLookups += 1;
        // A usual selector nobody signs with and DNS has nothing for: not one of the domain's.
        if (!signed && found.lookup !== 'found') continue;
        if (found.lookup === 'found') g.seenIn.add('dns');
        const keyFirstSeen = keyFirstSeenOf(remembered, d, g, found, now);
        if (found.hash && found.key && keyFirstSeen) {
          fresh.push({
            domain: d,
            selector: g.selector,
            keyHash: found.hash,
            keyType: found.key.type,
            bits: found.key.bits,
            firstSeen: keyFirstSeen,
          });
        }
        selectors.push(selectorOf(d, g, found, keyFirstSeen, now));
      }
      selectors.sort((a, b) => b.messages - a.messages || a.selector.localeCompare(b.selector));
      const problems: DkimProblem[] = [];
      const live = selectors.filter((s) => s.key && !s.key.revoked);
      if (
        live.length === 0 &&
        !selectors.some((s) => s.seenIn.includes('reports') || s.seenIn.includes('mail'))
      ) {
        problems.push(
          failedLookups > 0 ? dkimProblem('lookup_failed', d, null) : dkimProblem('no_key', d, null),
        );
      }
      if (live.length > 0 && live.every((s) => s.key?.type === 'ed25519'))
        problems.push(dkimProblem('ed25519_only', d, null));
      const plan = rotationPlan(
        d,
        selectors.map((s) => ({
          selector: s.selector,
          key: s.key,
          keyFirstSeen: s.keyFirstSeen ? new Date(s.keyFirstSeen) : null,
        })),
        now,
      );
      // DNS gave no answer at all: the plan cannot say more than that.
      if (failedLookups > 0 && selectors.length === 0) plan.status = 'unknown';
      // Moat holds a key for the domain: the first record to publish is that one, in full.
      const moatKey = own.find((k) => k.domain === d);
      if (plan.status === 'publish' && moatKey) {
        plan.publish = {
          code: 'publish',
          name: keyName(moatKey.selector, d),
          value: moatKey.recordValue,
          days: null,
        };
      }
      return { domain: d, selectors, problems: sorted(problems), plan };
    });
    await deps.repo.rememberKeys(tenantId, fresh, now);
    return {
      checkedAt: now.toISOString(),
      probed: [...COMMON_SELECTORS],
      limits: {
        minRsaBits: DKIM_LIMITS.minRsaBits,
        goodRsaBits: DKIM_LIMITS.goodRsaBits,
        rotateAfterDays: DKIM_LIMITS.rotateAfterDays,
        lookbackDays: DKIM_LIMITS.lookbackDays,
      },
      domains: results,
    };
  }

  async function keyProblems(
    tenantId: string,
  ): Promise<Array<{ domain: string; problems: DkimProblem[]; plan: DkimPlan }>> {
    const { domains } = await check(tenantId);
    return domains.map((d) => ({
      domain: d.domain,
      problems: sorted([...d.problems, ...d.selectors.flatMap((s) => s.problems)]).filter(
        (p) => p.severity !== 'info',
      ),
      plan: d.plan,
    }));
  }

  return {
    /** Every domain of the tenant's, or only `domain` (404 when it is not one of them). */
    check,

    /**
     * For the Recommendations: per domain, its DKIM errors and warnings (a key missing, too short
     * or weak, a record broken, a selector failing) and its rotation plan. Looks DNS up now.
     */
    keyProblems,

    /** The same, as the Recommendations read it: per domain, each problem's selector, words and severity. */
    async keyFindings(
      tenantId: string,
    ): Promise<
      Map<string, Array<{ selector: string | null; message: string; severity: 'error' | 'warning' }>>
    > {
      const found = await keyProblems(tenantId);
      return new Map(
        found.map((d) => [
          d.domain,
          d.problems.map((p) => ({
            selector: p.selector,
            message: p.message,
            severity: p.severity === 'error' ? ('error' as const) : ('warning' as const),
          })),
        ]),
      );
    },
  };
}
export type DkimService = ReturnType<typeof createDkimService>;

/**
 * When the key now published at a selector was first seen: the remembered first sight of this
 * key, or, when no other key was ever seen there before it, the selector's first signature.
 */
function keyFirstSeenOf(
  remembered: KeySeenRow[],
  domain: string,
  g: Gathered,
  found: CheckedKey,
  now: Date,
): Date | null {
  if (!found.hash) return null;
  const here = remembered.filter((r) => r.domain === domain && r.selector === g.selector);
  const mine = here.find((r) => r.keyHash === found.hash)?.firstSeenAt ?? now;
  const before = here.some((r) => r.keyHash !== found.hash && r.firstSeenAt < mine);
  return before ? mine : (earliest(mine, g.firstSeen) ?? mine);
}

function selectorOf(
  domain: string,
  g: Gathered,
  found: CheckedKey,
  keyFirstSeen: Date | null,
  now: Date,
): DkimSelector {
  const problems = [...found.problems];
  const signed = g.seenIn.has('reports') || g.seenIn.has('mail');
  if (signed && found.lookup === 'none') problems.push(dkimProblem('no_record', domain, g.selector));
  const revoked = found.key?.revoked ?? false;
  if (revoked && g.lastSeen && now.getTime() - g.lastSeen.getTime() <= IN_USE_DAYS * DAY) {
    const at = problems.findIndex((p) => p.code === 'revoked');
    problems.splice(at, 1, dkimProblem('revoked_in_use', domain, g.selector));
  }
  const passRate = g.messages > 0 ? Math.round((g.passed / g.messages) * 1000) / 10 : null;
  if (
    found.key &&
    !revoked &&
    passRate !== null &&
    g.messages >= FAILING_MIN_MESSAGES &&
    passRate < FAILING_BELOW
  )
    problems.push(dkimProblem('failing', domain, g.selector, passRate));
  return {
    selector: g.selector,
    name: keyName(g.selector, domain),
    seenIn: (['reports', 'mail', 'dns'] as const).filter((p) => g.seenIn.has(p)),
    messages: g.messages,
    passed: g.passed,
    passRate,
    firstSeen: g.firstSeen?.toISOString() ?? null,
    lastSeen: g.lastSeen?.toISOString() ?? null,
    keyFirstSeen: keyFirstSeen?.toISOString() ?? null,
    lookup: found.lookup,
    key: found.key,
    problems: sorted(problems),
  };
}
