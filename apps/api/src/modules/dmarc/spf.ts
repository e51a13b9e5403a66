import net from 'node:net';
import {
  SPF_LIMITS,
  type SpfChange,
  type SpfChangeCode,
  type SpfDomain,
  type SpfFailure,
  type SpfNode,
  type SpfProblem,
  type SpfProblemCode,
  type SpfQualifier,
  type SpfSeverity,
  type SpfTerm,
  type SpfTermKind,
} from '@moat/contracts/dmarc';

/**
 * SPF (RFC 7208), checked ahead of any mail: a domain's record parsed, its includes and redirect
 * expanded into a tree, the terms that make a receiver ask DNS counted against the limit of ten,
 * the lookups that find nothing against the limit of two, each problem named in plain words, and
 * a corrected record computed where one can be. Pure but for the injected resolver.
 */

/** The record types the check asks for. */
export type SpfRrtype = 'TXT' | 'A' | 'AAAA' | 'MX';
/** A DNS lookup as node's `resolve` answers it (TXT as arrays of strings, MX as objects). */
export type SpfResolver = (name: string, rrtype: SpfRrtype) => Promise<unknown>;

/** The bounds of one domain's check: its own, beside the receivers' limits. */
export interface SpfBounds {
  /** DNS questions asked in all (a receiver stops at ten terms; the check goes on to say how far over). */
  queries: number;
  /** Milliseconds for the whole check. */
  timeMs: number;
  /** Includes within includes. */
  depth: number;
}
export const SPF_BOUNDS: SpfBounds = { queries: 30, timeMs: 10_000, depth: 10 };

// ---------------------------------------------------------------------------------------------
// Parsing

/** A parsed term, and what is wrong with its syntax (null: nothing). */
export interface ParsedTerm {
  text: string;
  kind: SpfTermKind;
  qualifier: SpfQualifier | null;
  value: string | null;
  /** For `a` and `mx`: the domain without its prefix lengths. */
  target: string | null;
  error: 'unknown_term' | 'bad_ip4' | 'bad_ip6' | 'bad_domain' | null;
}

const SPF_VERSION = /^v=spf1(\s|$)/i;
/** A TXT record's text (its strings joined, as RFC 7208 §3.3 says). */
const txtText = (record: unknown) => (Array.isArray(record) ? record.join('') : String(record));
export const isSpfRecord = (text: string) => SPF_VERSION.test(text);

/** A macro (`%{i}`, `%{d2r}`, `%%`, `%_`, `%-`): the domain is known only when mail comes. */
const hasMacro = (spec: string) => spec.includes('%');
const MACRO = /%(?:\{[slodiphcrtvSLODIPHCRTV]\d*r?[.\-+,/_=]*\}|%|_|-)/g;

/** A domain-spec: a domain name, or one with macros (RFC 7208 §7.1). */
function validDomainSpec(spec: string): boolean {
  if (spec === '' || spec.length > 253) return false;
  if (hasMacro(spec)) return !spec.replace(MACRO, 'x').includes('%') && /^[!-~]+$/.test(spec);
  const labels = spec.replace(/\.$/, '').split('.');
  return labels.length >= 2 && labels.every((label) => /^[A-Za-z0-9_-]{1,63}$/.test(label));
}

function validCidr(text: string | undefined, max: number): boolean {
  if (text === undefined) return true;
  if (!/^\d{1,3}$/.test(text) || (text.length > 1 && text.startsWith('0'))) return false;
  return Number(text) <= max;
}

const MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);

/** One term of a record (RFC 7208 §4.6.1, §5, §6). */
export function parseTerm(text: string): ParsedTerm {
  const term = (
    kind: SpfTermKind,
    qualifier: SpfQualifier | null,
    value: string | null,
    error: ParsedTerm['error'] = null,
    target: string | null = value,
  ): ParsedTerm => ({ text, kind, qualifier, value, target, error });

  const modifier = /^([A-Za-z][A-Za-z0-9_.-]*)=(.*)$/.exec(text);
  if (modifier) {
    const name = modifier[1]!.toLowerCase();
    const value = modifier[2]!;
    if (name === 'redirect' || name === 'exp') {
      return term(name, null, value, validDomainSpec(value) ? null : 'bad_domain');
    }
    return term('modifier', null, value);
  }

  const qualifier = ('+-~?'.includes(text[0] ?? '') ? text[0] : '+') as SpfQualifier;
  const rest = '+-~?'.includes(text[0] ?? '') ? text.slice(1) : text;
  const name = /^[A-Za-z0-9]+/.exec(rest)?.[0]?.toLowerCase() ?? '';
  const tail = rest.slice(name.length);
  if (!MECHANISMS.has(name)) return term('invalid', null, null, 'unknown_term');
  const kind = name as SpfTermKind;

  switch (kind) {
    case 'all':
      return tail === '' ? term(kind, qualifier, null) : term('invalid', null, null, 'unknown_term');
    case 'include':
    case 'exists': {
      if (!tail.startsWith(':')) return term(kind, qualifier, null, 'bad_domain');
      const spec = tail.slice(1);
      return term(kind, qualifier, spec, validDomainSpec(spec) ? null : 'bad_domain');
    }
    case 'ptr': {
      if (tail === '') return term(kind, qualifier, null);
      if (!tail.startsWith(':')) return term('invalid', null, null, 'unknown_term');
      const spec = tail.slice(1);
      return term(kind, qualifier, spec, validDomainSpec(spec) ? null : 'bad_domain');
    }
    case 'a':
    case 'mx': {
      const parts = /^(?::([^/]*))?(?:\/([^/]*))?(?:\/\/(.*))?$/.exec(tail);
      if (!parts) return term('invalid', null, null, 'unknown_term');
      const [, spec, cidr4, cidr6] = parts;
      const value = tail.startsWith(':') ? tail.slice(1) : tail === '' ? null : tail;
      if (spec !== undefined && !validDomainSpec(spec)) return term(kind, qualifier, value, 'bad_domain');
      if (!validCidr(cidr4, 32)) return term(kind, qualifier, value, 'bad_ip4');
      if (!validCidr(cidr6, 128)) return term(kind, qualifier, value, 'bad_ip6');
      return term(kind, qualifier, value, null, spec ?? null);
    }
    case 'ip4': {
      const match = /^:([^/]*)(?:\/(.*))?$/.exec(tail);
      const ok = match && net.isIPv4(match[1]!) && validCidr(match[2], 32);
      return term(kind, qualifier, tail.slice(1) || null, ok ? null : 'bad_ip4');
    }
    case 'ip6': {
      const match = /^:([^/]*)(?:\/(.*))?$/.exec(tail);
      const ok = match && net.isIPv6(match[1]!) && validCidr(match[2], 128);
      return term(kind, qualifier, tail.slice(1) || null, ok ? null : 'bad_ip6');
    }
    default:
      return term('invalid', null, null, 'unknown_term');
  }
}

/** A record's terms, after its version (`v=spf1`); spaces of any length between them. */
export function parseRecord(record: string): ParsedTerm[] {
  return record
    .replace(SPF_VERSION, '')
    .split(/\s+/)
    .filter((text) => text !== '')
    .map(parseTerm);
}

const COUNTED = new Set<SpfTermKind>(['include', 'a', 'mx', 'ptr', 'exists', 'redirect']);

/** A term as written, qualifier included only when it says something. */
const written = (qualifier: SpfQualifier | null, rest: string) =>
  `${qualifier && qualifier !== '+' ? qualifier : ''}${rest}`;

// ---------------------------------------------------------------------------------------------
// Words

/** Each problem's severity and its words. */
function problem(
  code: SpfProblemCode,
  domain: string,
  extra: { term?: string | null; count?: number | null } = {},
): SpfProblem {
  const term = extra.term ?? null;
  const count = extra.count ?? null;
  const said: Record<SpfProblemCode, [SpfSeverity, string]> = {
    no_record: [
      'error',
      `${domain} publishes no SPF record: receivers cannot tell your servers from someone forging your address. Publish a TXT record starting with v=spf1 that lists the servers sending your mail and ends in ~all or -all.`,
    ],
    multiple_records: [
      'error',
      `${domain} publishes ${count} SPF records; receivers treat that as an error (permerror) and SPF fails for all its mail. Merge them into one.`,
    ],
    too_many_lookups: [
      'error',
      `The record needs ${count} DNS lookups; receivers allow ${SPF_LIMITS.lookups} and answer the rest with an error (permerror), so SPF fails for your mail. Remove includes you no longer use, or replace some by the addresses they stand for.`,
    ],
    too_many_void_lookups: [
      'error',
      `${count} lookups find nothing (no such name, or no answer); receivers allow ${SPF_LIMITS.voidLookups} and then answer with an error (permerror). Remove the terms that point at names that are gone.`,
    ],
    pass_all: [
      'error',
      `${term} in ${domain}'s record lets any server in the world pass SPF as your domain. End the record in -all (or ~all).`,
    ],
    neutral_all: [
      'warning',
      `${term} says nothing about servers the record does not list: forged mail passes as neutral. End the record in ~all, then -all.`,
    ],
    no_all: [
      'warning',
      `${domain}'s record has no "all" at its end and no redirect: mail from servers it does not list passes as neutral. End it in ~all or -all.`,
    ],
    ptr: [
      'warning',
      `${term} (in ${domain}'s record) is deprecated: it is slow, unreliable, and many receivers ignore it. Name the servers by their addresses or with a instead.`,
    ],
    unknown_term: [
      'error',
      `"${term}" in ${domain}'s record is not an SPF term; receivers treat the whole record as an error (permerror).`,
    ],
    bad_ip4: [
      'error',
      `"${term}" in ${domain}'s record is not a valid IPv4 address or network (four numbers 0–255, prefix length 0–32); receivers treat the record as an error (permerror).`,
    ],
    bad_ip6: [
      'error',
      `"${term}" in ${domain}'s record is not a valid IPv6 address or network (prefix length 0–128); receivers treat the record as an error (permerror).`,
    ],
    bad_domain: [
      'error',
      `"${term}" in ${domain}'s record does not name a valid domain; receivers treat the record as an error (permerror).`,
    ],
    duplicate_modifier: [
      'error',
      `${domain}'s record has "${term}" more than once; receivers treat that as an error (permerror). Keep one.`,
    ],
    include_no_record: [
      'error',
      `${term} points at ${domain}, which publishes no SPF record; receivers treat that as an error (permerror). Remove it, or correct the name.`,
    ],
    include_failed: [
      'warning',
      `Could not check ${term}: the lookup of ${domain} gave no answer. The counts leave it out; check again in a moment.`,
    ],
    term_failed: [
      'warning',
      `Could not check ${term} in ${domain}'s record: its lookup gave no answer. Check again in a moment.`,
    ],
    void_term: [
      'warning',
      `${term} in ${domain}'s record finds nothing in DNS (a void lookup): it lets no server send, and counts against the limit of ${SPF_LIMITS.voidLookups}. Remove it, or correct the name.`,
    ],
    too_many_mx: [
      'error',
      `${term} in ${domain}'s record finds ${count} mail servers; receivers look at no more than ${SPF_LIMITS.lookups} and answer with an error (permerror).`,
    ],
    cycle: [
      'error',
      `${term} includes ${domain} again, which leads back to itself: receivers go round until the lookup limit and answer with an error (permerror). Remove it.`,
    ],
    too_deep: [
      'error',
      `${term} nests includes too deep to follow; receivers will exceed the lookup limit. Flatten the chain.`,
    ],
    redirect_ignored: [
      'warning',
      `${domain}'s record has both an "all" and ${term}: receivers ignore the redirect. Remove one of them.`,
    ],
    after_all: [
      'warning',
      `${term} comes after "all" in ${domain}'s record: receivers never reach it. Move "all" to the end.`,
    ],
    record_too_long: [
      'warning',
      `${domain}'s record is ${count} bytes long; over ${SPF_LIMITS.recordBytes} it may not fit in one DNS answer, and some receivers fail to read it. Shorten it.`,
    ],
    macro: [
      'info',
      `${term} in ${domain}'s record uses a macro: its name is known only when mail arrives, so it could not be looked up now. It still counts as a lookup.`,
    ],
    incomplete: [
      'info',
      `The check stopped after ${count} DNS lookups or its time limit; the counts shown are at least these.`,
    ],
  };
  const [severity, message] = said[code];
  return { code, severity, domain, term, count, message };
}

function change(
  code: SpfChangeCode,
  extra: { term?: string | null; replacement?: string | null; domain?: string | null; count?: number | null },
): SpfChange {
  const term = extra.term ?? null;
  const replacement = extra.replacement ?? null;
  const domain = extra.domain ?? null;
  const count = extra.count ?? null;
  const said: Record<SpfChangeCode, string> = {
    merged: `The ${count} SPF records are merged into one: receivers accept only one.`,
    removed_invalid: `"${term}" is removed: it is not valid SPF and made receivers reject the whole record. If it meant a server of yours, add it back written correctly.`,
    removed_ptr: `${term} is removed: ptr is deprecated and unreliable. If a server of yours passed only through it, add its address (ip4: or ip6:).`,
    removed_duplicate: `The second ${term} is removed: it said the same again and may cost a lookup.`,
    removed_include_no_record: `${term} is removed: ${domain} publishes no SPF record, which made SPF fail with an error.`,
    removed_cycle: `${term} is removed: it leads back to the record itself.`,
    removed_void: `${term} is removed: it finds nothing in DNS, so it lets no server send and costs a void lookup.`,
    removed_redirect: `${term} is removed: with an "all" in the record, receivers ignore it.`,
    moved_all: `${term} is moved to the end: the terms after it were never reached. If they are not your servers, delete them.`,
    pass_all_to_fail: `${term} becomes ${replacement}: servers the record does not list fail SPF instead of passing.`,
    neutral_to_softfail: `${term} becomes ${replacement}: servers the record does not list soft-fail. Once you are sure every sender is listed, use -all.`,
    added_all: `${replacement} is added at the end: servers the record does not list soft-fail. Once you are sure every sender is listed, use -all.`,
    flattened: `${term} is replaced by the ${count === 1 ? 'address' : `${count} addresses`} ${domain} publishes today, saving its lookups. Keep this up to date: when ${domain} changes its servers, your record must change too.`,
    still_too_many_lookups: `Even so, the record needs ${count} lookups. Remove includes of services you no longer use, or ask their providers for a smaller include.`,
    split_strings: `The record is ${count} characters long: publish it as one TXT record of several quoted strings of at most 255 characters each (most DNS hosts do this for you).`,
  };
  return { code, term, replacement, domain, count, message: said[code] };
}

// ---------------------------------------------------------------------------------------------
// Lookups

/** A lookup's outcome: records, nothing (no such name, no answer: void), or a failure. */
type Answer = { records: unknown[] } | { void: true } | { failure: SpfFailure };

const NOTHING = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

function failureOf(code: string | undefined): SpfFailure {
  if (code === 'ETIMEOUT') return 'timeout';
  if (code === 'ESERVFAIL') return 'servfail';
  if (code === 'EREFUSED') return 'refused';
  if (code === 'ECONNREFUSED' || code === 'ENOSERVER' || code === 'ECONNRESET') return 'unreachable';
  return 'failed';
}

/** One domain's check: its questions asked (once each), its budget of them, its deadline. */
function lookups(resolver: SpfResolver, bounds: SpfBounds) {
  const started = Date.now();
  const asked = new Map<string, Promise<Answer>>();
  let queries = 0;
  let stopped = false;

  async function ask(name: string, rrtype: SpfRrtype): Promise<Answer> {
    const left = bounds.timeMs - (Date.now() - started);
    if (left <= 0) {
      stopped = true;
      return { failure: 'timeout' };
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Answer>((resolve) => {
      timer = setTimeout(() => resolve({ failure: 'timeout' }), left);
    });
    const answered = resolver(name, rrtype).then(
      (records): Answer => (Array.isArray(records) && records.length > 0 ? { records } : { void: true }),
      (error: { code?: string }): Answer =>
        NOTHING.has(error?.code ?? '') ? { void: true } : { failure: failureOf(error?.code) },
    );
    try {
      return await Promise.race([answered, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** null: the check's own bounds are spent (the question was not asked). */
    lookup(name: string, rrtype: SpfRrtype): Promise<Answer> | null {
      const key = `${rrtype} ${name.toLowerCase().replace(/\.$/, '')}`;
      const known = asked.get(key);
      if (known) return known;
      if (queries >= bounds.queries || Date.now() - started >= bounds.timeMs) {
        stopped = true;
        return null;
      }
      queries += 1;
      const answer = ask(name, rrtype);
      asked.set(key, answer);
      return answer;
    },
    get stopped() {
      return stopped;
    },
    get queries() {
      return queries;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Expansion

/** What the expansion keeps of each node beside what the answer shows. */
interface Expanded extends SpfNode {
  parsed: ParsedTerm[];
  /** The other SPF records the domain publishes (the domain itself only). */
  others: string[];
  children: Expanded[];
  /** Each child's term, by the child. */
  childTerm: Map<Expanded, ParsedTerm>;
}

const bareName = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Expands `domain`'s record into a tree, counting as a receiver would, left to right, depth first. */
async function expand(domain: string, resolver: SpfResolver, bounds: SpfBounds) {
  const dnsOf = lookups(resolver, bounds);
  const problems: SpfProblem[] = [];
  const count = { lookups: 0, voids: 0 };
  const say = (...args: Parameters<typeof problem>) => problems.push(problem(...args));

  const node = (
    name: string,
    via: SpfNode['via'],
    qualifier: SpfQualifier | null,
    status: SpfNode['status'],
  ): Expanded => ({
    domain: name,
    via,
    qualifier,
    record: null,
    status,
    failure: null,
    lookups: via ? 1 : 0,
    voidLookups: 0,
    beyondLimit: false,
    terms: [],
    children: [],
    parsed: [],
    others: [],
    childTerm: new Map(),
  });

  /** A void lookup counted on the node (and the whole check). */
  const voided = (at: Expanded) => {
    at.voidLookups += 1;
    count.voids += 1;
  };

  async function visit(
    name: string,
    via: SpfNode['via'],
    qualifier: SpfQualifier | null,
    path: string[],
    viaText: string,
  ): Promise<Expanded> {
    const at = node(name, via, qualifier, 'ok');
    if (path.includes(bareName(name))) {
      at.status = 'cycle';
      say('cycle', name, { term: viaText });
      return at;
    }
    if (path.length > bounds.depth) {
      at.status = 'too_deep';
      say('too_deep', name, { term: viaText });
      return at;
    }
    const pending = dnsOf.lookup(name, 'TXT');
    if (!pending) {
      at.status = 'not_checked';
      return at;
    }
    const answer = await pending;
    if ('failure' in answer) {
      at.status = 'failed';
      at.failure = answer.failure;
      if (via) say('include_failed', name, { term: viaText });
      return at;
    }
    if ('void' in answer && via) voided(at);
    const records = 'records' in answer ? answer.records.map(txtText).filter(isSpfRecord) : [];
    if (records.length === 0) {
      at.status = 'no_record';
      if (via) say('include_no_record', name, { term: viaText });
      return at;
    }
    at.record = records[0]!;
    at.others = records.slice(1);
    if (records.length > 1) {
      say('multiple_records', name, { count: records.length });
      // An include with two records is an error at receivers: nothing of it counts further.
      if (via) {
        at.status = 'multiple_records';
        return at;
      }
    }
    const bytes = Buffer.byteLength(at.record);
    if (bytes > SPF_LIMITS.recordBytes) say('record_too_long', name, { count: bytes });
    at.parsed = parseRecord(at.record);
    await evaluate(at, [...path, bareName(name)]);
    return at;
  }

  /** The terms of a node, as a receiver would go through them when none matches. */
  async function evaluate(at: Expanded, path: string[]) {
    const allAt = at.parsed.findIndex((t) => t.kind === 'all');
    const seenModifiers = new Set<string>();
    let redirect: ParsedTerm | null = null;
    for (const [index, parsed] of at.parsed.entries()) {
      const term: SpfTerm = {
        text: parsed.text,
        kind: parsed.kind,
        qualifier: parsed.qualifier,
        value: parsed.value,
        counted: false,
        void: false,
        failed: false,
        beyondLimit: false,
      };
      at.terms.push(term);
      if (parsed.error) {
        say(parsed.error, at.domain, { term: parsed.text });
        continue;
      }
      if (parsed.kind === 'redirect' || parsed.kind === 'exp') {
        if (seenModifiers.has(parsed.kind)) say('duplicate_modifier', at.domain, { term: parsed.kind });
        seenModifiers.add(parsed.kind);
      }
      if (parsed.kind === 'redirect') {
        if (allAt >= 0) say('redirect_ignored', at.domain, { term: parsed.text });
        else redirect ??= parsed;
        continue;
      }
      if (allAt >= 0 && index > allAt && parsed.kind !== 'exp' && parsed.kind !== 'modifier') {
        say('after_all', at.domain, { term: parsed.text });
        continue;
      }
      if (parsed.kind === 'ptr') say('ptr', at.domain, { term: parsed.text });
      if (COUNTED.has(parsed.kind)) await counted(at, parsed, term, path);
    }
    if (redirect) {
      const term = at.terms[at.parsed.indexOf(redirect)]!;
      await counted(at, redirect, term, path);
    }
  }

  /** A term that makes a receiver ask DNS: counted, then looked up (or expanded) when it can be. */
  async function counted(at: Expanded, parsed: ParsedTerm, term: SpfTerm, path: string[]) {
    count.lookups += 1;
    at.lookups += 1;
    term.counted = true;
    if (count.lookups > SPF_LIMITS.lookups) term.beyondLimit = true;
    const target = parsed.kind === 'a' || parsed.kind === 'mx' ? parsed.target : parsed.value;
    if (target && hasMacro(target)) {
      say('macro', at.domain, { term: parsed.text });
      return;
    }
    const name = target ?? at.domain;
    if (parsed.kind === 'ptr') return; // its names come from the sender's address, when mail comes
    if (parsed.kind === 'include' || parsed.kind === 'redirect') {
      // The term itself is counted on the child.
      at.lookups -= 1;
      const child = await visit(name, parsed.kind, parsed.qualifier, path, parsed.text);
      child.beyondLimit = term.beyondLimit;
      at.children.push(child);
      at.childTerm.set(child, parsed);
      at.lookups += child.lookups;
      at.voidLookups += child.voidLookups;
      if (child.status === 'failed') term.failed = true;
      if (child.voidLookups > 0 && child.status === 'no_record') term.void = true;
      return;
    }
    const rrtype: SpfRrtype = parsed.kind === 'mx' ? 'MX' : 'A';
    const pending = dnsOf.lookup(name, rrtype);
    if (!pending) return;
    let answer = await pending;
    // `a` finds an IPv6 address as well as an IPv4 one.
    if (parsed.kind === 'a' && 'void' in answer) {
      const six = dnsOf.lookup(name, 'AAAA');
      if (six) answer = await six;
    }
    if ('failure' in answer) {
      term.failed = true;
      say('term_failed', at.domain, { term: parsed.text });
    } else if ('void' in answer) {
      term.void = true;
      voided(at);
      say('void_term', at.domain, { term: parsed.text });
    } else if (parsed.kind === 'mx' && answer.records.length > SPF_LIMITS.lookups) {
      say('too_many_mx', at.domain, { term: parsed.text, count: answer.records.length });
    }
  }

  const root = await visit(domain, null, null, [], domain);
  return { root, problems, count, stopped: dnsOf.stopped, queries: dnsOf.queries };
}

// ---------------------------------------------------------------------------------------------
// What the record ends in

/** The `all` that decides for servers a record does not list: its own, or its redirect's. */
function finalAll(at: Expanded): { term: ParsedTerm; domain: string } | null {
  const all = at.parsed.find((t) => t.kind === 'all');
  if (all) return { term: all, domain: at.domain };
  const redirect = at.children.find((c) => c.via === 'redirect');
  return redirect ? finalAll(redirect) : null;
}

function allProblems(root: Expanded): SpfProblem[] {
  const found: SpfProblem[] = [];
  const ending = finalAll(root);
  const hasRedirect = root.parsed.some((t) => t.kind === 'redirect' && !t.error);
  if (ending?.term.qualifier === '+')
    found.push(problem('pass_all', ending.domain, { term: ending.term.text }));
  else if (ending?.term.qualifier === '?')
    found.push(problem('neutral_all', ending.domain, { term: ending.term.text }));
  else if (!ending && !hasRedirect) found.push(problem('no_all', root.domain));
  // An include that passes everyone lets everyone pass, whatever the record ends in.
  const visit = (at: Expanded) => {
    for (const child of at.children) {
      if (child.via === 'include' && child.qualifier === '+') {
        const inner = finalAll(child);
        if (inner?.term.qualifier === '+')
          found.push(problem('pass_all', inner.domain, { term: inner.term.text }));
        else visit(child);
      }
    }
  };
  visit(root);
  return found;
}

// ---------------------------------------------------------------------------------------------
// The corrected record

/** The addresses an include stands for when they are fixed (ip4 and ip6 only, passing); else null. */
function fixedAddresses(at: Expanded): string[] | null {
  if (at.status !== 'ok' || at.parsed.some((t) => t.error)) return null;
  const addresses: string[] = [];
  const hasAll = at.parsed.some((t) => t.kind === 'all');
  for (const t of at.parsed) {
    if (t.kind === 'exp' || t.kind === 'modifier' || (t.kind === 'redirect' && hasAll)) continue;
    if (t.kind === 'all') return t.qualifier === '+' ? null : addresses;
    if (t.kind === 'redirect') {
      const child = at.children.find((c) => c.via === 'redirect');
      const inner = child && fixedAddresses(child);
      return inner ? [...addresses, ...inner] : null;
    }
    if (t.qualifier !== '+') return null;
    if (t.kind === 'ip4' || t.kind === 'ip6') addresses.push(`${t.kind}:${t.value}`);
    else if (t.kind === 'include') {
      const child = [...at.childTerm.entries()].find(([, term]) => term === t)?.[0];
      const inner = child && fixedAddresses(child);
      if (!inner) return null;
      addresses.push(...inner);
    } else return null;
  }
  return addresses;
}

/** What each kept term of the corrected record costs in lookups. */
function costOf(root: Expanded, t: ParsedTerm): number {
  if (!COUNTED.has(t.kind)) return 0;
  const child = [...root.childTerm.entries()].find(([, term]) => term === t)?.[0];
  return child ? child.lookups : 1;
}

/** The record to publish instead, with each change explained; null when nothing needs changing. */
export function correctedRecord(
  root: Expanded,
): { record: string; lookups: number; changes: SpfChange[] } | null {
  const changes: SpfChange[] = [];
  const byChild = new Map([...root.childTerm.entries()].map(([child, term]) => [term, child]));
  let terms: ParsedTerm[] = [...root.parsed];

  if (root.others.length > 0) {
    // The other records' terms join the first's; the first's "all" (or redirect) decides.
    const extra = root.others.flatMap(parseRecord);
    const ends = (t: ParsedTerm) => t.kind === 'all' || t.kind === 'redirect' || t.kind === 'exp';
    const endings = [...terms, ...extra].filter(ends);
    terms = [...terms.filter((t) => !ends(t)), ...extra.filter((t) => !ends(t))];
    const all = endings.find((t) => t.kind === 'all');
    const redirect = endings.find((t) => t.kind === 'redirect');
    const exp = endings.find((t) => t.kind === 'exp');
    terms.push(...[exp, all ?? redirect].filter((t): t is ParsedTerm => t !== undefined));
    changes.push(change('merged', { count: root.others.length + 1 }));
  }

  const kept: ParsedTerm[] = [];
  const seen = new Set<string>();
  for (const t of terms) {
    const key = t.text.toLowerCase().replace(/^\+/, '');
    const child = byChild.get(t);
    if (t.error) changes.push(change('removed_invalid', { term: t.text }));
    else if (t.kind === 'ptr') changes.push(change('removed_ptr', { term: t.text }));
    else if (seen.has(key) || (t.kind !== 'modifier' && kept.some((k) => k.kind === t.kind && ends(t))))
      changes.push(change('removed_duplicate', { term: t.text }));
    else if (child?.status === 'no_record' || child?.status === 'multiple_records')
      changes.push(change('removed_include_no_record', { term: t.text, domain: child.domain }));
    else if (child?.status === 'cycle') changes.push(change('removed_cycle', { term: t.text }));
    else if (isVoid(root, t)) changes.push(change('removed_void', { term: t.text }));
    else kept.push(t);
    seen.add(key);
  }
  terms = kept;

  // "all" last; a redirect beside it is ignored by receivers.
  const all = terms.find((t) => t.kind === 'all');
  if (all) {
    const redirect = terms.find((t) => t.kind === 'redirect');
    if (redirect) {
      changes.push(change('removed_redirect', { term: redirect.text }));
      terms = terms.filter((t) => t !== redirect);
    }
    const after = terms
      .slice(terms.indexOf(all) + 1)
      .filter((t) => t.kind !== 'exp' && t.kind !== 'modifier');
    if (after.length > 0) {
      changes.push(change('moved_all', { term: all.text }));
      terms = [...terms.filter((t) => t !== all), all];
    }
  }
  let ending = all ? written(all.qualifier, 'all') : null;
  if (all?.qualifier === '+') {
    ending = '-all';
    changes.push(change('pass_all_to_fail', { term: all.text, replacement: ending }));
  } else if (all?.qualifier === '?') {
    ending = '~all';
    changes.push(change('neutral_to_softfail', { term: all.text, replacement: ending }));
  } else if (!all && !terms.some((t) => t.kind === 'redirect')) {
    ending = '~all';
    changes.push(change('added_all', { replacement: ending }));
  }

  // Too many lookups: the includes that stand for fixed addresses, the costliest first, become them.
  let out: string[] = terms.filter((t) => t.kind !== 'all').map((t) => t.text);
  const lookupsOf = (list: ParsedTerm[]) => list.reduce((sum, t) => sum + costOf(root, t), 0);
  let lookups = lookupsOf(terms);
  if (lookups > SPF_LIMITS.lookups) {
    const flattenable = terms
      .map((t) => ({ t, child: byChild.get(t) }))
      .filter(({ t, child }) => t.kind === 'include' && child && fixedAddresses(child))
      .sort((a, b) => (b.child?.lookups ?? 0) - (a.child?.lookups ?? 0));
    for (const { t, child } of flattenable) {
      if (lookups <= SPF_LIMITS.lookups || !child) break;
      const addresses = [...new Set(fixedAddresses(child))].filter((a) => !out.includes(a));
      const replacement = addresses.map((a) => written(t.qualifier, a));
      out = out.flatMap((text) => (text === t.text ? replacement : [text]));
      lookups -= child.lookups;
      changes.push(
        change('flattened', {
          term: t.text,
          replacement: replacement.join(' '),
          domain: child.domain,
          count: addresses.length,
        }),
      );
    }
    if (lookups > SPF_LIMITS.lookups) changes.push(change('still_too_many_lookups', { count: lookups }));
  }
  if (!changes.some((c) => c.code !== 'still_too_many_lookups')) return null;
  const record = ['v=spf1', ...out, ...(ending ? [ending] : [])].join(' ');
  if (record.length > 255) changes.push(change('split_strings', { count: record.length }));
  return { record, lookups, changes };

  function ends(t: ParsedTerm) {
    return t.kind === 'all' || t.kind === 'redirect' || t.kind === 'exp';
  }
}

/** A term of the record itself whose lookup found nothing (and would find nothing for anyone). */
function isVoid(root: Expanded, t: ParsedTerm): boolean {
  const index = root.parsed.indexOf(t);
  if (index < 0) return false;
  const term = root.terms[index];
  return Boolean(term?.void) && (t.kind === 'a' || t.kind === 'mx' || t.kind === 'exists');
}

// ---------------------------------------------------------------------------------------------

const strip = (at: Expanded): SpfNode => ({
  domain: at.domain,
  via: at.via,
  qualifier: at.qualifier,
  record: at.record,
  status: at.status,
  failure: at.failure,
  lookups: at.lookups,
  voidLookups: at.voidLookups,
  beyondLimit: at.beyondLimit,
  terms: at.terms,
  children: at.children.map(strip),
});

const SEVERITY_ORDER: Record<SpfSeverity, number> = { error: 0, warning: 1, info: 2 };

/**
 * One domain's SPF, checked now: its record(s), the tree of its includes and redirect, the
 * lookups and void lookups counted, its problems (errors first), and a corrected record. A
 * lookup of the domain's own record that fails says so (`checked: false`): not an error.
 */
export async function checkSpf(
  domain: string,
  resolver: SpfResolver,
  bounds: SpfBounds = SPF_BOUNDS,
): Promise<SpfDomain> {
  const { root, problems, count, stopped, queries } = await expand(domain, resolver, bounds);
  const base = {
    domain,
    lookups: count.lookups,
    voidLookups: count.voids,
    complete: !stopped,
  };
  if (root.status === 'failed' || root.status === 'not_checked') {
    return {
      ...base,
      checked: false,
      failure: root.failure ?? 'timeout',
      records: [],
      tree: null,
      problems: [],
      corrected: null,
    };
  }
  if (root.status === 'no_record') {
    return {
      ...base,
      checked: true,
      failure: null,
      records: [],
      tree: null,
      problems: [problem('no_record', domain)],
      corrected: null,
    };
  }
  const found = [...problems, ...allProblems(root)];
  if (count.lookups > SPF_LIMITS.lookups)
    found.push(problem('too_many_lookups', domain, { count: count.lookups }));
  if (count.voids > SPF_LIMITS.voidLookups)
    found.push(problem('too_many_void_lookups', domain, { count: count.voids }));
  if (stopped) found.push(problem('incomplete', domain, { count: queries }));
  found.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  return {
    ...base,
    checked: true,
    failure: null,
    records: [root.record!, ...root.others],
    tree: strip(root),
    problems: found,
    corrected: correctedRecord(root),
  };
}

export type { Expanded as SpfExpandedNode };
