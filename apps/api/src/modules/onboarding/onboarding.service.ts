import { randomBytes } from 'node:crypto';
import dns from 'node:dns';
import os from 'node:os';
import type { AuditAction } from '@moat/contracts/audit';
import type {
  DnsCheck,
  DnsCheckStatus,
  OnboardingChecklist,
  OnboardingState,
  TestMessageResult,
} from '@moat/contracts/onboarding';
import { domainOfEmail, domainSchema } from '@moat/contracts/validation';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { mailComposer } from '../../mail/compose.ts';
import {
  checkedRelayUrl,
  checkNextHop,
  type HostLookup,
  nextHopLabel,
  nextHopUrl,
  parseNextHop,
  relayUrlWith,
  whyNotDelivered,
} from '../../mail/next-hop.ts';
import { createRelay, type RelayError } from '../../mail/relay.ts';
import { chooseSender, isMailDomain } from '../../mail/sender.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { TenantsRepo } from '../tenants/tenants.repo.ts';
import type { TenantsService } from '../tenants/tenants.service.ts';
import type { OnboardingRepo } from './onboarding.repo.ts';

/** This machine's own addresses: a next hop there on the gateway's port is the gateway itself. */
function ownAddresses(): Set<string> {
  return new Set(
    Object.values(os.networkInterfaces())
      .flat()
      .map((entry) => entry?.address ?? '')
      .filter(Boolean),
  );
}

/** A DNS lookup: node's `resolve` (MX answers as objects, TXT as arrays of strings). */
export type OnboardingResolver = (name: string, rrtype: 'MX' | 'TXT') => Promise<unknown>;

/** The TXT record that proves a domain is the organisation's: this prefix and its token. */
export const VERIFICATION_PREFIX = 'moat-verification=';

/** A domain lookup that found nothing, as opposed to one that failed. */
const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);
/** The checklist looks up this many domains at a time. */
const DNS_CHECKS_AT_ONCE = 4;
/** At most this many domains per organisation from the console. */
export const MAX_DOMAINS = 100;
/** How long the test message may take, each step (connect, greeting, each reply). */
const TEST_TIMEOUT_MS = '10000';

/**
 * The system resolver (or `servers`, DNS_SERVERS), bounded: an answer within 3 s (two tries),
 * not the default minutes. Onboarding asks MX and TXT; SPF Management A and AAAA as well.
 */
export function systemResolver<Rrtype extends string = 'MX' | 'TXT'>(
  servers: string[] = [],
  bounds: { timeoutMs: number; tries: number } = { timeoutMs: 3000, tries: 2 },
): (name: string, rrtype: Rrtype) => Promise<unknown> {
  const resolver = new dns.promises.Resolver({ timeout: bounds.timeoutMs, tries: bounds.tries });
  if (servers.length > 0) resolver.setServers(servers);
  return (name, rrtype) => resolver.resolve(name, rrtype);
}

type Check = DnsCheck['checks'][number];

/** Records that failed to answer say so; "no such record" is an answer (null). */
async function lookup(
  resolve: OnboardingResolver,
  name: string,
  rrtype: 'MX' | 'TXT',
): Promise<{ records: unknown[] } | { error: string }> {
  try {
    const answer = await resolve(name, rrtype);
    return { records: Array.isArray(answer) ? answer : [] };
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'EUNKNOWN';
    return NO_RECORDS.has(code) ? { records: [] } : { error: code };
  }
}

const txtOf = (records: unknown[]) =>
  records.map((r) => (Array.isArray(r) ? r.join('') : String(r))).filter((t) => t !== '');
const bare = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** Why a lookup gave no answer, in words (c-ares codes). */
function lookupFailure(code: string): string {
  if (code === 'ETIMEOUT') return 'the DNS server did not answer in time';
  if (code === 'ESERVFAIL') return 'the DNS server answered with a failure (SERVFAIL)';
  if (code === 'ECONNREFUSED' || code === 'ENOSERVER' || code === 'UNKNOWN_ARES_ERROR') {
    return 'no DNS server could be reached';
  }
  if (code === 'EREFUSED') return 'the DNS server refused the question';
  return `the DNS lookup failed (${code})`;
}

/** A record whose lookup failed: not checked — neither right nor missing. */
function failed(kind: Check['kind'], code: string): Check {
  return {
    kind,
    status: 'error',
    found: [],
    advice: `Could not check: ${lookupFailure(code)}. Check again in a moment; if it persists, check the DNS servers this server asks (DNS_SERVERS).`,
    suggested: null,
  };
}

/** The advice when this gateway has no public DNS name for MX records to name. */
export function gatewayNameAdvice(host: string): string {
  return `This gateway's host name, ${host}, is a machine name, not a public DNS name, so no MX record can point here. The operator must set SMTP_HOSTNAME to the gateway's public DNS name (for example mx.example.com) and restart Moat.`;
}

function mxCheck(domain: string, mxHost: string, records: unknown[]): Check {
  const suggested = `${domain}. MX 10 ${mxHost}.`;
  const mx = records
    .map((r) => r as { exchange?: unknown; priority?: unknown })
    .filter((r) => typeof r.exchange === 'string')
    .map((r) => ({ host: bare(String(r.exchange)), priority: Number(r.priority) || 0 }))
    .sort((a, b) => a.priority - b.priority);
  const found = mx.map((r) => `${r.priority} ${r.host || '.'}`);
  const status = (status: DnsCheckStatus, advice: string, suggestion: string | null = suggested) => ({
    kind: 'mx' as const,
    status,
    found,
    advice,
    suggested: suggestion,
  });
  // Without a public name for this gateway there is nothing to compare with, and nothing to publish.
  if (!isMailDomain(mxHost)) return status('error', `Could not check. ${gatewayNameAdvice(mxHost)}`, null);
  if (mx.length === 0) {
    return status('missing', `${domain} has no MX record: mail for it cannot reach Moat. Publish one.`);
  }
  if (mx.length === 1 && mx[0]!.host === '') {
    return status('warning', `${domain} says it takes no mail (a null MX). Point its MX at Moat instead.`);
  }
  const first = mx[0]!.priority;
  const preferred = mx.filter((r) => r.priority === first).map((r) => r.host);
  const ours = bare(mxHost);
  if (preferred.every((host) => host === ours)) {
    return status('ok', `Mail for ${domain} comes to Moat (${ours}) first.`, null);
  }
  if (mx.some((r) => r.host === ours)) {
    return status(
      'warning',
      `Mail for ${domain} goes to ${preferred.filter((h) => h !== ours).join(', ')} before Moat, so it skips its checks. Give ${ours} the lowest priority number.`,
    );
  }
  return status(
    'warning',
    `Mail for ${domain} goes to ${preferred.join(', ')}, not through Moat. Point the MX record at ${ours}.`,
  );
}

function spfCheck(domain: string, records: unknown[]): Check {
  const spf = txtOf(records).filter((t) => /^v=spf1(\s|$)/i.test(t));
  const suggested = `${domain}. TXT "v=spf1 mx -all"`;
  const result = (status: DnsCheckStatus, advice: string, suggestion: string | null = suggested) => ({
    kind: 'spf' as const,
    status,
    found: spf,
    advice,
    suggested: suggestion,
  });
  if (spf.length === 0) {
    return result(
      'missing',
      `${domain} has no SPF record: receivers cannot tell your servers from someone forging your address. Publish one that names the servers that send your mail and ends in -all.`,
    );
  }
  if (spf.length > 1) {
    return result(
      'warning',
      `${domain} has ${spf.length} SPF records; receivers treat that as an error (RFC 7208). Merge them into one.`,
    );
  }
  const record = spf[0]!.toLowerCase();
  if (/\s\+?all(\s|$)/.test(record)) {
    return result(
      'warning',
      `The SPF record ends in +all: it lets any server send as ${domain}. End it in -all.`,
    );
  }
  if (/\s\?all(\s|$)/.test(record)) {
    return result(
      'warning',
      'The SPF record ends in ?all: it says nothing about forged mail. End it in -all.',
    );
  }
  if (/\s~all(\s|$)/.test(record)) {
    return result(
      'ok',
      'SPF is published and ends in ~all (soft fail). Once all your senders are listed, -all is stricter.',
      null,
    );
  }
  if (/\s-all(\s|$)/.test(record) || /\sredirect=/.test(record)) {
    return result('ok', 'SPF is published and refuses servers it does not list.', null);
  }
  return result(
    'warning',
    'The SPF record has no "all" at its end: mail from unlisted servers passes as neutral. End it in -all.',
  );
}

function dmarcCheck(domain: string, records: unknown[]): Check {
  const dmarc = txtOf(records).filter((t) => /^v=DMARC1\s*(;|$)/i.test(t));
  const suggested = `_dmarc.${domain}. TXT "v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@${domain}"`;
  const result = (status: DnsCheckStatus, advice: string, suggestion: string | null = suggested) => ({
    kind: 'dmarc' as const,
    status,
    found: dmarc,
    advice,
    suggested: suggestion,
  });
  if (dmarc.length === 0) {
    return result(
      'missing',
      `${domain} has no DMARC record: receivers (Moat among them) cannot reject mail that forges your domain. Publish one.`,
    );
  }
  if (dmarc.length > 1) {
    return result(
      'warning',
      `${domain} has ${dmarc.length} DMARC records; receivers ignore them all. Keep one.`,
    );
  }
  const policy = /(?:^|;)\s*p\s*=\s*([a-z]+)/i.exec(dmarc[0]!)?.[1]?.toLowerCase();
  if (policy === 'reject' || policy === 'quarantine') {
    return result('ok', `DMARC is published with p=${policy}: forged mail from ${domain} is stopped.`, null);
  }
  if (policy === 'none') {
    return result(
      'warning',
      'DMARC is published with p=none: it only reports. Move to p=quarantine, then p=reject, once the reports show only your own servers.',
    );
  }
  return result(
    'warning',
    'The DMARC record has no valid policy (p=none, quarantine or reject). Fix the record.',
  );
}

/**
 * Onboarding (SPEC §2.5, issue 12): the organisation's domains, their DNS records, its next hop
 * and a test message through it, then done. Each change is audited.
 */
export function createOnboardingService(deps: {
  db: Pick<Db, 'transaction'>;
  clock: Clock;
  config: Pick<
    Config,
    'smtpRelayUrl' | 'mailFrom' | 'mailFromSet' | 'smtpPort' | 'nextHopNetworks' | 'publicUrl'
  > & {
    gateway: Pick<Config['gateway'], 'hostname'>;
  };
  /** How a next hop's name is resolved (tests); the system's by default. */
  lookup?: HostLookup;
  tenants: Pick<TenantsRepo, 'findById' | 'domainsOf' | 'update' | 'domainOwner'>;
  repo: OnboardingRepo;
  tenantsService: Pick<TenantsService, 'addDomain'>;
  audit: Pick<AuditRepo, 'record'>;
  resolver: OnboardingResolver;
  /** Forget this node's cached tenants right after a change (the other nodes hear the database). */
  forgetTenants: () => void;
}) {
  /** This deployment's own names: its console, its gateway, its sender. */
  function deploymentHosts(): string[] {
    return [
      new URL(deps.config.publicUrl).hostname,
      deps.config.gateway.hostname,
      deps.config.mailFrom ? domainOfEmail(deps.config.mailFrom) : '',
    ]
      .map(bare)
      .filter((host) => host.includes('.'));
  }

  async function tenantOf(tenantId: string) {
    const tenant = await deps.tenants.findById(tenantId);
    if (!tenant) throw new AppError('forbidden', 'not authenticated');
    return tenant;
  }

  async function ownDomain(tenantId: string, raw: string): Promise<string> {
    const domain = raw.trim().toLowerCase().replace(/\.$/, '');
    const domains = await deps.tenants.domainsOf(tenantId);
    const pending = (await deps.repo.pendingOf(tenantId)).map((p) => p.domain);
    if (!domains.includes(domain) && !pending.includes(domain)) {
      throw new AppError('not_found', `${raw.slice(0, 253)} is not one of your domains`);
    }
    return domain;
  }

  /** The gateway's own address: a next hop there sends mail back to Moat, round and round. */
  function isOwnGateway(host: string, port: number, addresses: string[]): boolean {
    if (port !== deps.config.smtpPort) return false;
    if (['localhost', bare(deps.config.gateway.hostname)].includes(host)) return true;
    return addresses.some((address) => address.startsWith('127.') || ownAddresses().has(address));
  }

  async function record(
    actor: Actor,
    tenantId: string,
    action: AuditAction,
    details: Record<string, unknown>,
  ) {
    await deps.db.transaction((tx) =>
      deps.audit.record(actor, { tenantId, action, targetType: 'tenant', targetId: tenantId, details }, tx),
    );
  }

  return {
    async state(tenantId: string): Promise<OnboardingState> {
      const tenant = await tenantOf(tenantId);
      const mxHost = bare(deps.config.gateway.hostname);
      return {
        onboarded: tenant.onboardedAt !== null,
        name: tenant.name,
        domains: await deps.tenants.domainsOf(tenantId),
        mx_host: mxHost,
        mx_host_usable: isMailDomain(mxHost),
        next_hop: tenant.nextHopUrl ? nextHopLabel(tenant.nextHopUrl) : null,
        deployment_relay: Boolean(deps.config.smtpRelayUrl),
        pending_domains: (await deps.repo.pendingOf(tenantId)).map(({ domain, token }) => ({
          domain,
          record: `${domain}. TXT "${VERIFICATION_PREFIX}${token}"`,
        })),
      };
    },

    /**
     * A domain the organisation says is theirs: it waits, pending, until a TXT record proves it
     * (`verifyDomain`); until then the gateway takes no mail for it. Refused: a domain of this
     * deployment itself, one of theirs already, one another organisation has (said in words that
     * do not tell whose), more than MAX_DOMAINS.
     */
    async addDomain(tenantId: string, raw: string, actor: Actor): Promise<OnboardingState> {
      const parsed = domainSchema.safeParse(raw);
      if (!parsed.success) {
        throw new AppError(
          'validation_error',
          `"${raw.slice(0, 253)}" is not a valid mail domain (for example: example.com)`,
          [{ field: 'body.domain', message: 'invalid_domain' }],
        );
      }
      const domain = parsed.data;
      const own = deploymentHosts();
      if (own.some((host) => host === domain || host.endsWith(`.${domain}`) || domain.endsWith(`.${host}`))) {
        throw new AppError('validation_error', `${domain} belongs to this Moat deployment itself`, [
          { field: 'body.domain', message: 'deployment_domain' },
        ]);
      }
      const domains = await deps.tenants.domainsOf(tenantId);
      if (domains.includes(domain))
        throw new AppError('conflict', `${domain} is one of your domains already`);
      if (await deps.tenants.domainOwner(domain)) {
        throw new AppError('conflict', `${domain} cannot be added here. If it is yours, ask your provider.`);
      }
      if (domains.length + (await deps.repo.pendingCount(tenantId)) >= MAX_DOMAINS) {
        throw new AppError('conflict', `An organisation has at most ${MAX_DOMAINS} domains here`);
      }
      await deps.db.transaction(async (tx) => {
        await deps.repo.addPending(tenantId, domain, randomBytes(16).toString('hex'), tx);
        await deps.audit.record(
          actor,
          {
            tenantId,
            action: 'onboarding.domain_requested',
            targetType: 'tenant',
            targetId: tenantId,
            details: { domain },
          },
          tx,
        );
      });
      return this.state(tenantId);
    },

    /**
     * A pending domain becomes the organisation's once its TXT record holds the token: from then
     * on the gateway takes its mail (audited as tenant.domain_add). Without the record, 409 says
     * what to publish.
     */
    async verifyDomain(tenantId: string, raw: string, actor: Actor): Promise<OnboardingState> {
      const domain = raw.trim().toLowerCase().replace(/\.$/, '');
      const pending = (await deps.repo.pendingOf(tenantId)).find((p) => p.domain === domain);
      if (!pending)
        throw new AppError('not_found', `${raw.slice(0, 253)} is not a domain waiting to be verified`);
      const expected = `${VERIFICATION_PREFIX}${pending.token}`;
      const found = await lookup(deps.resolver, domain, 'TXT');
      if ('error' in found) {
        throw new AppError(
          'conflict',
          `The DNS lookup of ${domain} failed (${found.error}). Try again in a moment.`,
        );
      }
      if (!txtOf(found.records).some((text) => text.trim() === expected)) {
        throw new AppError(
          'conflict',
          `No TXT record "${expected}" at ${domain} yet. DNS changes can take a while to show; check again later.`,
        );
      }
      try {
        await deps.tenantsService.addDomain(tenantId, domain, actor);
      } catch (error) {
        // Another organisation proved it first (or the operator gave it to one).
        if (error instanceof AppError && error.code === 'conflict') {
          throw new AppError(
            'conflict',
            `${domain} cannot be added here. If it is yours, ask your provider.`,
          );
        }
        throw error;
      }
      await deps.repo.removePending(tenantId, domain);
      deps.forgetTenants();
      return this.state(tenantId);
    },

    /** The domain's MX, SPF and DMARC records, each with what is right or what to change. */
    async checkDns(tenantId: string, rawDomain: string): Promise<DnsCheck> {
      const domain = await ownDomain(tenantId, rawDomain);
      const mxHost = bare(deps.config.gateway.hostname);
      const [mx, txt, dmarc] = await Promise.all([
        lookup(deps.resolver, domain, 'MX'),
        lookup(deps.resolver, domain, 'TXT'),
        lookup(deps.resolver, `_dmarc.${domain}`, 'TXT'),
      ]);
      return {
        domain,
        checks: [
          // Without a public name for the gateway, the MX says so whatever the lookup gave.
          'error' in mx && isMailDomain(mxHost)
            ? failed('mx', mx.error)
            : mxCheck(domain, mxHost, 'error' in mx ? [] : mx.records),
          'error' in txt ? failed('spf', txt.error) : spfCheck(domain, txt.records),
          'error' in dmarc ? failed('dmarc', dmarc.error) : dmarcCheck(domain, dmarc.records),
        ],
      };
    },

    /**
     * Everything not right yet, looked up now: every domain's records (a few at a time), the
     * gateway's name, domains waiting for their TXT record, a mail server to deliver to.
     */
    async checklist(tenantId: string): Promise<OnboardingChecklist> {
      const state = await this.state(tenantId);
      const checks: DnsCheck[] = [];
      for (let at = 0; at < state.domains.length; at += DNS_CHECKS_AT_ONCE) {
        const batch = state.domains.slice(at, at + DNS_CHECKS_AT_ONCE);
        checks.push(...(await Promise.all(batch.map((domain) => this.checkDns(tenantId, domain)))));
      }
      const item = (
        kind: OnboardingChecklist['missing'][number]['kind'],
        rest: Partial<Omit<OnboardingChecklist['missing'][number], 'kind'>> = {},
      ) => ({ kind, domain: null, record: null, status: null, ...rest });
      const missing: OnboardingChecklist['missing'] = [];
      if (state.domains.length === 0) missing.push(item('domain'));
      for (const pending of state.pending_domains)
        missing.push(item('pending_domain', { domain: pending.domain }));
      if (!state.mx_host_usable) missing.push(item('gateway_name'));
      for (const check of checks) {
        for (const record of check.checks) {
          if (record.status !== 'ok') {
            missing.push(
              item('record', { domain: check.domain, record: record.kind, status: record.status }),
            );
          }
        }
      }
      if (!state.next_hop && !state.deployment_relay) missing.push(item('mail_server'));
      return { checks, missing };
    },

    /** The organisation's own name (the first one starts with its admin's domain); audited. */
    async rename(tenantId: string, name: string, actor: Actor): Promise<OnboardingState> {
      const tenant = await tenantOf(tenantId);
      if (name !== tenant.name) {
        await deps.db.transaction(async (tx) => {
          await deps.tenants.update(tenantId, { name }, tx);
          await deps.audit.record(
            actor,
            {
              tenantId,
              action: 'tenant.renamed',
              targetType: 'tenant',
              targetId: tenantId,
              details: { from: tenant.name, to: name },
            },
            tx,
          );
        });
        deps.forgetTenants();
      }
      return this.state(tenantId);
    },

    async setNextHop(tenantId: string, input: string | null, actor: Actor): Promise<OnboardingState> {
      const tenant = await tenantOf(tenantId);
      let url: string | null = null;
      if (input !== null && input !== '') {
        const hop = parseNextHop(input);
        if (!hop) {
          throw new AppError(
            'validation_error',
            'Enter the mail server as host or host:port (for example mail.example.com:25)',
            [{ field: 'body.next_hop', message: 'invalid_next_hop' }],
          );
        }
        const checked = await checkNextHop(hop, deps.config.nextHopNetworks, deps.lookup);
        if ('refused' in checked) {
          throw new AppError('validation_error', `That mail server cannot be used: ${checked.refused}`, [
            { field: 'body.next_hop', message: 'next_hop_refused' },
          ]);
        }
        if (isOwnGateway(hop.host, hop.port, checked.addresses)) {
          throw new AppError(
            'validation_error',
            "That is Moat's own gateway: mail would go round in a loop. Enter your mail server",
            [{ field: 'body.next_hop', message: 'next_hop_is_gateway' }],
          );
        }
        url = nextHopUrl(hop);
      }
      if (url !== tenant.nextHopUrl) {
        await deps.db.transaction(async (tx) => {
          await deps.tenants.update(tenantId, { nextHopUrl: url }, tx);
          await deps.audit.record(
            actor,
            {
              tenantId,
              action: 'onboarding.next_hop',
              targetType: 'tenant',
              targetId: tenantId,
              details: {
                from: tenant.nextHopUrl && nextHopLabel(tenant.nextHopUrl),
                to: url && nextHopLabel(url),
              },
            },
            tx,
          );
        });
        deps.forgetTenants();
      }
      return this.state(tenantId);
    },

    /**
     * A test message to an address of the organisation, straight through its next hop (or the
     * deployment's relay), answered with what that server said: delivered or not, and why.
     */
    async sendTestMessage(tenantId: string, to: string, actor: Actor): Promise<TestMessageResult> {
      const tenant = await tenantOf(tenantId);
      const domains = await deps.tenants.domainsOf(tenantId);
      if (!domains.includes(domainOfEmail(to))) {
        throw new AppError(
          'validation_error',
          `The test message goes to an address of your domains (${domains.join(', ')})`,
          [{ field: 'body.to', message: 'domain_not_yours' }],
        );
      }
      const route = tenant.nextHopUrl ?? deps.config.smtpRelayUrl;
      if (!route) {
        throw new AppError(
          'conflict',
          'Enter your mail server first: this deployment has no relay of its own',
        );
      }
      const via = tenant.nextHopUrl ? nextHopLabel(tenant.nextHopUrl) : "the deployment's relay";
      const timeouts = {
        connectionTimeout: TEST_TIMEOUT_MS,
        greetingTimeout: TEST_TIMEOUT_MS,
        socketTimeout: TEST_TIMEOUT_MS,
        pool: 'false',
      };
      let relayUrl: string;
      try {
        // The next hop is checked again now: its name may point elsewhere since it was saved.
        relayUrl = tenant.nextHopUrl
          ? await checkedRelayUrl(tenant.nextHopUrl, deps.config.nextHopNetworks, timeouts, deps.lookup)
          : relayUrlWith(route, timeouts);
      } catch (error) {
        const response = `That mail server cannot be used: ${(error as Error).message}`;
        await record(actor, tenantId, 'onboarding.test_message', { to, via, delivered: false });
        return { delivered: false, via, response };
      }
      const from = chooseSender(deps.config, { own: tenant.mailFromAddress, domains }).address;
      if (!from) {
        throw new AppError(
          'conflict',
          'Moat has no sender address for its own mail: set one in Configuration → Settings (or MAIL_FROM)',
        );
      }
      const brand = mailBrand(tenant).name;
      const MailComposer = await mailComposer();
      const raw = await new MailComposer({
        from: { name: tenant.mailFromName ?? brand, address: from },
        to,
        subject: `${brand} test message`,
        text: [
          `This message was sent by ${brand}'s set-up to check the way from ${brand} to your mail server (${via}).`,
          'If you can read it, mail that passes the checks reaches your mailboxes. You do not need to answer.',
        ].join('\n\n'),
        headers: { 'X-Moat-Mail-Kind': 'onboarding_test', 'Auto-Submitted': 'auto-generated' },
        date: deps.clock.now(),
      })
        .compile()
        .build();
      const relay = createRelay(relayUrl);
      let result: TestMessageResult;
      try {
        const response = await relay.send({ from, to: [to] }, raw);
        result = { delivered: true, via, response: response || 'accepted' };
      } catch (error) {
        result = { delivered: false, via, response: whyNotDelivered(error as RelayError) };
      } finally {
        relay.close();
      }
      await record(actor, tenantId, 'onboarding.test_message', { to, via, delivered: result.delivered });
      return result;
    },

    /** Done: the organisation's admins are no longer led to onboarding (once; audited). */
    async complete(tenantId: string, actor: Actor): Promise<OnboardingState> {
      const tenant = await tenantOf(tenantId);
      if (tenant.onboardedAt === null) {
        await deps.db.transaction(async (tx) => {
          await deps.tenants.update(tenantId, { onboardedAt: deps.clock.now() }, tx);
          await deps.audit.record(
            actor,
            {
              tenantId,
              action: 'onboarding.complete',
              targetType: 'tenant',
              targetId: tenantId,
              details: {},
            },
            tx,
          );
        });
        deps.forgetTenants();
      }
      return this.state(tenantId);
    },
  };
}
export type OnboardingService = ReturnType<typeof createOnboardingService>;
