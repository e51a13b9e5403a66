import { domainToUnicode } from 'node:url';
import {
  type ClickOutcome,
  type ClicksQuery,
  type ClicksResponse,
  type ClickTimeSettings,
  type ClickVerdict,
  LINK_PATH_PREFIX,
  type LinkCheckResponse,
} from '@moat/contracts/click-time';
import type { FastifyBaseLogger } from 'fastify';
import { PHISHING_POINTS, SUSPICIOUS_POINTS } from '../../engines/phishing/evidence.ts';
import { hostOf, linkEvidence } from '../../engines/phishing/urls.ts';
import type { Finding } from '../../engines/types.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Caches } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { senderKeys, urlKeys } from '../../mail/gateway/policy.ts';
import type { RewriteUrl } from '../../mail/gateway/rewrite-links.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { ClickRow, ClickTimeRepo, LinkEntry } from './click-time.repo.ts';
import { createLinkTokens, type LinkClaims, MAX_REWRITTEN_URL } from './link-token.ts';
import { isLinkScanner, type VisitSignals } from './scanners.ts';

/** How long a node keeps a tenant's choices, entries and domains between change notices. */
const CACHE_TTL_MS = 5 * 60_000;
/**
 * How long a node keeps what it read of a message's verdict now: a message found bad later blocks
 * its links within this time on every node (the verdict's tables announce no changes).
 */
const MESSAGE_TTL_MS = 10_000;
/** How long clicks wait to be written together (after their answers went out). */
const WRITE_DELAY_MS = 200;
/** URLs whose entries and features a node keeps judged. */
const URL_FACTS_MAX = 20_000;
/** Clicks written in one statement; more wait for the next. */
const WRITE_BATCH = 2_000;
/** Clicks waiting to be written at most (a flood of clicks is shed, never the redirects). */
const MAX_WAITING = 20_000;

/** Rules of the anti-phishing engine that alone make a link malicious at the click. */
const MALICIOUS_RULES = new Set([
  'LINK_LOOKALIKE_OWN_DOMAIN',
  'LINK_LOOKALIKE_BRAND',
  'LINK_MIXED_SCRIPT_HOST',
]);

export interface Judgement {
  verdict: ClickVerdict;
  reasons: string[];
  host: string;
}

export interface Visit extends VisitSignals {
  ip: string;
}

export type VisitResult =
  | { kind: 'invalid' }
  | { kind: 'redirect'; url: string }
  | { kind: 'page'; verdict: Exclude<ClickVerdict, 'clean'> };

/** What the gateway asks for each copy it delivers. */
export interface DeliveredCopy {
  tenantId: string;
  inboundId: string;
  recipient: string;
  /** The message's verdict as delivered: clean, or the verdict a warning banner names. */
  verdict: string;
}

const liveAt = (entry: LinkEntry, now: Date) => entry.expiresAt === null || entry.expiresAt > now;

/** The tenant's host and URL entries a link matches, live or not. */
function entriesMatching(entries: LinkEntry[], url: string): LinkEntry[] {
  const host = hostOf(url);
  if (!host) return [];
  const hostKeys = new Set(senderKeys(`x@${host}`).slice(1));
  const keys = new Set(urlKeys(url));
  return entries.filter((e) => (e.kind === 'domain' ? hostKeys.has(e.value) : keys.has(e.value)));
}

/** The one of these entries that holds now: block before allow. */
function liveEntry(matching: LinkEntry[], now: Date): LinkEntry | null {
  const live = matching.filter((e) => liveAt(e, now));
  return live.find((e) => e.list === 'block') ?? live.find((e) => e.list === 'allow') ?? null;
}

/** The entry that matches a link among the tenant's host and URL entries; block before allow. */
function linkEntryFor(entries: LinkEntry[], url: string, now: Date): LinkEntry | null {
  return liveEntry(entriesMatching(entries, url), now);
}

const readable = (host: string) => {
  const unicode = domainToUnicode(host);
  return unicode === '' ? host : unicode;
};

/**
 * Click-time protection (issue 36): rewritten links for the gateway, the judgement of a click at
 * the moment it happens, its record, and the tenant's choices.
 */
export function createClickTime(deps: {
  repo: ClickTimeRepo;
  caches: Pick<Caches, 'create'>;
  serverKey: ServerKey;
  clock: Clock;
  publicUrl: string;
  domainsOf: (tenantId: string) => Promise<string[]>;
  audit: Pick<AuditRepo, 'record'>;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /**
   * What the DNS blocklists' URI zones (URIBL_ZONES) say of a link now, time-boxed; absent when no
   * zone is set.
   */
  linkListings?: (url: string, ownDomains: string[]) => Promise<Finding[]>;
  /** People clicked through to a host or URL blocked since: its admins are emailed. */
  alertClickedThrough?: (tenantId: string, blocked: string, people: string[]) => Promise<void>;
}) {
  const { repo, clock } = deps;
  const tokens = createLinkTokens(deps.serverKey);
  const linkBase = `${deps.publicUrl.replace(/\/+$/, '')}${LINK_PATH_PREFIX}`;
  const settings = deps.caches.create<ClickTimeSettings>('click-time-settings', {
    tables: ['click_time_settings'],
    ttlMs: CACHE_TTL_MS,
  });
  const entries = deps.caches.create<LinkEntry[]>('click-time-entries', {
    tables: ['sender_lists'],
    ttlMs: CACHE_TTL_MS,
  });
  const domains = deps.caches.create<string[]>('click-time-domains', {
    tables: ['tenant_domains'],
    ttlMs: CACHE_TTL_MS,
  });
  const messages = deps.caches.create<{ now: Awaited<ReturnType<ClickTimeRepo['messageNow']>> }>(
    'click-time-messages',
    {
      tables: ['mail_log', 'spam_learned_messages', 'retraction_copies'],
      ttlMs: MESSAGE_TTL_MS,
      max: 50_000,
    },
  );
  const messageNow = async (claims: LinkClaims) =>
    (
      await messages.get(`${claims.tenantId}:${claims.inboundId}:${claims.recipient}`, async () => ({
        now: await repo.messageNow(claims.tenantId, claims.inboundId, claims.recipient),
      }))
    ).now;
  const settingsOf = (tenantId: string) => settings.get(tenantId, () => repo.settingsOf(tenantId));
  const entriesOf = (tenantId: string) => entries.get(tenantId, () => repo.linkEntriesOf(tenantId));
  const domainsOf = (tenantId: string) => domains.get(tenantId, () => deps.domainsOf(tenantId));

  // Clicks are written after the answer went out, many in one statement, one statement per
  // WRITE_DELAY_MS at most: under a flood of clicks each statement carries more of them (the
  // statement's own cost, not the rows', is what a click would otherwise pay).
  let waiting: ClickRow[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;
  const later = () => {
    timer ??= setTimeout(writeNext, WRITE_DELAY_MS).unref();
  };
  function record(row: ClickRow): void {
    if (waiting.length >= MAX_WAITING) {
      deps.log.warn({ waiting: waiting.length }, 'click records are shed: the database is not keeping up');
      return;
    }
    waiting.push(row);
    if (!writing) later();
  }
  async function writeSome(): Promise<void> {
    const batch = waiting.slice(0, WRITE_BATCH);
    waiting = waiting.slice(WRITE_BATCH);
    try {
      await repo.insertClicks(batch);
    } catch (error) {
      deps.log.error(
        { err: (error as Error).message, clicks: batch.length },
        'click records could not be written',
      );
    }
  }
  function writeNext(): void {
    timer = null;
    writing = writeSome().finally(() => {
      writing = null;
      if (waiting.length > 0) later();
    });
  }

  // What is known of a URL for a tenant — the entries it matches and its features — kept per
  // tenant and URL (a campaign's link is clicked many times) while the tenant's entries and domains
  // stay the same; forgotten whole past URL_FACTS_MAX.
  interface UrlFacts {
    list: LinkEntry[];
    own: string[];
    matching: LinkEntry[];
    evidence: ReturnType<typeof linkEvidence> | null;
  }
  const factsByUrl = new Map<string, UrlFacts>();
  function urlFacts(tenantId: string, url: string, list: LinkEntry[], own: string[]): UrlFacts {
    const key = `${tenantId}\n${url}`;
    const kept = factsByUrl.get(key);
    if (kept && kept.list === list && kept.own === own) return kept;
    if (factsByUrl.size >= URL_FACTS_MAX) factsByUrl.clear();
    const facts: UrlFacts = { list, own, matching: entriesMatching(list, url), evidence: null };
    factsByUrl.set(key, facts);
    return facts;
  }
  const evidenceOf = (facts: UrlFacts, url: string) =>
    (facts.evidence ??= linkEvidence([{ href: url, text: '' }], {
      protectedDomains: facts.own,
      brand: null,
    }));

  async function judge(claims: LinkClaims, url: string): Promise<Judgement> {
    const host = hostOf(url) ?? '';
    const now = clock.now();
    const [list, own, message] = await Promise.all([
      entriesOf(claims.tenantId),
      domainsOf(claims.tenantId),
      messageNow(claims),
    ]);
    const facts = urlFacts(claims.tenantId, url, list, own);
    const entry = liveEntry(facts.matching, now);
    if (entry?.list === 'block')
      return {
        verdict: 'malicious',
        host,
        reasons: [
          `The organisation blocked ${entry.kind === 'domain' ? `the site ${entry.value}` : `this address`}`,
        ],
      };
    // What the message is now: found to be phishing or malware since, or judged spam by an admin.
    const verdict = message?.learned === 'ham' ? 'clean' : (message?.verdict ?? 'clean');
    if (verdict === 'phishing' || verdict === 'malware')
      return {
        verdict: 'malicious',
        host,
        reasons: [
          verdict === 'phishing'
            ? 'The message with this link was found to be phishing'
            : 'The message with this link carries malware',
        ],
      };
    if (entry?.list === 'allow') return { verdict: 'clean', host, reasons: [] };
    const evidence = evidenceOf(facts, url);
    // A host listed on a URI blocklist since the message arrived is judged on that too.
    const listed = deps.linkListings ? await deps.linkListings(url, own) : [];
    const points = evidence.reduce((sum, e) => sum + e.score, 0);
    const reasons = [...listed.map((f) => f.reason), ...evidence.map((e) => e.description)];
    if (
      points >= PHISHING_POINTS ||
      evidence.some((e) => MALICIOUS_RULES.has(e.name)) ||
      listed.some((f) => f.verdict === 'phishing' || f.verdict === 'malware')
    )
      return { verdict: 'malicious', host, reasons };
    if (points >= SUSPICIOUS_POINTS || listed.length > 0) return { verdict: 'suspicious', host, reasons };
    if (verdict === 'suspicious' || message?.learned === 'spam')
      return {
        verdict: 'suspicious',
        host,
        reasons: [
          ...reasons,
          message?.learned === 'spam'
            ? 'The message with this link was judged to be spam'
            : 'The message with this link looked suspicious when it arrived',
        ],
      };
    return { verdict: 'clean', host, reasons };
  }

  function clickRow(
    claims: LinkClaims,
    url: string,
    judgement: Judgement,
    outcome: ClickOutcome,
    visit: Visit,
    scanner: boolean,
  ): ClickRow {
    return {
      tenantId: claims.tenantId,
      inboundId: claims.inboundId,
      recipient: claims.recipient.toLowerCase(),
      url,
      host: judgement.host,
      linkIndex: claims.index,
      verdict: judgement.verdict,
      outcome,
      reasons: judgement.reasons.slice(0, 10),
      scanner,
      userAgent: visit.userAgent.slice(0, 500),
      clientIp: visit.ip || null,
      createdAt: clock.now(),
    };
  }

  async function clickEvent(
    claims: LinkClaims,
    url: string,
    judgement: Judgement,
    outcome: 'blocked' | 'continued',
  ) {
    const shown = url.length > 300 ? `${url.slice(0, 297)}…` : url;
    await repo.recordEvent({
      tenantId: claims.tenantId,
      type: 'click',
      engine: 'click_time',
      verdict: judgement.verdict === 'malicious' ? 'phishing' : 'suspicious',
      severity: outcome === 'continued' ? 'medium' : 'high',
      recipient: claims.recipient,
      description:
        outcome === 'blocked'
          ? `Blocked ${claims.recipient}'s click on ${shown}: ${judgement.reasons.join('; ') || judgement.verdict}`
          : `${claims.recipient} went on past the warning to ${shown}: ${judgement.reasons.join('; ') || judgement.verdict}`,
      details: { inbound_id: claims.inboundId, url, outcome },
    });
  }

  return {
    /**
     * How the gateway rewrites a copy's links, or null when this copy keeps them: the tenant's
     * choice for its verdict, and links on a host or URL the tenant allowed at click time.
     */
    async rewriterFor(copy: DeliveredCopy): Promise<RewriteUrl | null> {
      const chosen = await settingsOf(copy.tenantId);
      if (!(copy.verdict === 'clean' ? chosen.rewriteClean : chosen.rewriteFlagged)) return null;
      const list = await entriesOf(copy.tenantId);
      const now = clock.now();
      return (url, index) => {
        if (url.length > MAX_REWRITTEN_URL || url.startsWith(linkBase)) return null;
        const entry = linkEntryFor(list, url, now);
        if (entry?.list === 'allow') return null;
        const token = tokens.seal(
          { tenantId: copy.tenantId, inboundId: copy.inboundId, recipient: copy.recipient, index },
          url,
        );
        return `${linkBase}${token}?u=${encodeURIComponent(url)}`;
      };
    },

    /** Whether clean mail of this tenant has its links rewritten (its copies cannot be shared then). */
    async rewritesClean(tenantId: string): Promise<boolean> {
      return (await settingsOf(tenantId)).rewriteClean;
    },

    /** A click on a rewritten link: judged now, recorded, answered. */
    async visit(token: string, url: string, visit: Visit): Promise<VisitResult> {
      const claims = tokens.open(token, url);
      if (!claims) return { kind: 'invalid' };
      const judgement = await judge(claims, url);
      const scanner = isLinkScanner(visit);
      const outcome: ClickOutcome =
        judgement.verdict === 'clean'
          ? 'redirected'
          : judgement.verdict === 'suspicious'
            ? 'warned'
            : 'blocked';
      record(clickRow(claims, url, judgement, outcome, visit, scanner));
      if (outcome === 'blocked' && !scanner)
        await clickEvent(claims, url, judgement, 'blocked').catch((error: Error) =>
          deps.log.error({ err: error.message }, 'a blocked click could not be recorded as an event'),
        );
      // The Location header carries the URL as the URL parser writes it (non-ASCII percent-encoded).
      return judgement.verdict === 'clean'
        ? { kind: 'redirect', url: new URL(url).href }
        : { kind: 'page', verdict: judgement.verdict };
    },

    /** What the warning or block page shows; null for a token or URL Moat did not write. */
    async check(token: string, url: string): Promise<LinkCheckResponse | null> {
      const claims = tokens.open(token, url);
      if (!claims) return null;
      const judgement = await judge(claims, url);
      const chosen = await settingsOf(claims.tenantId);
      return {
        verdict: judgement.verdict,
        url,
        host: judgement.host,
        readableHost: readable(judgement.host),
        reasons: judgement.reasons,
        canContinue: judgement.verdict === 'suspicious' && chosen.allowContinue,
      };
    },

    /**
     * The reader goes on past a warning: only for a suspicious link of a tenant that allows it,
     * and never for a scanner. Answers the URL to open, or why not.
     */
    async proceed(
      token: string,
      url: string,
      visit: Visit,
    ): Promise<{ ok: true; url: string } | { ok: false; reason: 'invalid' | 'refused' | 'scanner' }> {
      const claims = tokens.open(token, url);
      if (!claims) return { ok: false, reason: 'invalid' };
      if (isLinkScanner({ ...visit, method: 'GET' })) return { ok: false, reason: 'scanner' };
      const judgement = await judge(claims, url);
      if (judgement.verdict === 'clean') return { ok: true, url };
      const chosen = await settingsOf(claims.tenantId);
      if (judgement.verdict !== 'suspicious' || !chosen.allowContinue)
        return { ok: false, reason: 'refused' };
      record(clickRow(claims, url, judgement, 'continued', visit, false));
      await clickEvent(claims, url, judgement, 'continued');
      return { ok: true, url };
    },

    /**
     * A host or URL was blocked since: the people who clicked through to it before (opened, or
     * went on past a warning) are named in a high-severity event for the admins and an email to them, once per block.
     */
    async linkBlocked(tenantId: string, kind: 'domain' | 'url', value: string): Promise<void> {
      const clicked = await repo.clickedThrough(
        tenantId,
        kind === 'domain' ? { host: value } : { url: value },
      );
      if (clicked.length === 0) return;
      const people = [...new Set(clicked.map((c) => c.recipient))];
      const named =
        people.slice(0, 10).join(', ') + (people.length > 10 ? ` and ${people.length - 10} more` : '');
      await repo.recordEvent({
        tenantId,
        type: 'click',
        engine: 'click_time',
        verdict: 'phishing',
        severity: 'high',
        recipient: people[0]!,
        description: `${people.length === 1 ? '1 person' : `${people.length} people`} clicked through to ${value} before it was blocked: ${named}`,
        details: { url: clicked[0]!.url, outcome: 'clicked_through' },
      });
      await deps
        .alertClickedThrough?.(tenantId, value, people)
        .catch((error: Error) =>
          deps.log.error({ err: error.message }, 'the click-through alert could not be sent'),
        );
    },

    settingsOf,

    async saveSettings(
      tenantId: string,
      chosen: ClickTimeSettings,
      actor: Actor,
    ): Promise<ClickTimeSettings> {
      await repo.saveSettings(tenantId, chosen, clock.now());
      settings.forget(tenantId);
      await deps.audit.record(actor, {
        tenantId,
        action: 'click_time.settings_changed',
        targetType: 'tenant',
        targetId: tenantId,
        details: { ...chosen },
      });
      return chosen;
    },

    async clicks(
      tenantId: string,
      query: ClicksQuery & {
        sort: 'clicked_at' | 'recipient' | 'host';
        dir: 'asc' | 'desc';
        limit: number;
        offset: number;
      },
    ): Promise<ClicksResponse> {
      const found = await repo.clicks({
        tenantId,
        inboundId: query.message,
        recipient: query.recipient,
        host: query.host,
        url: query.url,
        outcome: query.outcome,
        scanners: query.scanners === 'true',
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
        q: query.q,
        sort: query.sort,
        dir: query.dir,
        limit: query.limit,
        offset: query.offset,
      });
      return {
        total: found.total,
        recipients: found.recipients,
        items: found.items.map((c) => ({
          id: c.id,
          messageId: c.inboundId,
          recipient: c.recipient,
          url: c.url,
          host: c.host,
          verdict: c.verdict,
          outcome: c.outcome,
          reasons: c.reasons,
          scanner: c.scanner,
          userAgent: c.userAgent,
          clickedAt: c.createdAt.toISOString(),
        })),
      };
    },

    /** Clicks not yet written are written now (at shutdown, and in the tests). */
    async flush(): Promise<void> {
      for (;;) {
        if (timer) clearTimeout(timer);
        timer = null;
        if (writing) await writing;
        else if (waiting.length > 0) await writeSome();
        else return;
      }
    },
  };
}
export type ClickTime = ReturnType<typeof createClickTime>;
