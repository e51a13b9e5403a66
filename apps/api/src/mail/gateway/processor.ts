import { hostname } from 'node:os';
import type { MAIL_ACTIONS } from '@moat/contracts/mail-explorer';
import type { Verdict } from '@moat/contracts/quarantine';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { authenticate } from 'mailauth';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { inboundMessages, mailLog, users } from '../../db/schema.ts';
import type { AuthSummary, Engine, Finding } from '../../engines/types.ts';
import { verdictOf } from '../../engines/types.ts';
import { systemActor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { createQuarantineService } from '../../modules/quarantine/quarantine.service.ts';
import { createTenantsRepo, type TenantRow } from '../../modules/tenants/tenants.repo.ts';
import type { Mailer } from '../outbound.ts';
import { type ParsedMessage, parseMessage } from '../parse.ts';
import { linksOf } from './links.ts';
import { type GatewayAction, gatewayActionOf, senderListOf } from './policy.ts';

/** The SaaS type of mail that came in through the gateway. */
export const GATEWAY_SAAS_TYPE = 'smtp_emails';
const MAX_ATTEMPTS = 5;

/** What Mail Explorer records for each policy action. */
const LOGGED_ACTION: Record<GatewayAction, (typeof MAIL_ACTIONS)[number]> = {
  deliver: 'delivered',
  deliver_banner: 'delivered_banner',
  strip: 'attachments_removed',
  quarantine: 'quarantined',
  quarantine_silent: 'quarantined_silent',
};

export type DnsResolver = (name: string, rrtype: string) => Promise<string[] | string[][]>;

type InboundRow = typeof inboundMessages.$inferSelect;

interface Decision {
  tenant: TenantRow;
  verdict: Verdict | 'clean';
  action: GatewayAction;
  findings: Finding[];
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

/** The message with a warning above its content; attachments kept. */
async function bannerCopy(parsed: ParsedMessage, recipient: string, warning: string, authHeaders: string) {
  const composer = new MailComposer({
    from: parsed.fromName ? { name: parsed.fromName, address: parsed.fromAddress } : parsed.fromAddress,
    to: recipient,
    subject: parsed.subject,
    date: parsed.date ?? undefined,
    messageId: parsed.messageId ?? undefined,
    text: `${warning}\n\n${parsed.text}`,
    ...(parsed.html
      ? {
          html: `<p style="padding:8px;border:1px solid #e8590c;background:#fff4e6;color:#000">${warning.replace(/[<>&"]/g, '')}</p>${parsed.html}`,
        }
      : {}),
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
    headers: { 'X-Moat-Warning': warning.slice(0, 200) },
  });
  return Buffer.concat([Buffer.from(authHeaders), await composer.compile().build()]);
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
}) {
  const mta = deps.mta ?? hostname();
  const tenants = createTenantsRepo(deps.db);
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
      const [claimed] = await tx
        .select({ status: inboundMessages.status })
        .from(inboundMessages)
        .where(eq(inboundMessages.id, row.id))
        .for('update');
      if (claimed?.status !== 'received') return;
      for (const { recipient, decision } of byRecipient) {
        if (!decision) continue; // A domain that left its tenant since: nothing to deliver it to.
        const reasons = decision.findings.map((f) => f.reason);
        const key = `${row.id}:${recipient}`;
        let quarantineMessageId: string | null = null;
        const action = decision.action;
        if (action === 'deliver' || action === 'deliver_banner') {
          const body =
            action === 'deliver'
              ? Buffer.concat([Buffer.from(auth.authenticationResults), raw])
              : await bannerCopy(
                  parsed,
                  recipient,
                  `Caution: this message looks like ${decision.verdict}. ${reasons.slice(0, 3).join('; ')}`,
                  auth.authenticationResults,
                );
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
              raw,
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
      await tx
        .update(inboundMessages)
        .set({
          status: 'processed',
          processedAt: deps.clock.now(),
          lastError: null,
          // Delivered or held copies live on; the inbound copy is no longer needed.
          raw: new Uint8Array(0),
        })
        .where(eq(inboundMessages.id, row.id));
    });
    for (const id of outboxIds) deps.mailer.deliverStored(id);
  }

  /** Process every stored message still waiting, oldest first. */
  async function drain(): Promise<number> {
    let done = 0;
    for (;;) {
      // Ids first, then one message (up to the size limit) in memory at a time.
      const due = await deps.db
        .select({ id: inboundMessages.id })
        .from(inboundMessages)
        .where(
          and(eq(inboundMessages.status, 'received'), sql`${inboundMessages.attempts} < ${MAX_ATTEMPTS}`),
        )
        .orderBy(asc(inboundMessages.receivedAt))
        .limit(20);
      if (due.length === 0) return done;
      for (const { id } of due) {
        const [row] = await deps.db.select().from(inboundMessages).where(eq(inboundMessages.id, id));
        if (row?.status !== 'received') continue;
        try {
          await processRow(row);
          done += 1;
        } catch (error) {
          const lastError = (error as Error).message.slice(0, 500);
          deps.log.error(
            { inboundId: row.id, err: lastError },
            'processing an inbound message failed; will retry',
          );
          await deps.db
            .update(inboundMessages)
            .set({
              attempts: sql`${inboundMessages.attempts} + 1`,
              lastError,
              status: sql`case when ${inboundMessages.attempts} + 1 >= ${MAX_ATTEMPTS} then 'failed' else 'received' end`,
            })
            .where(eq(inboundMessages.id, row.id));
        }
      }
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
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
export type GatewayProcessor = ReturnType<typeof createGatewayProcessor>;
