import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { isReportAddress } from '@moat/contracts/dmarc';
import type { MAIL_ACTIONS } from '@moat/contracts/mail-explorer';
import type { StoredMessageDetails } from '@moat/contracts/message-trace';
import type { Verdict } from '@moat/contracts/quarantine';
import type { EventDetails, PolicyDecision } from '@moat/contracts/security-events';
import { bannerSettingsFrom, type StoredBannerSettings } from '@moat/contracts/smart-banners';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { combinedSpamScore, spamParts } from '../../engines/spam/combine.ts';
import type { AuthSummary, Engine, Finding } from '../../engines/types.ts';
import { type SpamThresholds, verdictOf, verdictOfScore } from '../../engines/types.ts';
import { systemActor } from '../../lib/actor.ts';
import { createBatcher } from '../../lib/batcher.ts';
import type { Caches } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import { createLeaseKeeper, DEFAULT_WORK_LEASE_MS } from '../../lib/lease-keeper.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { LOCAL_NODE } from '../../lib/node-name.ts';
import { createWorkerPool } from '../../lib/worker-pool.ts';
import type { ClickTime } from '../../modules/click-time/click-time.service.ts';
import type { DmarcService } from '../../modules/dmarc/dmarc.service.ts';
import type { QuarantineService } from '../../modules/quarantine/quarantine.service.ts';
import type { TenantRow, TenantsRepo } from '../../modules/tenants/tenants.repo.ts';
import type { UsersRepo } from '../../modules/users/users.repo.ts';
import type { VipsRepo } from '../../modules/vips/vips.repo.ts';
import type { Mailer } from '../outbound.ts';
import { type ParsedMessage, parseMessage } from '../parse.ts';
import { type AuthInput, authSummary, temperror } from './authenticate.ts';
import { bannerCopy, bannerLookOf, stripForgedAuthResults, taggedSubject } from './banner.ts';
import { cachingResolver, type DnsResolver } from './dns-cache.ts';
import type { GatewayPolicyRepo } from './gateway-policy.repo.ts';
import type { ArrivedMessage, InboundRepo, InboundRow, ParkedCopy } from './inbound.repo.ts';
import { linksOf } from './links.ts';
import { type MailFlowRepo, SENDER_HISTORY_CAP } from './mail-flow.repo.ts';
import {
  decidingException,
  decidingPersonalEntry,
  type ExceptionSubject,
  exceptionReason,
  findingsUnderAllow,
  findingsUnderPersonalAllow,
  type GatewayAction,
  gatewayActionFrom,
  linkKeys,
  type PersonalEntry,
  personalReason,
  recipientActionFrom,
  type StoredOverride,
  senderKeys,
} from './policy.ts';
import { type RewriteUrl, rewriteLinks } from './rewrite-links.ts';

/** The SaaS type of mail that came in through the gateway. */
export const GATEWAY_SAAS_TYPE = 'smtp_emails';
/** Passes at a message before it is parked `failed` (held, visible, retryable by an admin). */
export const MAX_PROCESSING_ATTEMPTS = 5;
/** Wait after failed pass n: 15 s, 1 min, 4 min, 16 min. */
export const processingRetryDelayMs = (attempts: number) => 15_000 * 4 ** Math.max(0, attempts - 1);
/** A message whose lease its node stopped renewing this long ago is any node's to take over. */
export const DEFAULT_LEASE_MS = DEFAULT_WORK_LEASE_MS;
/** Messages one node processes at once (SMTP_PROCESSING_CONCURRENCY), each in its own transaction. */
export const DEFAULT_PROCESSING_CONCURRENCY = 4;
/**
 * The most bytes of messages a node keeps claimed in memory waiting for a processing slot; more
 * wait in the table (at least one message however big, when none waits).
 */
const READY_BYTES = 64 * 1024 * 1024;
/** Messages stored or finished in one statement carry at most this many bytes (at least one message). */
const BATCH_BYTES = {
  maxWeight: 8 * 1024 * 1024,
  weight: (message: { raw: Uint8Array }) => message.raw.length,
};
/** How long a node keeps a tenant's domains, people and policy before reading them again. */
const DIRECTORY_TTL_MS = 60_000;
/** How long a node keeps a tenant's partner domains (learned from weeks of mail) and its busiest senders' counts. */
const PARTNERS_TTL_MS = 10 * 60_000;

/** A tenant row's Smart Banners settings, read once per row the caches hand out. */
const bannerSettingsByRow = new WeakMap<TenantRow, StoredBannerSettings>();
function bannerSettingsOf(tenant: TenantRow): StoredBannerSettings {
  let settings = bannerSettingsByRow.get(tenant);
  if (!settings) {
    settings = bannerSettingsFrom(tenant.bannerSettings);
    bannerSettingsByRow.set(tenant, settings);
  }
  return settings;
}

/**
 * The decision without its banner when Smart Banners spares the sender: one on an allow list
 * (an entry that excused the message's findings), or one of the organisation's own domains that
 * passed DMARC. The message is delivered as it came; the trace says why.
 */
export function withSenderBannerRules<
  D extends { action: GatewayAction; why: string; note?: string | undefined },
>(decision: D, settings: StoredBannerSettings, internal: boolean): D {
  if (decision.action !== 'deliver_banner') return decision;
  if (settings.senders.skip_allow_listed && decision.note !== undefined) {
    return {
      ...decision,
      action: 'deliver',
      why: `${decision.why}; no banner for a sender on an allow list (Smart Banners)→deliver`,
    };
  }
  if (settings.senders.skip_internal && internal) {
    return {
      ...decision,
      action: 'deliver',
      why: `${decision.why}; no banner for an authenticated sender of the organisation's own domains (Smart Banners)→deliver`,
    };
  }
  return decision;
}

/** What Mail Explorer records for each policy action. */
const LOGGED_ACTION: Record<GatewayAction, (typeof MAIL_ACTIONS)[number]> = {
  deliver: 'delivered',
  deliver_banner: 'delivered_banner',
  strip: 'attachments_removed',
  quarantine: 'quarantined',
  quarantine_silent: 'quarantined_silent',
};

export type { DnsResolver };

interface Decision {
  tenant: TenantRow;
  verdict: Verdict | 'clean';
  action: GatewayAction;
  findings: Finding[];
  /** Where the action came from, for the event's evidence (the Events screen). */
  source: PolicyDecision['source'];
  /** The allow entry that excused the message's findings, for its trace (not a finding: no verdict). */
  note?: string | undefined;
  /** The action came from the policy per verdict: a recipient's override may change it. */
  byPolicy?: boolean;
  /** The message has attachments (an override's `strip` with none to strip warns instead). */
  hasAttachments?: boolean;
  /** What decided, in words for the message trace: the policy, a list entry, an override. */
  why: string;
  /** The scoring engines' findings, with their rules: why the spam score is what it is. */
  scores?: Finding[];
  /** The thresholds the scores were judged by. */
  thresholds?: SpamThresholds;
}

/** The one anti-spam finding of the scoring engines' added scores; null below every threshold. */
export function spamFinding(scores: Finding[], thresholds: SpamThresholds): Finding | null {
  if (scores.length === 0) return null;
  const total = combinedSpamScore(scores);
  const verdict = verdictOfScore(total, thresholds);
  if (verdict === 'clean') return null;
  // Each engine's score, what of it counts when not all, and why (spamParts says it in words).
  const parts = spamParts(scores)
    .map(({ engine, score, counted, notes }) => {
      const counts = counted === score ? '' : ` counted as ${counted}`;
      return `${ENGINE_WORDS[engine] ?? engine} ${score}${counts}${notes.length ? ` (${notes.join('; ')})` : ''}`;
    })
    .join(', ');
  return {
    engine: 'anti_spam',
    verdict,
    score: total,
    reason: `Spam score ${total} (${verdict} from ${verdict === 'spam' ? thresholds.spam : thresholds.suspicious}): ${parts}`,
  };
}

/** What a policy action does, in the trace's words ("Under the default policy, phishing mail is held"). */
const POLICY_PHRASE: Record<GatewayAction, string> = {
  deliver: 'delivered',
  deliver_banner: 'delivered with a warning banner',
  strip: 'delivered without its attachments',
  quarantine: 'held',
  quarantine_silent: 'held without telling the recipient',
};

/** The scoring engines' names in the trace's words. */
const ENGINE_WORDS: Record<string, string> = {
  moat_spam: 'Moat',
  rspamd: 'rspamd',
  spamassassin: 'SpamAssassin',
};

/** The evidence an event of this decision keeps: each engine's finding and the policy's decision. */
function evidenceOf(decision: Decision, inboundId: string): EventDetails {
  return {
    inbound_id: inboundId,
    findings: decision.findings.map(({ engine, verdict, reason }) => ({ engine, verdict, reason })),
    decision: { verdict: decision.verdict, action: decision.action, source: decision.source },
  };
}

/** Bounds of what a Mail Explorer row keeps for the trace. */
const TRACE_LIMITS = { recipients: 50, findings: 20, reason: 300, rules: 40 } as const;

/** What the message trace needs that the Mail Explorer row's columns do not hold (`mail_log.details`). */
export function traceDetails(
  row: Pick<InboundRow, 'clientIp' | 'helo' | 'mailFrom' | 'rcptTo' | 'tls'>,
  auth: AuthSummary | null,
  decision:
    | (Pick<Decision, 'verdict' | 'action' | 'findings' | 'why' | 'scores'> & { thresholds?: SpamThresholds })
    | null,
): StoredMessageDetails {
  const scores = decision?.scores ?? [];
  const tokens = scores.find((f) => f.tokens)?.tokens;
  return {
    received: {
      client_ip: row.clientIp,
      helo: cleanText(row.helo, 255),
      tls: row.tls ?? null,
      mail_from: row.mailFrom,
      rcpt_to: row.rcptTo.slice(0, TRACE_LIMITS.recipients),
    },
    ...(auth?.checks ? { auth: auth.checks } : {}),
    ...(decision
      ? {
          findings: decision.findings.slice(0, TRACE_LIMITS.findings).map((f) => ({
            engine: cleanText(f.engine, 60),
            verdict: f.verdict,
            reason: cleanText(f.reason, TRACE_LIMITS.reason),
            ...(f.points !== undefined ? { points: f.points, rule: cleanText(f.rule ?? '', 80) } : {}),
          })),
          decision: {
            verdict: decision.verdict,
            action: LOGGED_ACTION[decision.action],
            source: cleanText(decision.why, TRACE_LIMITS.reason),
          },
        }
      : {}),
    ...(scores.length
      ? {
          scores: scores.map((f) => ({
            engine: cleanText(f.engine, 60),
            score: f.score ?? 0,
            verdict: f.verdict,
            rules: (f.rules ?? []).slice(0, TRACE_LIMITS.rules).map((r) => ({
              name: cleanText(r.name, 80),
              score: r.score,
              description: cleanText(r.description, TRACE_LIMITS.reason),
            })),
          })),
          ...(decision?.thresholds ? { spam_thresholds: decision.thresholds } : {}),
        }
      : {}),
    ...(tokens ? { spam_tokens: Buffer.from(Int32Array.from(tokens).buffer).toString('base64') } : {}),
  };
}

/** The longest link looked up against URL exceptions (no entry is longer). */
const MAX_EXCEPTION_URL = 2_000;
/** Attachments' hashes looked up against SHA-256 exceptions, per message. */
const MAX_LOOKUP_HASHES = 200;

/** Text safe for a database text column and a log line: no NUL or other control characters, bounded. */
export function cleanText(value: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return value.replace(/[\u0000-\u0008\u000b-\u001f\u007f\ud800-\udfff]/g, '').slice(0, max);
}

/**
 * From and Subject read from the raw header block without a MIME parser, for a message the
 * parser could not take: enough for an admin to recognise it.
 */
export function roughHeaders(raw: Buffer): { from: string; subject: string } {
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const unfolded = (end === -1 ? head : head.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const field = (name: string) =>
    unfolded.match(new RegExp(`^${name}:[ \\t]*(.*)$`, 'im'))?.[1]?.trim() ?? '';
  const from =
    field('From')
      .match(/[^\s<>"@]+@[^\s<>"@]+/)?.[0]
      ?.toLowerCase() ?? '';
  return { from: cleanText(from, 254), subject: cleanText(field('Subject'), 300) };
}

/** Messages this large are authenticated on a worker thread: DKIM hashes the whole body. */
export const OFF_THREAD_AUTH_BYTES = 1024 * 1024;

/**
 * The gateway's second half: takes each stored inbound message, authenticates it (SPF, DKIM,
 * DMARC), runs the engines, applies the recipient tenant's allow/block lists and policy, and for
 * every recipient delivers it, delivers it with a warning, strips its attachments or quarantines it
 * — all of one message in one transaction with its Mail Explorer rows and its `processed` mark, so
 * a crash at any point redoes the whole message and nothing is done twice (deliveries also carry an
 * idempotency key per message and recipient).
 */
export function createGatewayProcessor(deps: {
  /** For each message's own transaction. */
  db: Pick<Db, 'transaction'>;
  clock: Clock;
  mailer: Pick<Mailer, 'send' | 'deliverStored' | 'reserve' | 'release' | 'leaseUntil' | 'deliverClaimed'>;
  engines: Engine[];
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  inbound: InboundRepo;
  tenants: Pick<TenantsRepo, 'findByDomain' | 'domainsOf'>;
  users: Pick<UsersRepo, 'peopleOf'>;
  /** The tenant's protected people (VIPs), for the anti-phishing engine. */
  vips: Pick<VipsRepo, 'namesOf'>;
  /** DMARC: mail to a domain's report address is taken in as reports (none: delivered as any mail). */
  reports?: Pick<DmarcService, 'takeInMail'>;
  /** Click-time protection: how each delivered copy's links are rewritten (none without it). */
  clickTime?: Pick<ClickTime, 'rewriterFor' | 'rewritesClean'>;
  /** What the tenant's mail flow knows of senders: its regular partners, a sender's earlier mail. */
  mailFlow: Pick<MailFlowRepo, 'partnersOf' | 'senderHistory'>;
  policies: Pick<
    GatewayPolicyRepo,
    | 'actionsOf'
    | 'entriesAmong'
    | 'ipRangesOf'
    | 'overridesOf'
    | 'disabledToolsOf'
    | 'personalEntriesOf'
    | 'spamThresholdsOf'
  >;
  /** The one intake path for held mail; `ingest` runs inside the message's transaction. */
  quarantine: Pick<QuarantineService, 'ingest'>;
  /** Tenants by domain, people and policies are kept per node and forgotten on every write. */
  caches: Pick<Caches, 'create'>;
  resolver?: DnsResolver | undefined;
  mta?: string;
  /** This node's name in leases (several nodes may share one database). */
  nodeId?: string;
  /** How long a claimed message is this node's before another may take it over. */
  leaseMs?: number;
  /** Messages processed at once, each in its own transaction (DEFAULT_PROCESSING_CONCURRENCY). */
  concurrency?: number;
  /** Messages finished by verdict and action; each engine's scan time and failures (issue 14). */
  metrics: Pick<Metrics, 'gatewayMessages' | 'engineDuration' | 'engineErrors'>;
}) {
  const mta = deps.mta ?? hostname();
  const resolver = cachingResolver({ resolver: deps.resolver, clock: deps.clock });
  // Large messages are authenticated off the event loop; their DNS questions come back here.
  const authPool = createWorkerPool<{ raw: Uint8Array; auth: AuthInput }, AuthSummary>({
    worker: 'auth.worker',
    besideUrl: import.meta.url,
    serve: (question) => {
      const { name, rrtype } = question as { name: string; rrtype: string };
      return resolver(name, rrtype);
    },
  });
  const nodeId = deps.nodeId ?? LOCAL_NODE;
  const concurrency = Math.max(1, deps.concurrency ?? DEFAULT_PROCESSING_CONCURRENCY);
  const { inbound, policies, metrics } = deps;
  /** Counted once the work is committed: one per recipient copy that reached a tenant. */
  function countFinished(decisions: Array<Pick<Decision, 'verdict' | 'action'> | null>): void {
    for (const d of decisions) if (d) metrics.gatewayMessages.inc({ verdict: d.verdict, action: d.action });
  }
  /** Messages this node is processing now: their leases are renewed while the work lasts. */
  const leases = createLeaseKeeper({
    clock: deps.clock,
    leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
    renew: (ids, until) => inbound.renewLeases(ids, nodeId, until),
    onError: (error) => deps.log.warn({ err: error }, 'renewing inbound leases failed'),
  });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** A message was stored (or a pass asked for) since the last claim: claim again. */
  let wanted = false;

  // What every message of a tenant reads, kept per node: a write anywhere (this node, another
  // node, the CLI) is announced by the database and forgotten (lib/cache.ts).
  const byDomain = deps.caches.create<{ tenant: TenantRow; domains: string[] } | null>(
    'gateway-tenant-by-domain',
    {
      tables: ['tenants', 'tenant_domains'],
      ttlMs: DIRECTORY_TTL_MS,
    },
  );
  // The tenant's people, for display-name impersonation checks: read once per tenant, not per message.
  const people = deps.caches.create<Array<{ name: string; email: string }>>('gateway-people', {
    tables: ['users'],
    ttlMs: DIRECTORY_TTL_MS,
  });
  // The tenant's VIPs (names an attacker would pose as), forgotten at every write to the list.
  const vips = deps.caches.create<Array<{ name: string; emails: string[] }>>('gateway-vips', {
    tables: ['vips'],
    ttlMs: DIRECTORY_TTL_MS,
  });
  // The tenant's regular partner domains, learned from its mail flow: a grouping over 90 days of
  // its Mail Explorer rows, so read every ten minutes, not per message (mail_log is not announced).
  const partners = deps.caches.create<string[]>('gateway-partners', { tables: [], ttlMs: PARTNERS_TTL_MS });
  // Senders known past the cap (most mail comes from them) stay known: their counts are kept, and
  // only senders with little history are counted again for each message.
  const knownSenders = deps.caches.create<{ address: number; domain: number } | undefined>(
    'gateway-known-senders',
    {
      tables: [],
      ttlMs: PARTNERS_TTL_MS,
      max: 10_000,
    },
  );
  const actions = deps.caches.create<Partial<Record<Verdict, string>>>('gateway-policies', {
    tables: ['gateway_policies'],
    ttlMs: DIRECTORY_TTL_MS,
  });
  // The Policy screen's overrides per recipient, address or group, per tenant.
  const overrides = deps.caches.create<StoredOverride[]>('gateway-policy-overrides', {
    tables: ['policy_overrides'],
    ttlMs: DIRECTORY_TTL_MS,
  });
  // A sender's allow and block entries, per tenant and sender (mail comes from the same senders
  // again and again); any write to the lists forgets them all.
  const senderEntries = deps.caches.create<Awaited<ReturnType<GatewayPolicyRepo['entriesAmong']>>>(
    'gateway-sender-entries',
    { tables: ['sender_lists'], ttlMs: DIRECTORY_TTL_MS, max: 10_000 },
  );
  // The spam score thresholds of each tenant's policy.
  const spamThresholds = deps.caches.create<SpamThresholds>('gateway-spam-thresholds', {
    tables: ['spam_thresholds'],
    ttlMs: DIRECTORY_TTL_MS,
  });
  // The engines each tenant turned off (Security Engines); usually none.
  const disabledTools = deps.caches.create<string[]>('gateway-disabled-tools', {
    tables: ['security_tools'],
    ttlMs: DIRECTORY_TTL_MS,
  });
  const ipRanges = deps.caches.create<Awaited<ReturnType<GatewayPolicyRepo['ipRangesOf']>>>(
    'gateway-ip-ranges',
    { tables: ['sender_lists'], ttlMs: DIRECTORY_TTL_MS },
  );
  // Each recipient's own allow and block entries (issue 12), per tenant and address: a write to
  // anyone's list, or to the users (an address that changes hands), forgets them all.
  const personalEntries = deps.caches.create<PersonalEntry[]>('gateway-personal-senders', {
    tables: ['personal_sender_lists', 'users'],
    ttlMs: DIRECTORY_TTL_MS,
    max: 10_000,
  });

  /**
   * Earlier mail from this sender to the tenant, for the anti-phishing engine's "first-time
   * sender"; undefined (unknown) for mail without a sender or when the count failed — the message
   * goes on without it rather than waits.
   */
  async function senderHistoryOf(tenantId: string, address: string) {
    if (!address.includes('@')) return undefined;
    let counted: { address: number; domain: number } | undefined;
    try {
      const kept = await knownSenders.get(`${tenantId}\n${address}`, async () => {
        counted = await deps.mailFlow.senderHistory(tenantId, address);
        // Undefined is not cached: a sender below the cap is counted afresh next time.
        const known = counted.address >= SENDER_HISTORY_CAP && counted.domain >= SENDER_HISTORY_CAP;
        return known ? counted : undefined;
      });
      return kept ?? counted;
    } catch (error) {
      deps.log.warn({ err: error, tenantId }, 'counting the sender history failed');
      return undefined;
    }
  }

  /** The tenant's regular partner domains; none known when the count failed. */
  async function partnersOf(tenantId: string, domains: string[]) {
    try {
      return await partners.get(tenantId, () =>
        deps.mailFlow.partnersOf(tenantId, domains, deps.clock.now()),
      );
    } catch (error) {
      deps.log.warn({ err: error, tenantId }, 'reading the partner domains failed');
      return [];
    }
  }

  /** The tenant that owns a domain, with all its domains; null for a domain no tenant has. */
  function tenantOfDomain(domain: string) {
    return byDomain.get(domain.toLowerCase(), async () => {
      const tenant = await deps.tenants.findByDomain(domain);
      return tenant ? { tenant, domains: await deps.tenants.domainsOf(tenant.id) } : null;
    });
  }

  /**
   * Every engine's findings. The scoring engines (Moat's own anti-spam engine, rspamd,
   * SpamAssassin) each give a score; their scores are added into one spam score, judged by the
   * tenant's thresholds: one anti-spam finding, however many engines scored.
   */
  async function scan(tenant: TenantRow, input: Parameters<Engine['scan']>[0]) {
    const findings: Finding[] = [];
    const scores: Finding[] = [];
    const off = await disabledTools.get(tenant.id, () => deps.policies.disabledToolsOf(tenant.id));
    for (const engine of deps.engines) {
      if (engine.status !== 'on' || (engine.tool && off.includes(engine.tool))) continue;
      const scanned = metrics.engineDuration.startTimer({ engine: engine.name });
      try {
        for (const finding of await engine.scan(input).finally(() => scanned())) {
          if (finding.score !== undefined) scores.push(finding);
          else if (finding.verdict !== 'clean') findings.push(finding);
        }
      } catch (error) {
        metrics.engineErrors.inc({ engine: engine.name });
        deps.log.warn({ err: (error as Error).message, engine: engine.name }, 'engine failed');
        if (engine.failClosed) {
          findings.push({
            engine: engine.name,
            verdict: 'suspicious',
            reason: `${engine.name} could not scan this message`,
          });
        }
      }
    }
    const spam = spamFinding(scores, input.spamThresholds);
    return { findings: spam ? [...findings, spam] : findings, scores };
  }

  async function decide(tenant: TenantRow, input: Parameters<Engine['scan']>[0]): Promise<Decision> {
    const { findings, scores } = await scan(tenant, input);
    return { ...(await judge(tenant, input, findings)), scores, thresholds: input.spamThresholds };
  }

  async function judge(
    tenant: TenantRow,
    input: Parameters<Engine['scan']>[0],
    findings: Finding[],
  ): Promise<Decision> {
    // The entries that could match, in one lookup by value: both senders (address, domain and
    // parent domains), the links, the attachments' SHA-256; the IP ranges are read per tenant.
    const fromSender = input.parsed.fromAddress || input.envelope.mailFrom;
    // Bounded, whatever the sender wrote: no entry is longer than MAX_EXCEPTION_URL, and a message
    // with thousands of attachments asks for its first MAX_LOOKUP_HASHES (one statement's parameters).
    const urls = linkKeys(input.links.filter((l) => l.href.length <= MAX_EXCEPTION_URL));
    const hashes = [...new Set(input.parsed.attachments.map((a) => a.sha256.toLowerCase()))].slice(
      0,
      MAX_LOOKUP_HASHES,
    );
    const keys = [
      ...new Set([...senderKeys(fromSender), ...senderKeys(input.envelope.mailFrom), ...urls, ...hashes]),
    ];
    // The cache is keyed by a digest of the values, so a message of many long links costs one short key.
    const cacheKey = `${tenant.id}\n${createHash('sha256').update(keys.join('\n')).digest('hex')}`;
    const [entries, ranges] = await Promise.all([
      senderEntries.get(cacheKey, () => policies.entriesAmong(tenant.id, keys)),
      ipRanges.get(tenant.id, () => policies.ipRangesOf(tenant.id)),
    ]);
    // An allow entry counts only for a sender that proved its domain (DMARC, or SPF/DKIM pass):
    // anyone can write an allowed address into From.
    // DMARC pass is the proof: it needs SPF or DKIM aligned with the From domain. A bare SPF or DKIM
    // pass proves some other domain (the attacker's own MAIL FROM or signature), not the one in From.
    const authenticated = input.auth.dmarc === 'pass';
    // An expired entry counts for nothing (the clock decides, not the cache).
    // Click-Time entries name the hosts and URLs of links (never rewritten, or blocked at the click),
    // not senders: they judge clicks, not messages.
    const decided = decidingException([...entries.filter((e) => e.scope !== 'click_time'), ...ranges], {
      fromSender,
      envelopeSender: input.envelope.mailFrom,
      clientIp: input.envelope.clientIp,
      urls,
      hashes,
      authenticated,
      now: deps.clock.now(),
    });
    if (decided?.list === 'block') {
      const verdict = verdictOf(findings);
      return {
        tenant,
        why: exceptionReason('block', decided.entry),
        verdict: verdict === 'clean' ? 'spam' : verdict,
        action: 'quarantine_silent',
        findings: [
          ...findings,
          { engine: 'policy', verdict: 'spam', reason: exceptionReason('block', decided.entry) },
        ],
        source: 'block_list',
      };
    }
    // An allowed sender skips the judgement calls of the entry's page; known malware is held all the same.
    const counted = decided ? findingsUnderAllow(findings, decided.entry.scope) : findings;
    const note = decided ? exceptionReason('allow', decided.entry) : undefined;
    const verdict = verdictOf(counted);
    if (verdict === 'clean') {
      const why =
        decided?.list === 'allow'
          ? `${note} (sender authenticated)`
          : findings.length === 0
            ? 'No security engine found anything, so it was delivered'
            : 'Judged clean, so it was delivered';
      return {
        tenant,
        verdict,
        action: 'deliver',
        findings: counted,
        source: decided?.list === 'allow' ? 'allow_list' : 'tenant_policy',
        note,
        why,
      };
    }
    const hasAttachments = input.parsed.attachments.length > 0;
    const policy = await policyFor(tenant, verdict, hasAttachments);
    return {
      tenant,
      verdict,
      action: policy.action,
      findings: counted,
      // Known malware from an allowed sender is still the policy's to act on.
      source: policy.source,
      note,
      why: note ? `${note} (only what its page does not excuse counted); ${policy.why}` : policy.why,
      byPolicy: true,
      hasAttachments,
    };
  }

  /** The tenant's action for a verdict (its policy, else the default), and why, for the trace. */
  async function policyFor(tenant: TenantRow, verdict: Verdict, hasAttachments: boolean) {
    const stored = await actions.get(tenant.id, () => policies.actionsOf(tenant.id));
    let action = gatewayActionFrom(stored, verdict);
    const origin = stored[verdict] ? "the organisation's policy" : 'the default policy';
    let why = `Under ${origin}, ${verdict} mail is ${POLICY_PHRASE[action]}`;
    if (stored[verdict] && stored[verdict] !== action) {
      why = `Known malware is never delivered, whatever ${origin} says: it was ${POLICY_PHRASE[action]}`;
    }
    if (action === 'strip' && !hasAttachments) {
      action = 'deliver_banner';
      why = `Under ${origin}, ${verdict} mail is delivered without its attachments; this message had none, so it was delivered with a warning banner`;
    }
    const source: PolicyDecision['source'] =
      stored[verdict] === undefined ? 'default_policy' : 'tenant_policy';
    return { action, why, source };
  }

  /** One recipient's decision: their own sender list (issue 12), then the tenant's override for them. */
  async function forRecipient(
    decision: Decision,
    recipient: string,
    sender: Pick<ExceptionSubject, 'fromSender' | 'envelopeSender' | 'authenticated'>,
  ): Promise<Decision> {
    const own = await ownListDecision(decision, recipient, sender);
    return own === decision || own.byPolicy ? overrideFor(own, recipient) : own;
  }

  /**
   * The decision for one recipient's copy given their own allow and block list (SPEC §6): other
   * recipients of the message are untouched. The organisation's block entry and known malware are
   * never the person's to change. Their block entry holds their copy silently; their allow entry
   * (for a sender that proved its domain) excuses only the anti-spam engine's findings — phishing
   * still counts — and the tenant's policy acts on whatever is left.
   */
  async function ownListDecision(
    decision: Decision,
    recipient: string,
    sender: Pick<ExceptionSubject, 'fromSender' | 'envelopeSender' | 'authenticated'>,
  ): Promise<Decision> {
    if (decision.source === 'block_list' || decision.verdict === 'malware') return decision;
    const tenantId = decision.tenant.id;
    const address = recipient.toLowerCase();
    const entries = await personalEntries.get(`${tenantId}\n${address}`, () =>
      policies.personalEntriesOf(tenantId, address),
    );
    const decided = entries.length > 0 ? decidingPersonalEntry(entries, sender) : null;
    if (!decided) return decision;
    const reason = personalReason(decided.list, decided.entry, address);
    if (decided.list === 'block') {
      return {
        tenant: decision.tenant,
        verdict: decision.verdict === 'clean' ? 'spam' : decision.verdict,
        action: 'quarantine_silent',
        findings: [...decision.findings, { engine: 'policy', verdict: 'spam', reason }],
        source: 'block_list',
        why: reason,
      };
    }
    const counted = findingsUnderPersonalAllow(decision.findings);
    // Nothing the entry excuses (a clean message, or only what it never excuses): as decided.
    if (counted.length === decision.findings.length) return decision;
    const note = decision.note ? `${decision.note}; ${reason}` : reason;
    const verdict = verdictOf(counted);
    if (verdict === 'clean') {
      return {
        tenant: decision.tenant,
        verdict,
        action: 'deliver',
        findings: counted,
        source: 'allow_list',
        note,
        why: `${reason} (sender authenticated; the anti-spam engine's findings excused)`,
      };
    }
    const hasAttachments = decision.hasAttachments ?? false;
    const policy = await policyFor(decision.tenant, verdict, hasAttachments);
    return {
      tenant: decision.tenant,
      verdict,
      action: policy.action,
      findings: counted,
      source: policy.source,
      note,
      why: `${reason} (only the anti-spam engine's findings excused); ${policy.why}`,
      byPolicy: true,
      hasAttachments,
    };
  }

  /** The tenant's override of the action for one recipient, if it has one. */
  async function overrideFor(decision: Decision, recipient: string): Promise<Decision> {
    if (!decision.byPolicy || decision.verdict === 'clean') return decision;
    const tenantId = decision.tenant.id;
    const list = await overrides.get(tenantId, () => policies.overridesOf(tenantId));
    if (list.length === 0) return decision;
    const stored = await actions.get(tenantId, () => policies.actionsOf(tenantId));
    let action = recipientActionFrom(stored, list, decision.verdict, recipient);
    if (action === 'strip' && !decision.hasAttachments) action = 'deliver_banner';
    if (action === decision.action) return decision;
    const why = `Under the Policy screen's override for ${recipient}, ${decision.verdict} mail is ${POLICY_PHRASE[action]}`;
    return { ...decision, action, source: 'recipient_override', why };
  }

  /** Mail Explorer's row of one recipient of a processed message. */
  function logRow(
    row: InboundRow,
    parsed: ParsedMessage,
    auth: AuthSummary,
    recipient: string,
    decision: Decision,
    quarantineMessageId: string | null,
  ) {
    return {
      tenantId: decision.tenant.id,
      inboundId: row.id,
      recipient,
      sender: parsed.fromAddress || row.mailFrom,
      senderName: parsed.fromName,
      subject: parsed.subject,
      messageIdHeader: parsed.messageId,
      receivedAt: row.receivedAt,
      verdict: decision.verdict,
      action: LOGGED_ACTION[decision.action],
      reasons: [...decision.findings.map((f) => f.reason), ...(decision.note ? [decision.note] : [])],
      spf: auth.spf,
      dkim: auth.dkim,
      dmarc: auth.dmarc,
      size: row.size,
      attachments: parsed.attachments.length,
      quarantineMessageId,
      details: traceDetails(row, auth, decision),
    };
  }

  /** Whether a tenant among these recipients' rewrites the links of clean mail. */
  async function rewritesCleanFor(copies: Array<{ decision: Decision | null }>): Promise<boolean> {
    if (!deps.clickTime) return false;
    const tenantIds = new Set(copies.flatMap(({ decision }) => (decision ? [decision.tenant.id] : [])));
    for (const tenantId of tenantIds) if (await deps.clickTime.rewritesClean(tenantId)) return true;
    return false;
  }

  /**
   * Mail to a report address goes to DMARC, once per tenant: never delivered, never scanned. The
   * other recipients go on as usual; null when none is left (the message is finished).
   */
  async function takeInReports(row: InboundRow): Promise<InboundRow | null> {
    const reports = deps.reports;
    const reportTo = reports ? row.rcptTo.filter(isReportAddress) : [];
    if (!reports || reportTo.length === 0) return row;
    const raw = Buffer.from(row.raw);
    const done = new Set<string>();
    for (const recipient of reportTo) {
      const owner = await tenantOfDomain(recipient.split('@')[1] ?? '');
      if (!owner || done.has(owner.tenant.id)) continue;
      done.add(owner.tenant.id);
      const outcomes = await reports.takeInMail({
        tenantId: owner.tenant.id,
        raw,
        inboundId: row.id,
        mailFrom: row.mailFrom,
        actor: systemActor,
      });
      deps.log.info({ inboundId: row.id, recipient, outcomes }, 'DMARC report mail taken in');
    }
    const rest = row.rcptTo.filter((r) => !isReportAddress(r));
    if (rest.length > 0) return { ...row, rcptTo: rest };
    await deps.db.transaction((tx) => inbound.finishIfOwned(tx, row.id, nodeId, deps.clock.now()));
    return null;
  }

  async function processRow(claimed: InboundRow): Promise<void> {
    const row = await takeInReports(claimed);
    if (!row) return;
    const raw = Buffer.from(row.raw);
    const parsed = await parseMessage(raw);
    const links = linksOf(parsed.html, parsed.text);
    const authInput: AuthInput = { ip: row.clientIp, helo: row.helo, sender: row.mailFrom, mta };
    const auth =
      raw.length >= OFF_THREAD_AUTH_BYTES
        ? await authPool.run({ raw, auth: authInput }).catch(() => temperror(mta))
        : await authSummary(raw, authInput, resolver);
    // What the sender wrote in our name (RFC 8601 §5) is removed from every copy that leaves or is held.
    const delivered = stripForgedAuthResults(raw, mta);
    const envelope = { mailFrom: row.mailFrom, clientIp: row.clientIp, helo: row.helo, rcptTo: row.rcptTo };

    // What each recipient's own sender list is matched against (issue 12).
    const sender = {
      fromSender: parsed.fromAddress || row.mailFrom,
      envelopeSender: row.mailFrom,
      authenticated: auth.dmarc === 'pass',
    };
    // One decision per tenant among the recipients.
    const decisions = new Map<string, Decision>();
    const byRecipient: Array<{ recipient: string; decision: Decision | null }> = [];
    for (const recipient of row.rcptTo) {
      const owner = await tenantOfDomain(recipient.split('@')[1] ?? '');
      if (!owner) {
        byRecipient.push({ recipient, decision: null });
        continue;
      }
      const { tenant, domains } = owner;
      let decision = decisions.get(tenant.id);
      if (!decision) {
        decision = await decide(tenant, {
          parsed,
          links,
          auth,
          raw,
          envelope,
          tenant: {
            id: tenant.id,
            domains,
            people: await people.get(tenant.id, () => deps.users.peopleOf(tenant.id)),
            vips: await vips.get(tenant.id, () => deps.vips.namesOf(tenant.id)),
            partners: await partnersOf(tenant.id, domains),
          },
          spamThresholds: await spamThresholds.get(tenant.id, () => policies.spamThresholdsOf(tenant.id)),
          senderHistory: await senderHistoryOf(tenant.id, sender.fromSender),
        });
        decisions.set(tenant.id, decision);
      }
      // An authenticated sender of the recipient organisation's own domains (Smart Banners' "internal").
      const internal =
        sender.authenticated && domains.includes((sender.fromSender.split('@')[1] ?? '').toLowerCase());
      const own = await forRecipient(decision, recipient, sender);
      byRecipient.push({
        recipient,
        decision: withSenderBannerRules(own, bannerSettingsOf(own.tenant), internal),
      });
    }

    // Most mail goes out as it came to every recipient: one statement finishes it. Not when a
    // tenant rewrites the links of clean mail: each recipient's copy has links of its own then.
    const sameForAll = byRecipient.every(({ decision }) => !decision || decision.action === 'deliver');
    if (sameForAll && !(await rewritesCleanFor(byRecipient))) {
      const reached = byRecipient.flatMap(({ recipient, decision }) =>
        decision ? [{ recipient, decision }] : [],
      );
      const body = Buffer.concat([Buffer.from(auth.authenticationResults), delivered]);
      const deliveries = reached.map(({ recipient, decision }) => ({
        tenantId: decision.tenant.id,
        kind: 'gateway_delivery',
        fromName: parsed.fromName,
        toAddress: recipient,
        subject: parsed.subject,
        envelopeFrom: row.mailFrom,
        idempotencyKey: `${row.id}:${recipient}`,
      }));
      // Room to send at once: the mail is stored already claimed and sent from memory.
      const claimed = deps.mailer.reserve(deliveries.length, body.length);
      let queued: Awaited<ReturnType<InboundRepo['finishDelivered']>>[number];
      try {
        queued = await finishes.add({
          id: row.id,
          raw: body,
          claimDelivery: claimed ? { leaseUntil: deps.mailer.leaseUntil() } : undefined,
          deliveries,
          log: reached.map(({ recipient, decision }) => logRow(row, parsed, auth, recipient, decision, null)),
        });
      } catch (error) {
        if (claimed) deps.mailer.release(deliveries.length, body.length);
        throw error;
      }
      // Null: another node took the message over after this node's lease ran out; it finishes it.
      let unused = claimed ? deliveries.length : 0;
      for (const mail of queued ?? []) {
        const delivery = deliveries.find((d) => d.idempotencyKey === mail.key);
        // Stored claimed by this statement: sent from memory; queued before: claimed as usual.
        if (!claimed || !mail.createdAt || !delivery) {
          deps.mailer.deliverStored(mail.id, delivery?.tenantId);
          continue;
        }
        unused -= 1;
        const { idempotencyKey: _key, ...outgoing } = delivery;
        deps.mailer.deliverClaimed({
          ...outgoing,
          id: mail.id,
          fromAddress: null,
          text: '',
          html: '',
          raw: body,
          attempts: 1,
          createdAt: mail.createdAt,
        });
      }
      if (unused > 0) deps.mailer.release(unused, body.length);
      if (queued) countFinished(reached.map(({ decision }) => decision));
      return;
    }

    // How each delivered copy's links are rewritten, read before the transaction (which holds the
    // only connection of an embedded database).
    const rewriters = new Map<string, RewriteUrl>();
    for (const { recipient, decision } of byRecipient) {
      if (
        !deps.clickTime ||
        !decision ||
        (decision.action !== 'deliver' && decision.action !== 'deliver_banner' && decision.action !== 'strip')
      )
        continue;
      const rewrite = await deps.clickTime.rewriterFor({
        tenantId: decision.tenant.id,
        inboundId: row.id,
        recipient,
        verdict: decision.verdict,
      });
      if (rewrite) rewriters.set(recipient, rewrite);
    }
    const outboxIds: Array<{ id: string; tenantId: string }> = [];
    const finished = await deps.db.transaction(async (tx) => {
      // Another node took the message over after this node's lease ran out: it finishes it.
      if (!(await inbound.finishIfOwned(tx, row.id, nodeId, deps.clock.now()))) return false;
      for (const { recipient, decision } of byRecipient) {
        if (!decision) continue; // A domain that left its tenant since: nothing to deliver it to.
        const reasons = decision.findings.map((f) => f.reason);
        const key = `${row.id}:${recipient}`;
        let quarantineMessageId: string | null = null;
        const action = decision.action;
        if (action === 'deliver' || action === 'deliver_banner') {
          // The banner as Smart Banners says: its words, colour and subject tag for the verdict.
          const look =
            action === 'deliver_banner'
              ? bannerLookOf(bannerSettingsOf(decision.tenant), decision.verdict as Verdict, reasons)
              : null;
          const copy = look
            ? await bannerCopy(parsed, recipient, look.warning, auth.authenticationResults, look)
            : Buffer.concat([Buffer.from(auth.authenticationResults), delivered]);
          // Its links go through click-time protection when the tenant's choice says so.
          const rewrite = rewriters.get(recipient);
          const body = rewrite ? rewriteLinks(copy, rewrite).raw : copy;
          if (action === 'deliver_banner') {
            // Delivered, but with a verdict: the security team sees it among the events.
            await inbound.recordEvent(tx, {
              tenantId: decision.tenant.id,
              type: 'banner',
              recipient,
              sender: parsed.fromAddress || row.mailFrom,
              subject: cleanText(parsed.subject, 2_000),
              details: evidenceOf(decision, row.id),
              engine: [...new Set(decision.findings.map((f) => f.engine))].join(',') || 'gateway',
              verdict: decision.verdict,
              description: cleanText(
                `Delivered to ${recipient} with a warning banner: ${reasons.join('; ') || decision.verdict}`,
                2_000,
              ),
              severity: decision.verdict === 'phishing' || decision.verdict === 'malware' ? 'high' : 'low',
            });
          }
          outboxIds.push({
            tenantId: decision.tenant.id,
            id: await deps.mailer.send(
              {
                tenantId: decision.tenant.id,
                kind: action === 'deliver' ? 'gateway_delivery' : 'gateway_delivery_warned',
                to: recipient,
                fromName: parsed.fromName,
                subject: look ? taggedSubject(parsed.subject, look.subjectTag) : parsed.subject,
                text: '',
                html: '',
                raw: body,
                envelopeFrom: row.mailFrom,
                idempotencyKey: key,
              },
              tx,
            ),
          });
        } else {
          const held = await deps.quarantine.ingest(
            {
              raw: delivered,
              recipient,
              saasType: GATEWAY_SAAS_TYPE,
              verdict: decision.verdict as Verdict,
              reasons,
              stripAttachments: action === 'strip',
              engine: [...new Set(decision.findings.map((f) => f.engine))].join(',') || 'gateway',
              notify: action !== 'quarantine_silent',
              evidence: evidenceOf(decision, row.id),
              delivery: { envelopeFrom: row.mailFrom, idempotencyKey: key },
              rewrite: rewriters.get(recipient),
              tenant: decision.tenant,
            },
            systemActor,
            tx,
          );
          quarantineMessageId = held.message.id;
          outboxIds.push(...held.outboxIds.map((id) => ({ id, tenantId: decision.tenant.id })));
        }
        await inbound.logDelivery(tx, logRow(row, parsed, auth, recipient, decision, quarantineMessageId));
      }
      return true;
    });
    // Only once committed may the queued mail go out.
    if (!finished) return;
    for (const { id, tenantId } of outboxIds) deps.mailer.deliverStored(id, tenantId);
    countFinished(byRecipient.map(({ decision }) => decision));
  }

  /** One claimed message: processed, or backed off after a failure, or parked after the last one. */
  async function handle(row: InboundRow): Promise<boolean> {
    leases.held.add(row.id);
    try {
      return await handleClaimed(row);
    } finally {
      leases.held.delete(row.id);
    }
  }

  async function handleClaimed(row: InboundRow): Promise<boolean> {
    if (row.attempts > MAX_PROCESSING_ATTEMPTS) {
      // Claimed that often without finishing: a pass that kills its node, or one that never ends.
      await park(row, 'processing did not finish (the node stopped or timed out each time)');
      return false;
    }
    try {
      await processRow(row);
      return true;
    } catch (error) {
      // What the database said, rather than the statement that failed (drizzle wraps its errors).
      const cause = (error as { cause?: unknown }).cause;
      const lastError = cleanText((cause instanceof Error ? cause : (error as Error)).message, 500);
      if (row.attempts >= MAX_PROCESSING_ATTEMPTS) {
        await park(row, lastError);
        return false;
      }
      const next = new Date(deps.clock.now().getTime() + processingRetryDelayMs(row.attempts));
      deps.log.warn(
        { inboundId: row.id, attempt: row.attempts, err: lastError, nextAttemptAt: next },
        'processing an inbound message failed; will retry',
      );
      await inbound.backOff(row.id, nodeId, lastError, next);
      return false;
    }
  }

  /** Hold a message that cannot be processed, for every recipient of a tenant; deliver nothing. */
  async function park(row: InboundRow, lastError: string): Promise<void> {
    const raw = Buffer.from(row.raw);
    const head = roughHeaders(raw);
    const reason = `Could not be processed after ${MAX_PROCESSING_ATTEMPTS} attempts, held unscanned: ${lastError}`;
    const copies: ParkedCopy[] = [];
    for (const recipient of row.rcptTo) {
      const tenant = (await tenantOfDomain(recipient.split('@')[1] ?? ''))?.tenant;
      if (!tenant) continue;
      copies.push({
        tenantId: tenant.id,
        retentionDays: tenant.retentionDays,
        recipient,
        sender: head.from || row.mailFrom,
        subject: head.subject,
        reason: cleanText(reason, 1_000),
        details: traceDetails(row, null, {
          verdict: 'suspicious',
          action: 'quarantine_silent',
          findings: [],
          why: `processing failed ${MAX_PROCESSING_ATTEMPTS} times: held unscanned for an admin`,
        }),
      });
    }
    if (
      await inbound.park(row, nodeId, lastError, copies, deps.clock.now(), stripForgedAuthResults(raw, mta))
    ) {
      deps.log.error(
        { inboundId: row.id, err: lastError, recipients: row.rcptTo.length },
        'inbound message parked as failed: held for an admin, not delivered',
      );
      // Held unscanned for an admin: no verdict of its own.
      if (copies.length > 0) {
        metrics.gatewayMessages.inc({ verdict: 'unscanned', action: 'parked' }, copies.length);
      }
    }
  }

  /** Messages finishing at once (delivered as they came) are finished together, in one statement. */
  const finishes = createBatcher<
    Parameters<InboundRepo['finishDelivered']>[2][number],
    Awaited<ReturnType<InboundRepo['finishDelivered']>>[number]
  >({
    waitMs: 0,
    // One message the database refuses fails only itself (its pass backs off), not its batch.
    alone: true,
    ...BATCH_BYTES,
    run: (messages) => inbound.finishDelivered(nodeId, deps.clock.now(), messages),
  });

  /** Slots in use on this node: messages being processed, and those being claimed or stored for one. */
  let busy = 0;
  /** `stop()` is under way: passes claim nothing more. */
  let stopping = false;
  /**
   * Messages claimed by this node that wait for a slot (their leases renewed meanwhile), at most
   * `readyMax`: claimed in batches and taken in as they are stored while every slot is taken, so
   * a node under load spends no claim statement per message. A pass counts what it claimed.
   */
  const ready: Array<{ row: InboundRow; pass: Pass | undefined }> = [];
  const readyMax = concurrency * 16;
  /** Messages being stored already claimed, whose slot or place in `ready` is promised. */
  let storing = 0;
  /**
   * The bytes of the messages in `ready` and being stored for it. Intake keeps them within
   * READY_BYTES (but one message); a pass adds at most `concurrency * 4` claimed ones on top.
   */
  let readyBytes = 0;
  /** Resolved at the next change in `busy` or `ready` (then replaced). */
  let wake = () => {};
  let changed = new Promise<void>((resolve) => {
    wake = resolve;
  });
  function slotsChanged(): void {
    const resolve = wake;
    changed = new Promise<void>((r) => {
      wake = r;
    });
    resolve();
  }
  type Pass = { started: number; done: number };
  /** Hand-backs of a stopping node under way (`stop` waits for them). */
  const handingBack = new Set<Promise<void>>();
  /** Claimed messages this stopping node will not start: due again at once for any node. */
  function handBack(rows: InboundRow[]): void {
    if (rows.length === 0) return;
    const ids = rows.map((row) => row.id);
    for (const id of ids) leases.held.delete(id);
    const done: Promise<void> = inbound
      .handBack(ids, nodeId)
      .catch((error) => deps.log.warn({ err: error }, 'handing back inbound messages failed'))
      .finally(() => handingBack.delete(done));
    handingBack.add(done);
  }
  /** A message claimed by this node: processed in a free slot, or waiting in `ready` for one. */
  function hold(row: InboundRow, pass: Pass | undefined): void {
    // A stopping node starts nothing more: what it claims meanwhile goes back at once.
    if (stopping) {
      handBack([row]);
      return;
    }
    leases.held.add(row.id);
    if (pass) pass.started += 1;
    ready.push({ row, pass });
    readyBytes += row.raw.length;
    fill();
  }
  /** Waiting messages into the free slots (slots promised to a claim or a store are not free). */
  function fill(): void {
    while (busy < concurrency && ready.length > 0) {
      const next = ready.shift()!;
      readyBytes -= next.row.raw.length;
      busy += 1;
      work(next.row, next.pass);
    }
  }
  /** Process a claimed message in a slot already counted in `busy`; then the next one waiting. */
  function work(row: InboundRow, pass: Pass | undefined): void {
    void handle(row)
      .catch((error) => {
        deps.log.error({ err: error, inboundId: row.id }, 'inbound message crashed');
        return false;
      })
      .then((processed) => {
        if (pass) {
          pass.started -= 1;
          if (processed) pass.done += 1;
        }
        busy -= 1;
        fill();
        slotsChanged();
        // Messages stored while this node had no room wait in the table: claim them now.
        if (wanted && timer) kick();
      });
  }

  /**
   * Process every message that is due, oldest first, with up to `concurrency` in flight on this
   * node: claimed four times `concurrency` at a time (those there is no slot for yet wait in `ready`),
   * a slot that frees up refilled at once. Returns how many this pass processed.
   */
  async function drain(): Promise<number> {
    const pass: Pass = { started: 0, done: 0 };
    /** The last claim took all it asked for: more may be due. */
    let more = true;
    for (;;) {
      // Claimed messages waiting while a slot is free (a claim that held the slots failed) start.
      fill();
      const room = concurrency - busy;
      if (room > 0 && (more || wanted) && !stopping) {
        wanted = false;
        // A batch at a time: what there is no slot for yet waits claimed (its lease renewed).
        const want = concurrency * 4;
        busy += room;
        let rows: InboundRow[] = [];
        try {
          rows = await inbound.claimRows(nodeId, deps.clock.now(), leases.until(), want);
        } finally {
          busy -= room;
          fill();
          slotsChanged();
        }
        more = rows.length === want;
        // Older messages are left in the table: new ones join them there rather than overtake them.
        if (more) wanted = true;
        for (const row of rows) hold(row, pass);
        slotsChanged();
        continue;
      }
      if (pass.started === 0 && (stopping || !(more || wanted))) return pass.done;
      // This pass's messages are under way, or every slot is taken (by messages taken in as they
      // were stored, or by another pass) while more may be due.
      await changed;
    }
  }

  /**
   * A message the front door took in: stored durably (its id, for the SMTP 250). On a running node
   * with a free slot, or room among the messages waiting for one, it is stored already claimed and
   * processed from memory — no claim statement, no reading the bytes back. Otherwise it waits in
   * the table for a pass.
   */
  async function intake(message: ArrivedMessage): Promise<string> {
    // Messages already wait in the table (`wanted`): this one joins them, so they are not passed
    // over for as long as newer mail keeps the slots busy.
    const size = message.raw.length;
    const claim =
      timer !== null &&
      !wanted &&
      busy + ready.length + storing < concurrency + readyMax &&
      (readyBytes === 0 || readyBytes + size <= READY_BYTES);
    if (!claim) {
      const row = await arrivals.add({ ...message, claimedBy: null, leaseUntil: null });
      kick();
      return row.id;
    }
    storing += 1;
    readyBytes += size;
    try {
      const row = await arrivals.add({ ...message, claimedBy: nodeId, leaseUntil: leases.until() });
      hold(row, undefined);
      return row.id;
    } finally {
      readyBytes -= size;
      storing -= 1;
      slotsChanged();
    }
  }
  /** Messages arriving on several connections at once are stored together, in one statement. */
  const arrivals = createBatcher<Parameters<InboundRepo['storeMany']>[0][number], InboundRow>({
    waitMs: 0,
    alone: true,
    ...BATCH_BYTES,
    run: (messages) => inbound.storeMany(messages),
  });

  function kick(): void {
    wanted = true;
    // The pass under way claims again; a stopping node starts none.
    if (running || stopping) return;
    running = drain()
      .then(() => undefined)
      .catch((error) => deps.log.error({ err: error }, 'inbound processing loop failed'))
      .finally(() => {
        running = null;
        if (wanted) kick();
      });
  }

  return {
    drain,
    intake,
    /** A message was stored: process it soon. */
    kick,
    /** Process in the background: now (what a crash left), on every kick, and every few seconds. */
    start(intervalMs = 2_000) {
      if (timer) return;
      kick();
      timer = setInterval(kick, intervalMs);
      timer.unref();
      leases.start();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      // Messages being processed finish; nothing more is claimed, and those waiting for a slot
      // are handed back, due at once for the other nodes (or this one's next start).
      stopping = true;
      const waiting = ready.splice(0);
      for (const { row, pass } of waiting) {
        readyBytes -= row.raw.length;
        if (pass) pass.started -= 1;
      }
      handBack(waiting.map(({ row }) => row));
      slotsChanged();
      await running;
      while (busy > 0 || ready.length > 0 || storing > 0) await changed;
      await Promise.all(handingBack);
      await leases.stop();
      // Stopped: a pass asked for now (a test's drain) works as before start.
      stopping = false;
      await authPool.close();
    },
    /** An admin's retry of a parked message (its held copies untouched since): due again at once. */
    async retryParked(inboundId: string, tenantId: string) {
      const result = await deps.db.transaction((tx) => inbound.requeueParked(tx, inboundId, tenantId));
      if (result === 'requeued') kick();
      return result;
    },
    /** With the embedded database this process is the only node: a previous run's leases are void. */
    releaseAllLeases: () => inbound.releaseAllLeases(),
    /** This node's previous run (`takeOverDataDir`) is gone: its claims are due at once. */
    takeBack: (previousNode: string) => inbound.releaseLeasesOf(previousNode),
  };
}
export type GatewayProcessor = ReturnType<typeof createGatewayProcessor>;
