import {
  type DomainOverview,
  dmarcTags,
  type Recommendation,
  type RecommendationSeverity,
  type SpfDomain,
  suggestedDmarcRecord,
} from '@moat/contracts/dmarc';
import type { UnalignedSource } from './recommendations.repo.ts';

/**
 * When a stricter policy is due: the share of the domain's authenticated mail that is aligned
 * must have held at these rates (%), over at least `minDays` days of reports and `minMessages`
 * messages, in the period and in each of its weeks. Spoofed mail (authenticated by nobody) is
 * what a stricter policy stops; it does not count against the domain.
 */
export const THRESHOLDS = { quarantine: 98, reject: 99, minMessages: 100, minDays: 14 } as const;
/** A week with fewer authenticated messages than this says nothing either way. */
const WEEK_MIN_MESSAGES = 10;
/** The unaligned sources named, largest first. */
const SOURCES_NAMED = 3;

/** A weak or missing DKIM key the DKIM check found (DKIM Management), in the words' terms. */
export interface DkimFinding {
  selector: string | null;
  /** The problem in plain English (DKIM Management's words for it). */
  message: string;
  severity: 'error' | 'warning';
}

export interface DomainFacts {
  overview: DomainOverview;
  unaligned: UnalignedSource[];
  spf?: SpfDomain;
  dkim?: DkimFinding[];
}

const ORDER: Record<RecommendationSeverity, number> = { action: 0, warning: 1, info: 2, done: 3 };
const round1 = (n: number) => Math.round(n * 10) / 10;

/** The record with one tag set (replaced where it is, added after `p` or at the end). */
export function withTag(record: string, name: string, value: string): string {
  const tags = record
    .split(';')
    .map((t) => t.trim())
    .filter(Boolean);
  const at = tags.findIndex((t) => t.split('=')[0]?.trim().toLowerCase() === name);
  if (at >= 0) tags[at] = `${name}=${value}`;
  else {
    const p = tags.findIndex((t) => t.split('=')[0]?.trim().toLowerCase() === 'p');
    tags.splice(p >= 0 ? p + 1 : tags.length, 0, `${name}=${value}`);
  }
  return tags.join('; ');
}

/** The record without a tag (`pct` once it would be 100, its default). */
const withoutTag = (record: string, name: string) =>
  record
    .split(';')
    .map((t) => t.trim())
    .filter((t) => t && t.split('=')[0]?.trim().toLowerCase() !== name)
    .join('; ');

/**
 * Whether the aligned share held at `threshold` % in each week of the period that has enough
 * authenticated mail: a good month after a bad week is not yet a domain ready to enforce.
 */
function heldEachWeek(facts: DomainFacts, threshold: number): boolean {
  const unalignedByDay = new Map<string, number>();
  for (const s of facts.unaligned)
    for (const d of s.days) unalignedByDay.set(d.day, (unalignedByDay.get(d.day) ?? 0) + d.messages);
  const trend = facts.overview.trend;
  for (let end = trend.length; end > 0; end -= 7) {
    const week = trend.slice(Math.max(0, end - 7), end);
    const passed = week.reduce((n, d) => n + d.passed, 0);
    const unaligned = week.reduce((n, d) => n + (unalignedByDay.get(d.day) ?? 0), 0);
    if (passed + unaligned >= WEEK_MIN_MESSAGES && (passed / (passed + unaligned)) * 100 < threshold)
      return false;
  }
  return true;
}

/** The share of authenticated mail that is aligned, %, or null when no mail was authenticated. */
export function alignedRateOf(facts: DomainFacts): number | null {
  const unaligned = facts.unaligned.reduce((n, s) => n + s.messages, 0);
  const authenticated = facts.overview.passed + unaligned;
  return authenticated === 0 ? null : round1((facts.overview.passed / authenticated) * 100);
}

/** What to change next for one domain, most urgent first, each with the figures that explain it. */
export function recommend(facts: DomainFacts, days: number): Recommendation[] {
  const o = facts.overview;
  const out: Recommendation[] = [];
  const add = (
    code: Recommendation['code'],
    severity: RecommendationSeverity,
    params: Recommendation['params'] = {},
    extra: Partial<Pick<Recommendation, 'record' | 'sourceIp'>> = {},
  ) => out.push({ code, severity, params, record: extra.record ?? null, sourceIp: extra.sourceIp ?? null });
  const name = `_dmarc.${o.domain}`;
  const published = o.published.status === 'found' ? o.published.record : null;
  const tags = dmarcTags(published);
  const policy =
    (tags?.p ?? (o.published.status === 'unknown' ? o.reportedPolicy : null))?.toLowerCase() ?? null;

  if (o.published.status === 'unknown') add('lookup_failed', 'warning', { name });
  if (o.published.status === 'missing' || (published && !tags))
    add(
      'publish_record',
      'action',
      { name, address: o.reportAddress },
      {
        record: { name, value: suggestedDmarcRecord(null, o.reportAddress) },
      },
    );
  else if (published && !o.published.reportsHere)
    add(
      'send_reports_here',
      'action',
      { address: o.reportAddress },
      {
        record: { name, value: suggestedDmarcRecord(published, o.reportAddress) },
      },
    );
  else if (published && o.reports === 0) add('no_reports_yet', 'info', { address: o.reportAddress, days });

  // Mail someone authenticated but not as this domain: a real sender to fix before enforcing.
  const enforcing = policy === 'quarantine' || policy === 'reject';
  for (const s of facts.unaligned.slice(0, SOURCES_NAMED))
    add(
      'fix_source',
      enforcing ? 'action' : 'warning',
      {
        messages: s.messages,
        spfDomains: s.spfDomains.join(', '),
        dkimDomains: s.dkimDomains.join(', '),
        domain: o.domain,
        policy: policy ?? 'none',
      },
      { sourceIp: s.sourceIp },
    );

  const rate = alignedRateOf(facts);
  const daysWithData = o.trend.filter((d) => d.messages > 0).length;
  const enough = o.messages >= THRESHOLDS.minMessages && daysWithData >= THRESHOLDS.minDays;
  const ready = (threshold: number) =>
    enough && rate !== null && rate >= threshold && heldEachWeek(facts, threshold);
  const pct = tags?.pct !== undefined ? Number(tags.pct) : 100;
  const waiting = (next: string, threshold: number) =>
    add('keep_monitoring', 'info', {
      next,
      rate: rate ?? 0,
      threshold,
      messages: o.messages,
      minMessages: THRESHOLDS.minMessages,
      days: daysWithData,
      minDays: THRESHOLDS.minDays,
    });

  if (published && tags) {
    if (policy === 'none' || !policy) {
      if (ready(THRESHOLDS.quarantine))
        add(
          'move_to_quarantine',
          'action',
          { rate: rate ?? 0, days: daysWithData, threshold: THRESHOLDS.quarantine },
          {
            record: { name, value: withTag(published, 'p', 'quarantine') },
          },
        );
      else waiting('quarantine', THRESHOLDS.quarantine);
    } else if (Number.isFinite(pct) && pct < 100 && enforcing) {
      if (ready(THRESHOLDS.quarantine))
        add(
          'raise_pct',
          'action',
          { pct, policy, rate: rate ?? 0 },
          {
            record: { name, value: withoutTag(published, 'pct') },
          },
        );
      else waiting(policy, THRESHOLDS.quarantine);
    } else if (policy === 'quarantine') {
      if (ready(THRESHOLDS.reject))
        add(
          'move_to_reject',
          'action',
          { rate: rate ?? 0, days: daysWithData, threshold: THRESHOLDS.reject },
          {
            record: { name, value: withTag(published, 'p', 'reject') },
          },
        );
      else waiting('reject', THRESHOLDS.reject);
    } else if (policy === 'reject') add('enforced', 'done', { rate: rate ?? 0 });
    const sp = tags.sp?.toLowerCase();
    if (enforcing && sp === 'none')
      add(
        'subdomain_policy',
        'warning',
        { policy },
        { record: { name, value: withTag(published, 'sp', policy) } },
      );
  }

  if (facts.spf)
    for (const p of facts.spf.problems.filter((p) => p.severity !== 'info'))
      add('spf_problem', p.severity === 'error' ? 'action' : 'warning', {
        problem: p.code,
        message: p.message,
        count: p.count ?? 0,
        corrected: facts.spf.corrected?.record ?? '',
      });
  for (const f of facts.dkim ?? [])
    add('dkim_problem', f.severity === 'error' ? 'action' : 'warning', {
      selector: f.selector ?? '',
      message: f.message,
    });

  return out.sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
}
