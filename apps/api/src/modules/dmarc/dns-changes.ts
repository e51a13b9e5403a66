import type { DnsPollFailure, DnsRecordKind } from '@moat/contracts/dmarc';

/**
 * DNS Change-Log (issue 37), the pure part: which names are asked for a domain, and each answer
 * normalised (TXT strings joined, records sorted, spacing evened) so that a record nobody changed
 * never reads as a change. A lookup that failed (timeout, SERVFAIL) is no answer: its record is
 * kept as it was last seen.
 */

export type DnsChangeRrtype = 'TXT' | 'MX';
/** The system resolver's shape: node:dns answers (TXT: each record its strings; MX: objects). */
export type DnsChangeResolver = (name: string, rrtype: DnsChangeRrtype) => Promise<unknown>;

/** One record to poll: its kind, the name asked, its type and which of the name's records are it. */
export interface PolledName {
  kind: DnsRecordKind;
  name: string;
  rrtype: DnsChangeRrtype;
  /** Only the TXT records that start so (case-insensitive) are this record; none: all of them. */
  tag?: RegExp;
}

/** At most this many DKIM selectors are polled per domain. */
export const MAX_SELECTORS = 20;

/** A DKIM selector as DNS allows it in a name: labels of letters, digits, `-` and `_`. */
const SELECTOR = /^[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

export const bareName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** The selectors fit to ask about (lower case, distinct, valid in a name), at most MAX_SELECTORS. */
export function usableSelectors(selectors: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const s of selectors) {
    const selector = bareName(s);
    if (selector.length > 0 && selector.length <= 120 && SELECTOR.test(selector)) out.add(selector);
  }
  return [...out].sort().slice(0, MAX_SELECTORS);
}

/** The names asked for `domain`: SPF and MX at the domain, DMARC, each DKIM selector, MTA-STS, TLS-RPT. */
export function namesOf(domain: string, selectors: string[] = []): PolledName[] {
  const d = bareName(domain);
  return [
    { kind: 'spf', name: d, rrtype: 'TXT', tag: /^v=spf1(\s|$)/i },
    { kind: 'dmarc', name: `_dmarc.${d}`, rrtype: 'TXT', tag: /^v\s*=\s*DMARC1\s*(;|$)/i },
    ...usableSelectors(selectors).map(
      (s): PolledName => ({ kind: 'dkim', name: `${s}._domainkey.${d}`, rrtype: 'TXT' }),
    ),
    { kind: 'mx', name: d, rrtype: 'MX' },
    { kind: 'mta_sts', name: `_mta-sts.${d}`, rrtype: 'TXT', tag: /^v\s*=\s*STSv1\s*(;|$)/i },
    { kind: 'tls_rpt', name: `_smtp._tls.${d}`, rrtype: 'TXT', tag: /^v\s*=\s*TLSRPTv1\s*(;|$)/i },
  ];
}

/** The selector of a DKIM key's name (`s1._domainkey.example.com` → `s1`). */
export function selectorOf(kind: DnsRecordKind, name: string, domain: string): string | null {
  if (kind !== 'dkim') return null;
  const suffix = `._domainkey.${bareName(domain)}`;
  return name.endsWith(suffix) ? name.slice(0, -suffix.length) : null;
}

/** Runs of white space as one space, none at the ends: how a record is compared. */
const even = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * A record's value from node:dns's answer: TXT records' strings joined (as receivers read them),
 * only those `polled.tag` names; MX as `priority exchange`. Sorted, one a line; null when the name
 * publishes none of them.
 */
export function normalise(polled: Pick<PolledName, 'rrtype' | 'tag'>, answer: unknown): string | null {
  const records = Array.isArray(answer) ? answer : [];
  let lines: string[];
  if (polled.rrtype === 'MX') {
    lines = records
      .map((r) => r as { priority?: unknown; exchange?: unknown })
      .map((r) => ({
        priority: Number(r.priority ?? 0),
        exchange: bareName(String(r.exchange ?? '')) || '.',
      }))
      .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange))
      .map((r) => `${r.priority} ${r.exchange}`);
  } else {
    lines = records
      .map((r) => even(Array.isArray(r) ? r.join('') : String(r)))
      .filter((text) => text !== '' && (!polled.tag || polled.tag.test(text)))
      .sort();
  }
  const unique = [...new Set(lines)];
  return unique.length === 0 ? null : unique.join('\n');
}

/** c-ares codes that are an answer: the name or its records do not exist. */
const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

/** Why a lookup gave no answer, as the change log keeps it. */
export function failureOf(code: string): DnsPollFailure {
  if (code === 'ETIMEOUT') return 'timeout';
  if (code === 'ESERVFAIL') return 'servfail';
  if (code === 'EREFUSED') return 'refused';
  if (code === 'ECONNREFUSED' || code === 'ENOSERVER' || code === 'UNKNOWN_ARES_ERROR') return 'unreachable';
  return 'failed';
}

export type Lookup = { ok: true; value: string | null } | { ok: false; failure: DnsPollFailure };

/** One name asked once: its value (null: none published), or why there was no answer. */
export async function lookup(resolve: DnsChangeResolver, polled: PolledName): Promise<Lookup> {
  try {
    return { ok: true, value: normalise(polled, await resolve(polled.name, polled.rrtype)) };
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'EUNKNOWN';
    if (NO_RECORDS.has(code)) return { ok: true, value: null };
    return { ok: false, failure: failureOf(code) };
  }
}

/** What a poll's answer does to a record as last seen. */
export type Outcome =
  | { type: 'first'; value: string | null }
  | { type: 'unchanged' }
  | { type: 'changed'; before: string | null; after: string | null }
  | { type: 'failed'; failure: DnsPollFailure };

/** `known`: the record was read before (its value `previous`). */
export function outcomeOf(known: boolean, previous: string | null, result: Lookup): Outcome {
  if (!result.ok) return { type: 'failed', failure: result.failure };
  if (!known) return { type: 'first', value: result.value };
  if (previous === result.value) return { type: 'unchanged' };
  return { type: 'changed', before: previous, after: result.value };
}
