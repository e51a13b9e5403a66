import {
  type DmarcAlert,
  type DmarcAlertKind,
  type DmarcAlertsResponse,
  DNS_RECORD_KINDS,
  type DnsChange,
  type DnsChangesResponse,
  type DnsCheckResult,
  type DnsPollFailure,
  type DnsRecord,
  type DnsRecordKind,
} from '@moat/contracts/dmarc';
import { ROUTES } from '@moat/contracts/routes';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { type DmarcAlertFacts, dmarcAlertEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AlertsRepo } from '../alerts/alerts.repo.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { systemResolver } from '../onboarding/onboarding.service.ts';
import type {
  DmarcAlertRow,
  DnsChangeRow,
  DnsChangesRepo,
  DnsRecordRow,
  PollResult,
} from './dns-changes.repo.ts';
import {
  type DnsChangeResolver,
  type DnsChangeRrtype,
  lookup,
  MAX_SELECTORS,
  namesOf,
  selectorOf,
} from './dns-changes.ts';

/** The Change-Log's lookups: DNS_SERVERS (or the system's), 1.5 s and one try each. */
export const dnsChangeResolver = (servers: string[] = []): DnsChangeResolver =>
  systemResolver<DnsChangeRrtype>(servers, { timeoutMs: 1500, tries: 1 });

/** Domains polled per sweep at most; the rest wait for the next one (oldest poll first). */
export const DOMAINS_PER_PASS = 50;
/** Domains polled at once. */
const DOMAINS_AT_ONCE = 8;
/** A sweep starts no further domain after this long: the other housekeeping waits for it. */
const PASS_BUDGET_MS = 20_000;
/** "Check now" is refused this soon after the tenant's latest poll. */
export const CHECK_COOLDOWN_MS = 30_000;
/** "Check now" polls at most this many of a tenant's domains. */
const CHECK_DOMAINS_MAX = 100;

/** A source is new and failing when it failed DMARC this often in the last NEW_SOURCE_DAYS days. */
export const NEW_SOURCE_MIN_FAILED = 10;
const NEW_SOURCE_DAYS = 7;
/** A pass-rate drop: this many points in the last RECENT_DAYS against the PRIOR_DAYS before. */
export const DROP_POINTS = 10;
const RECENT_DAYS = 7;
const PRIOR_DAYS = 30;
/** Messages each period needs for its pass rate to count. */
export const DROP_MIN_MESSAGES = 100;
/** A domain's pass-rate drop is told at most once in this long. */
const DROP_QUIET_MS = 7 * 86_400_000;
/** The alerts the screen lists: of the last 90 days, at most 100. */
const ALERTS_DAYS = 90;
const ALERTS_LISTED = 100;

const DAY_MS = 86_400_000;
const utcDay = (at: Date) => at.toISOString().slice(0, 10);

const recordOf = (row: DnsRecordRow): DnsRecord => ({
  domain: row.domain,
  kind: row.kind,
  name: row.name,
  selector: selectorOf(row.kind, row.name, row.domain),
  value: row.value,
  known: row.firstSeenAt !== null,
  firstSeenAt: row.firstSeenAt?.toISOString() ?? null,
  checkedAt: row.checkedAt?.toISOString() ?? null,
  changedAt: row.changedAt?.toISOString() ?? null,
  failure: (row.failure as DnsPollFailure | null) ?? null,
  failedAt: row.failedAt?.toISOString() ?? null,
});

const changeOf = (row: DnsChangeRow): DnsChange => ({
  id: row.id,
  domain: row.domain,
  kind: row.kind,
  name: row.name,
  selector: selectorOf(row.kind, row.name, row.domain),
  before: row.before,
  after: row.after,
  first: row.first,
  observedAt: row.observedAt.toISOString(),
});

/** An alert's stored details, read back as the screen shows them. */
function alertOf(row: DmarcAlertRow): DmarcAlert {
  const d = row.details as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const recordKind = DNS_RECORD_KINDS.find((k) => k === d.recordKind);
  return {
    id: row.id,
    kind: row.kind,
    domain: row.domain,
    raisedAt: row.raisedAt.toISOString(),
    emailed: row.emailed,
    record:
      row.kind === 'dmarc_record_changed' && recordKind
        ? { kind: recordKind, name: str(d.name) ?? '', before: str(d.before), after: str(d.after) }
        : null,
    source:
      row.kind === 'dmarc_new_failing_source'
        ? { ip: str(d.ip) ?? '', failed: num(d.failed), messages: num(d.messages) }
        : null,
    passRate:
      row.kind === 'dmarc_pass_rate_drop'
        ? {
            recent: num(d.recent),
            prior: num(d.prior),
            recentMessages: num(d.recentMessages),
            priorMessages: num(d.priorMessages),
          }
        : null,
  };
}

/** The facts an alert's email tells, from its row. */
function factsOf(row: DmarcAlertRow): DmarcAlertFacts {
  const a = alertOf(row);
  if (a.kind === 'dmarc_record_changed' && a.record)
    return {
      kind: a.kind,
      domain: a.domain,
      at: row.raisedAt,
      record: { ...a.record, selector: selectorOf(a.record.kind, a.record.name, a.domain) },
    };
  if (a.kind === 'dmarc_new_failing_source' && a.source)
    return { kind: a.kind, domain: a.domain, ...a.source, days: NEW_SOURCE_DAYS };
  const p = a.passRate ?? { recent: 0, prior: 0, recentMessages: 0, priorMessages: 0 };
  return {
    kind: 'dmarc_pass_rate_drop',
    domain: a.domain,
    ...p,
    recentDays: RECENT_DAYS,
    priorDays: PRIOR_DAYS,
  };
}

const rate = (passed: number, messages: number) => (messages > 0 ? (passed / messages) * 100 : 0);
const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * DNS Change-Log and DMARC alerts (issue 37): each of the tenants' domains has its SPF, DMARC,
 * DKIM (the selectors its reports named), MX, MTA-STS and TLS-RPT records polled (a sweep task,
 * each domain at most every `pollMinutes`; "Check now" for an admin), each change logged with its
 * before and after. A lookup that fails changes nothing. Alerts — a record changed, a new source
 * failing DMARC, a pass-rate drop — are recorded once each and emailed to the admins.
 */
export function createDnsChangesService(deps: {
  repo: DnsChangesRepo;
  alertsRepo: Pick<AlertsRepo, 'alertRecipients' | 'brandOf'>;
  domainsOf: (tenantId: string) => Promise<string[]>;
  resolver: DnsChangeResolver;
  mailer: Pick<Mailer, 'send'>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  publicUrl: string;
  pollMinutes: number;
  log?: { warn(obj: unknown, msg: string): void };
}) {
  const { repo, clock } = deps;

  /** One domain's records asked once each (at once), and what they said written. */
  async function pollDomain(tenantId: string, domain: string) {
    const now = clock.now();
    const state = await repo.stateOf(tenantId, domain);
    const known = state.records
      .filter((r) => r.kind === 'dkim')
      .map((r) => selectorOf(r.kind, r.name, domain))
      .filter((s): s is string => s !== null);
    const seen =
      known.length < MAX_SELECTORS
        ? await repo.selectorsSeen(tenantId, domain, state.selectorsUntil, now, MAX_SELECTORS)
        : [];
    const names = namesOf(domain, [...known, ...seen]);
    const results: PollResult[] = await Promise.all(
      names.map(async (polled) => {
        const answer = await lookup(deps.resolver, polled);
        return answer.ok
          ? { kind: polled.kind, name: polled.name, ok: true as const, value: answer.value }
          : { kind: polled.kind, name: polled.name, ok: false as const, failure: answer.failure };
      }),
    );
    return {
      changes: await repo.applyPoll(tenantId, domain, now, results, now),
      failed: results.filter((r) => !r.ok).length,
    };
  }

  /** Polls domains, a few at once; stops starting new ones past `deadline`. */
  async function pollAll(domains: Array<{ tenantId: string; domain: string }>, deadline: number) {
    const changes: DnsChangeRow[] = [];
    let failed = 0;
    let polled = 0;
    for (let at = 0; at < domains.length; at += DOMAINS_AT_ONCE) {
      if (clock.now().getTime() > deadline) break;
      const batch = domains.slice(at, at + DOMAINS_AT_ONCE);
      const done = await Promise.all(batch.map((d) => pollDomain(d.tenantId, d.domain)));
      for (const one of done) {
        changes.push(...one.changes);
        failed += one.failed;
      }
      polled += batch.length;
    }
    return { changes, polled, failed };
  }

  /** The alerts of the tenant's changes and reports, recorded once each; the new ones emailed. */
  async function raiseAlerts(tenantId: string, changes: DnsChangeRow[]): Promise<DmarcAlertRow[]> {
    const now = clock.now();
    const raised: DmarcAlertRow[] = [];
    for (const c of changes.filter((c) => !c.first)) {
      const row = await repo.insertAlert({
        tenantId,
        kind: 'dmarc_record_changed',
        domain: c.domain,
        key: c.id,
        details: { recordKind: c.kind, name: c.name, before: c.before, after: c.after },
        raisedAt: c.observedAt,
      });
      if (row) raised.push(row);
    }
    const today = new Date(`${utcDay(now)}T00:00:00Z`).getTime();
    const sourcesFrom = utcDay(new Date(today - (NEW_SOURCE_DAYS - 1) * DAY_MS));
    for (const s of await repo.newFailingSources(tenantId, sourcesFrom, NEW_SOURCE_MIN_FAILED, 20)) {
      const row = await repo.insertAlert({
        tenantId,
        kind: 'dmarc_new_failing_source',
        domain: s.domain,
        key: `${s.domain} ${s.ip}`,
        details: { ip: s.ip, failed: s.failed, messages: s.messages },
        raisedAt: now,
      });
      if (row) raised.push(row);
    }
    const recentFrom = utcDay(new Date(today - (RECENT_DAYS - 1) * DAY_MS));
    const priorFrom = utcDay(new Date(today - (RECENT_DAYS - 1 + PRIOR_DAYS) * DAY_MS));
    for (const r of await repo.passRates(tenantId, priorFrom, recentFrom)) {
      if (r.recentMessages < DROP_MIN_MESSAGES || r.priorMessages < DROP_MIN_MESSAGES) continue;
      const recent = rate(r.recentPassed, r.recentMessages);
      const prior = rate(r.priorPassed, r.priorMessages);
      if (prior - recent < DROP_POINTS) continue;
      if (
        await repo.alertedSince(
          tenantId,
          'dmarc_pass_rate_drop',
          r.domain,
          new Date(now.getTime() - DROP_QUIET_MS),
        )
      )
        continue;
      const row = await repo.insertAlert({
        tenantId,
        kind: 'dmarc_pass_rate_drop',
        domain: r.domain,
        key: `${r.domain} ${utcDay(now)}`,
        details: {
          recent: round1(recent),
          prior: round1(prior),
          recentMessages: r.recentMessages,
          priorMessages: r.priorMessages,
        },
        raisedAt: now,
      });
      if (row) raised.push(row);
    }
    if (raised.length > 0) await email(tenantId, raised);
    return raised;
  }

  /** One email per kind to the tenant's alert recipients, unless the tenant turned them off. */
  async function email(tenantId: string, alerts: DmarcAlertRow[]): Promise<void> {
    if (!(await repo.emailsAlerts(tenantId))) return;
    const to = await deps.alertsRepo.alertRecipients(tenantId);
    if (to.length === 0) return;
    const brand = mailBrand(await deps.alertsRepo.brandOf(tenantId));
    const kinds: DmarcAlertKind[] = [
      'dmarc_record_changed',
      'dmarc_new_failing_source',
      'dmarc_pass_rate_drop',
    ];
    for (const kind of kinds) {
      const ofKind = alerts.filter((a) => a.kind === kind);
      if (ofKind.length === 0) continue;
      const mail = dmarcAlertEmail(brand, {
        alerts: ofKind.map(factsOf),
        consoleUrl: `${deps.publicUrl}/#${ROUTES.dmarc}/spf-dmarc-changes`,
      });
      for (const address of to)
        await deps.mailer.send({
          tenantId,
          kind: `alert_${kind}`,
          to: address,
          ...mail,
          idempotencyKey: `dmarc-alert:${ofKind[0]!.id}:${address}`,
        });
      await repo.markEmailed(ofKind.map((a) => a.id));
    }
  }

  return {
    /**
     * The sweep's task: the domains not polled for `pollMinutes` (the oldest first, at most
     * DOMAINS_PER_PASS, within PASS_BUDGET_MS), then the alerts of each tenant polled.
     */
    async pollDue(): Promise<{ polled: number; alerts: number }> {
      const now = clock.now();
      const due = await repo.dueDomains(
        new Date(now.getTime() - deps.pollMinutes * 60_000),
        DOMAINS_PER_PASS,
      );
      const { changes, polled } = await pollAll(due, now.getTime() + PASS_BUDGET_MS);
      let alerts = 0;
      for (const tenantId of new Set(due.slice(0, polled).map((d) => d.tenantId))) {
        try {
          alerts += (
            await raiseAlerts(
              tenantId,
              changes.filter((c) => c.tenantId === tenantId),
            )
          ).length;
        } catch (error) {
          deps.log?.warn({ err: error, tenantId }, 'DMARC alerts failed');
        }
      }
      return { polled, alerts };
    },

    /** "Check now": every domain of the tenant's polled at once; 429 right after a poll. */
    async checkNow(tenantId: string, actor: Actor): Promise<DnsCheckResult> {
      const now = clock.now();
      const last = await repo.lastPolledOf(tenantId);
      if (last && now.getTime() - last.getTime() < CHECK_COOLDOWN_MS) {
        const wait = Math.ceil((CHECK_COOLDOWN_MS - (now.getTime() - last.getTime())) / 1000);
        throw new AppError('rate_limited', `The records were checked moments ago: check again in ${wait} s`);
      }
      const domains = (await deps.domainsOf(tenantId)).slice(0, CHECK_DOMAINS_MAX);
      const { changes, failed } = await pollAll(
        domains.map((domain) => ({ tenantId, domain })),
        Number.POSITIVE_INFINITY,
      );
      await raiseAlerts(tenantId, changes);
      await deps.audit.record(actor, {
        tenantId,
        action: 'dmarc.dns_checked',
        targetType: 'tenant',
        targetId: tenantId,
        details: { domains: domains.length, changed: changes.filter((c) => !c.first).length },
      });
      return {
        polledAt: now.toISOString(),
        domains: domains.length,
        changed: changes.filter((c) => !c.first).length,
        failed,
      };
    },

    /** The records as last polled, and the change log of the last `days` days. */
    async view(
      tenantId: string,
      q: { domain?: string; kind?: DnsRecordKind; days: number; limit: number; offset: number },
    ): Promise<DnsChangesResponse> {
      const now = clock.now();
      const [domains, records, changes, polledAt] = await Promise.all([
        deps.domainsOf(tenantId),
        repo.records(tenantId),
        repo.changes({
          tenantId,
          domain: q.domain || undefined,
          kind: q.kind,
          since: new Date(now.getTime() - q.days * DAY_MS),
          limit: q.limit,
          offset: q.offset,
        }),
        repo.lastPolledOf(tenantId),
      ]);
      return {
        pollMinutes: deps.pollMinutes,
        polledAt: polledAt?.toISOString() ?? null,
        domains,
        records: records
          .filter((r) => (!q.domain || r.domain === q.domain) && (!q.kind || r.kind === q.kind))
          .map(recordOf),
        changes: { total: changes.total, items: changes.items.map(changeOf) },
      };
    },

    /** The DMARC alerts of the last 90 days, newest first, and whether they are emailed. */
    async alerts(tenantId: string): Promise<DmarcAlertsResponse> {
      const since = new Date(clock.now().getTime() - ALERTS_DAYS * DAY_MS);
      const [email, rows] = await Promise.all([
        repo.emailsAlerts(tenantId),
        repo.alerts(tenantId, since, ALERTS_LISTED),
      ]);
      return { email, items: rows.map(alertOf) };
    },

    async saveAlertSettings(tenantId: string, email: boolean, actor: Actor): Promise<{ email: boolean }> {
      await repo.saveEmailsAlerts(tenantId, email, clock.now());
      await deps.audit.record(actor, {
        tenantId,
        action: 'alerts.settings_changed',
        targetType: 'tenant',
        targetId: tenantId,
        details: { alert_dmarc: email },
      });
      return { email };
    },
  };
}
export type DnsChangesService = ReturnType<typeof createDnsChangesService>;
