import { hostname } from 'node:os';
import type { MAIL_ACTIONS } from '@moat/contracts/mail-explorer';
import type { Verdict } from '@moat/contracts/quarantine';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { authenticate } from 'mailauth';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { mailLog, securityEvents, users } from '../../db/schema.ts';
import type { AuthSummary, Engine, Finding } from '../../engines/types.ts';
import { verdictOf } from '../../engines/types.ts';
import { systemActor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { createLeaseKeeper } from '../../lib/lease-keeper.ts';
import { LOCAL_NODE } from '../../lib/node-name.ts';
import { createQuarantineService } from '../../modules/quarantine/quarantine.service.ts';
import { createTenantsRepo, type TenantRow } from '../../modules/tenants/tenants.repo.ts';
import type { Mailer } from '../outbound.ts';
import { parseMessage } from '../parse.ts';
import { bannerCopy, stripForgedAuthResults, warningText } from './banner.ts';
import { createInboundRepo, type InboundRow, type ParkedCopy } from './inbound.repo.ts';
import { linksOf } from './links.ts';
import { type GatewayAction, gatewayActionOf, senderListOf } from './policy.ts';

/** The SaaS type of mail that came in through the gateway. */
export const GATEWAY_SAAS_TYPE = 'smtp_emails';
/** Passes at a message before it is parked `failed` (held, visible, retryable by an admin). */
export const MAX_PROCESSING_ATTEMPTS = 5;
/** Wait after failed pass n: 15 s, 1 min, 4 min, 16 min. */
export const processingRetryDelayMs = (attempts: number) => 15_000 * 4 ** Math.max(0, attempts - 1);
/** A processing pass that takes longer than this is presumed dead and any node may take the message over. */
export const DEFAULT_LEASE_MS = 5 * 60_000;

/** What Mail Explorer records for each policy action. */
const LOGGED_ACTION: Record<GatewayAction, (typeof MAIL_ACTIONS)[number]> = {
  deliver: 'delivered',
  deliver_banner: 'delivered_banner',
  strip: 'attachments_removed',
  quarantine: 'quarantined',
  quarantine_silent: 'quarantined_silent',
};

export type DnsResolver = (name: string, rrtype: string) => Promise<string[] | string[][]>;

interface Decision {
  tenant: TenantRow;
  verdict: Verdict | 'clean';
  action: GatewayAction;
  findings: Finding[];
}

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

/** mailauth's results as short words, and the Authentication-Results lines to add. */
async function authenticateMessage(
  raw: Buffer,
  row: InboundRow,
  options: { resolver?: DnsResolver | undefined; mta: string },
): Promise<AuthSummary> {
  try {
    const result = (await authenticate(raw, {
      ip: row.clientIp,
      helo: row.helo,
      sender: row.mailFrom,
      mta: options.mta,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    })) as {
      spf?: { status?: { result?: string } } | false;
      dkim?: { results?: Array<{ status?: { result?: string } }> };
      dmarc?: { status?: { result?: string } } | false;
      headers?: string;
    };
    const dkim = result.dkim?.results?.map((r) => r.status?.result ?? 'none') ?? [];
    return {
      spf: (result.spf || undefined)?.status?.result || 'none',
      dkim: dkim.includes('pass') ? 'pass' : (dkim[0] ?? 'none'),
      dmarc: (result.dmarc || undefined)?.status?.result || 'none',
      authenticationResults: result.headers ?? '',
    };
  } catch {
    return {
      spf: 'temperror',
      dkim: 'temperror',
      dmarc: 'temperror',
      authenticationResults: `Authentication-Results: ${options.mta}; spf=temperror; dkim=temperror; dmarc=temperror\r\n`,
    };
  }
}

/**
 * The gateway's second half: takes each stored inbound message, authenticates it (SPF, DKIM,
 * DMARC), runs the engines, applies the recipient tenant's allow/block lists and policy, and for
 * every recipient delivers it, delivers it with a warning, strips its attachments or quarantines it
 * — all of one message in one transaction with its Mail Explorer rows and its `processed` mark, so
 * a crash at any point redoes the whole message and nothing is done twice (deliveries also carry an
 * idempotency key per message and recipient).
 */
export function createGatewayProcessor(deps: {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'publicUrl'>;
  mailer: Mailer;
  engines: Engine[];
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  resolver?: DnsResolver | undefined;
  mta?: string;
  /** This node's name in leases (several nodes may share one database). */
  nodeId?: string;
  /** How long a claimed message is this node's before another may take it over. */
  leaseMs?: number;
  /** Messages processed at once. */
  concurrency?: number;
}) {
  const mta = deps.mta ?? hostname();
  const nodeId = deps.nodeId ?? LOCAL_NODE;
  const concurrency = deps.concurrency ?? 2;
  const tenants = createTenantsRepo(deps.db);
  const inbound = createInboundRepo(deps.db);
  /** Messages this node is processing now: their leases are renewed while the work lasts. */
  const leases = createLeaseKeeper({
    clock: deps.clock,
    leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
    renew: (ids, until) => inbound.renewLeases(ids, nodeId, until),
    onError: (error) => deps.log.warn({ err: error }, 'renewing inbound leases failed'),
  });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  async function peopleOf(tenantId: string) {
    const rows = await deps.db
      .select({ first: users.firstName, last: users.lastName, email: users.email })
      .from(users)
      .where(eq(users.tenantId, tenantId));
    return rows.map((r) => ({ name: `${r.first} ${r.last}`.trim(), email: r.email }));
  }

  async function decide(tenant: TenantRow, input: Parameters<Engine['scan']>[0]): Promise<Decision> {
    const findings: Finding[] = [];
    for (const engine of deps.engines) {
      if (engine.status !== 'on') continue;
      try {
        findings.push(...(await engine.scan(input)));
      } catch (error) {
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
    const fromList = await senderListOf(
      deps.db,
      tenant.id,
      input.parsed.fromAddress || input.envelope.mailFrom,
    );
    const envelopeList = input.envelope.mailFrom
      ? await senderListOf(deps.db, tenant.id, input.envelope.mailFrom)
      : null;
    // An allow entry counts only for a sender that proved its domain (DMARC, or SPF/DKIM pass):
    // anyone can write an allowed address into From.
    const authenticated =
      input.auth.dmarc === 'pass' ||
      (input.auth.dmarc !== 'fail' && (input.auth.dkim === 'pass' || input.auth.spf === 'pass'));
    const listed =
      fromList === 'block' || envelopeList === 'block'
        ? 'block'
        : fromList === 'allow' && authenticated
          ? 'allow'
          : null;
    if (listed === 'block') {
      const verdict = verdictOf(findings);
      return {
        tenant,
        verdict: verdict === 'clean' ? 'spam' : verdict,
        action: 'quarantine_silent',
        findings: [...findings, { engine: 'policy', verdict: 'spam', reason: 'Sender is on the block list' }],
      };
    }
    // An allowed sender skips the judgement calls; known malware is held all the same.
    const counted = listed === 'allow' ? findings.filter((f) => f.verdict === 'malware') : findings;
    const verdict = verdictOf(counted);
    if (verdict === 'clean') return { tenant, verdict, action: 'deliver', findings: counted };
    let action = await gatewayActionOf(deps.db, tenant.id, verdict);
    if (action === 'strip' && input.parsed.attachments.length === 0) action = 'deliver_banner';
    return { tenant, verdict, action, findings: counted };
  }

  async function processRow(row: InboundRow): Promise<void> {
    const raw = Buffer.from(row.raw);
    const parsed = await parseMessage(raw);
    const links = linksOf(parsed.html, parsed.text);
    const auth = await authenticateMessage(raw, row, { resolver: deps.resolver, mta });
    // What the sender wrote in our name (RFC 8601 §5) is removed from every copy that leaves or is held.
    const delivered = stripForgedAuthResults(raw, mta);
    const envelope = { mailFrom: row.mailFrom, clientIp: row.clientIp, helo: row.helo, rcptTo: row.rcptTo };

    // One decision per tenant among the recipients.
    const decisions = new Map<string, Decision>();
    const byRecipient: Array<{ recipient: string; decision: Decision | null }> = [];
    for (const recipient of row.rcptTo) {
      const tenant = await tenants.findByDomain(recipient.split('@')[1] ?? '');
      if (!tenant) {
        byRecipient.push({ recipient, decision: null });
        continue;
      }
      let decision = decisions.get(tenant.id);
      if (!decision) {
        const domains = await tenants.domainsOf(tenant.id);
        decision = await decide(tenant, {
          parsed,
          links,
          auth,
          raw,
          envelope,
          tenant: { domains, people: await peopleOf(tenant.id) },
        });
        decisions.set(tenant.id, decision);
      }
      byRecipient.push({ recipient, decision });
    }

    const outboxIds: string[] = [];
    await deps.db.transaction(async (tx) => {
      // Another node took the message over after this node's lease ran out: it finishes it.
      if (!(await inbound.stillOwned(tx, row.id, nodeId))) return;
      for (const { recipient, decision } of byRecipient) {
        if (!decision) continue; // A domain that left its tenant since: nothing to deliver it to.
        const reasons = decision.findings.map((f) => f.reason);
        const key = `${row.id}:${recipient}`;
        let quarantineMessageId: string | null = null;
        const action = decision.action;
        if (action === 'deliver' || action === 'deliver_banner') {
          const body =
            action === 'deliver'
              ? Buffer.concat([Buffer.from(auth.authenticationResults), delivered])
              : await bannerCopy(
                  parsed,
                  recipient,
                  warningText(decision.verdict as Verdict, reasons),
                  auth.authenticationResults,
                );
          if (action === 'deliver_banner') {
            // Delivered, but with a verdict: the security team sees it among the events.
            await tx.insert(securityEvents).values({
              tenantId: decision.tenant.id,
              engine: [...new Set(decision.findings.map((f) => f.engine))].join(',') || 'gateway',
              verdict: decision.verdict,
              description: cleanText(
                `Delivered to ${recipient} with a warning banner: ${reasons.join('; ') || decision.verdict}`,
                2_000,
              ),
              severity: decision.verdict === 'phishing' || decision.verdict === 'malware' ? 'high' : 'low',
            });
          }
          outboxIds.push(
            await deps.mailer.send(
              {
                tenantId: decision.tenant.id,
                kind: action === 'deliver' ? 'gateway_delivery' : 'gateway_delivery_warned',
                to: recipient,
                fromName: parsed.fromName,
                subject: parsed.subject,
                text: '',
                html: '',
                raw: body,
                envelopeFrom: row.mailFrom,
                idempotencyKey: key,
              },
              tx,
            ),
          );
        } else {
          const held = await createQuarantineService({
            db: tx as unknown as Db,
            clock: deps.clock,
            config: deps.config,
            mailer: deps.mailer,
          }).ingest(
            {
              raw: delivered,
              recipient,
              saasType: GATEWAY_SAAS_TYPE,
              verdict: decision.verdict as Verdict,
              reasons,
              stripAttachments: action === 'strip',
              engine: [...new Set(decision.findings.map((f) => f.engine))].join(',') || 'gateway',
              notify: action !== 'quarantine_silent',
              delivery: { envelopeFrom: row.mailFrom, idempotencyKey: key },
            },
            systemActor,
          );
          quarantineMessageId = held.message.id;
        }
        await tx
          .insert(mailLog)
          .values({
            tenantId: decision.tenant.id,
            inboundId: row.id,
            recipient,
            sender: parsed.fromAddress || row.mailFrom,
            senderName: parsed.fromName,
            subject: parsed.subject,
            messageIdHeader: parsed.messageId,
            receivedAt: row.receivedAt,
            verdict: decision.verdict,
            action: LOGGED_ACTION[action],
            reasons,
            spf: auth.spf,
            dkim: auth.dkim,
            dmarc: auth.dmarc,
            size: row.size,
            attachments: parsed.attachments.length,
            quarantineMessageId,
          })
          .onConflictDoNothing();
      }
      await inbound.markProcessed(tx, row.id, deps.clock.now());
    });
    for (const id of outboxIds) deps.mailer.deliverStored(id);
  }

  /** One claimed message: processed, or backed off after a failure, or parked after the last one. */
  async function handle(id: string): Promise<boolean> {
    leases.held.add(id);
    try {
      return await handleClaimed(id);
    } finally {
      leases.held.delete(id);
    }
  }

  async function handleClaimed(id: string): Promise<boolean> {
    const row = await inbound.load(id, nodeId);
    if (!row) return false;
    if (row.attempts > MAX_PROCESSING_ATTEMPTS) {
      // Claimed that often without finishing: a pass that kills its node, or one that never ends.
      await park(row, 'processing did not finish (the node stopped or timed out each time)');
      return false;
    }
    try {
      await processRow(row);
      return true;
    } catch (error) {
      const lastError = cleanText((error as Error).message, 500);
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
      const tenant = await tenants.findByDomain(recipient.split('@')[1] ?? '');
      if (!tenant) continue;
      copies.push({
        tenantId: tenant.id,
        retentionDays: tenant.retentionDays,
        recipient,
        sender: head.from || row.mailFrom,
        subject: head.subject,
        reason: cleanText(reason, 1_000),
      });
    }
    if (
      await inbound.park(row, nodeId, lastError, copies, deps.clock.now(), stripForgedAuthResults(raw, mta))
    ) {
      deps.log.error(
        { inboundId: row.id, err: lastError, recipients: row.rcptTo.length },
        'inbound message parked as failed: held for an admin, not delivered',
      );
    }
  }

  /** Process every message that is due, oldest first, `concurrency` at a time; returns how many were processed. */
  async function drain(): Promise<number> {
    let done = 0;
    for (;;) {
      const ids = await inbound.claim(nodeId, deps.clock.now(), leases.until(), concurrency);
      if (ids.length === 0) return done;
      const results = await Promise.all(ids.map((id) => handle(id)));
      done += results.filter(Boolean).length;
    }
  }

  function kick(): void {
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .then(() => undefined)
      .catch((error) => deps.log.error({ err: error }, 'inbound processing loop failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  return {
    drain,
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
      await leases.stop();
      await running;
    },
    /** An admin's retry of a parked message (its held copies untouched since): due again at once. */
    async retryParked(inboundId: string, tenantId: string) {
      const result = await deps.db.transaction((tx) => inbound.requeueParked(tx, inboundId, tenantId));
      if (result === 'requeued') kick();
      return result;
    },
    /** With the embedded database this process is the only node: a previous run's leases are void. */
    releaseAllLeases: () => inbound.releaseAllLeases(),
  };
}
export type GatewayProcessor = ReturnType<typeof createGatewayProcessor>;
