import type { Verdict } from '@moat/contracts/quarantine';
import { quarantineSettingsFrom } from '@moat/contracts/user-interaction-settings';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { createPeriodic } from '../../lib/periodic.ts';
import { type DigestItem, quarantineDigestEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import { restoreLinks } from '../quarantine/links.ts';
import type { RestorePolicy } from '../quarantine/policy.ts';
import type { DigestMessage, DigestRepo, DigestTenant } from './digest.repo.ts';

const DAY_MS = 86_400_000;
/** At most this many messages are listed in one digest; the rest are counted. */
const MAX_LISTED = 50;

/**
 * The last complete period of a schedule before `now` (UTC): yesterday for daily, last week
 * (Monday to Monday) for weekly, with a key naming it.
 */
export function lastPeriod(schedule: 'daily' | 'weekly', now: Date): { from: Date; to: Date; key: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (schedule === 'daily') {
    const from = new Date(today - DAY_MS);
    return { from, to: new Date(today), key: from.toISOString().slice(0, 10) };
  }
  const sinceMonday = (new Date(today).getUTCDay() + 6) % 7;
  const to = new Date(today - sinceMonday * DAY_MS);
  const from = new Date(to.getTime() - 7 * DAY_MS);
  return { from, to, key: `week-of-${from.toISOString().slice(0, 10)}` };
}

/**
 * The quarantine digest: for each tenant with a schedule, one email per recipient listing the
 * messages still held for them of the verdicts the tenant lists, received in the days it covers
 * (by default the last complete period), with their restore links, in the tenant's own wording
 * (Settings → User Interaction → Quarantine). Each digest is queued with an idempotency key
 * (tenant, recipient, period), so running the job again — after a restart, or every hour —
 * never sends one twice.
 */
export function createDigestService(deps: {
  repo: Pick<DigestRepo, 'scheduledTenants' | 'heldForDigest'>;
  /** The tenant's restore policy for a verdict (stored or default). */
  restorePolicyOf: (tenantId: string, verdict: Verdict) => Promise<RestorePolicy>;
  clock: Clock;
  config: Pick<Config, 'publicUrl'>;
  mailer: Mailer;
  log?: Pick<FastifyBaseLogger, 'error'>;
  /** Runs a singleton job only where no other node runs it now (Database.tryLock); default: here. */
  singleton?: (key: string, task: () => Promise<unknown>) => Promise<boolean>;
}) {
  const { repo } = deps;

  async function runTenant(tenant: DigestTenant, now: Date): Promise<number> {
    if (tenant.digestSchedule === 'off') return 0;
    const period = lastPeriod(tenant.digestSchedule, now);
    const settings = quarantineSettingsFrom(tenant.quarantineSettings);
    // The days it covers end with the period: a daily digest of 3 days lists what is still held of the last 3.
    const from = settings.digest_days
      ? new Date(period.to.getTime() - settings.digest_days * DAY_MS)
      : period.from;
    const held = await repo.heldForDigest(tenant.id, from, period.to, settings.digest_verdicts);
    const byRecipient = new Map<string, DigestMessage[]>();
    for (const message of held) {
      const list = byRecipient.get(message.recipient) ?? [];
      list.push(message);
      byRecipient.set(message.recipient, list);
    }
    const brand = mailBrand(tenant);
    const modes = new Map<string, RestorePolicy>();
    let sent = 0;
    for (const [recipient, messages] of byRecipient) {
      const items: DigestItem[] = [];
      for (const message of messages.slice(0, MAX_LISTED)) {
        const verdict = message.verdict;
        let policy = modes.get(verdict);
        if (!policy) {
          policy = await deps.restorePolicyOf(tenant.id, verdict);
          modes.set(verdict, policy);
        }
        const attachmentsOnly = message.state === 'attachments_removed';
        const url = policy.mode === 'none' ? null : restoreLinks(deps.config.publicUrl, message, policy.mode);
        items.push({
          receivedAt: message.receivedAt,
          subject: message.subject,
          sender: message.sender,
          verdict,
          restore: url && { url: attachmentsOnly ? url.restoreOriginal : url.restoreEmail, attachmentsOnly },
        });
      }
      await deps.mailer.send({
        tenantId: tenant.id,
        kind: 'quarantine_digest',
        to: recipient,
        idempotencyKey: `digest:${tenant.id}:${recipient}:${period.key}`,
        ...quarantineDigestEmail(brand, {
          periodLabel:
            tenant.digestSchedule === 'daily'
              ? period.key
              : `week of ${period.from.toISOString().slice(0, 10)}`,
          from,
          to: period.to,
          total: messages.length,
          items,
          wording: { subject: settings.digest_subject, intro: settings.digest_intro },
        }),
      });
      sent += 1;
    }
    return sent;
  }

  async function run(now = deps.clock.now()): Promise<number> {
    const scheduled = await repo.scheduledTenants();
    let sent = 0;
    for (const tenant of scheduled) sent += await runTenant(tenant, now);
    return sent;
  }

  // One node sends digests (each is also sent at most once per recipient and period).
  const periodic = createPeriodic(
    () => (deps.singleton ? deps.singleton('job:digest', run) : run()),
    (error) => deps.log?.error({ err: error }, 'quarantine digest run failed'),
  );

  return {
    /** Queue the digests due now; returns how many recipients have one (a repeat queues nothing new). */
    run,
    start(intervalMs = 3_600_000) {
      periodic.start(intervalMs, { now: true });
    },
    stop: () => periodic.stop(),
  };
}
export type DigestService = ReturnType<typeof createDigestService>;
