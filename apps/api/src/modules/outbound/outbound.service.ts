import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { engineInputOf } from '../../engines/engine-input.ts';
import type { Engine } from '../../engines/types.ts';
import { type Mailer, OUTBOUND_KIND } from '../../mail/outbound.ts';
import { headerField, type SubmittedMessage } from '../../mail/submission/submission-in.ts';

/** RFC 5322 date-time, as a Received field carries it. */
const rfc5322 = (date: Date) => date.toUTCString().replace(/GMT$/, '+0000');

/**
 * The tenants' outbound mail, once submitted (issue 38): a Received field for the submission hop,
 * the DKIM signature of the From domain when it signs, then one delivery per recipient in the
 * outbox, all in one transaction, before the submitter hears 250. The outbox retries with back-off
 * for days, bounces to the sender, and delivers through the smarthost or the recipients' MX.
 */
export function createOutboundService(deps: {
  db: Db;
  /**
   * The malware engines (the embedded one, clamd when configured), as for inbound mail: what they
   * find is refused at the door (the submitting server bounces it to its user), never sent on.
   */
  malwareEngines?: () => Engine[];
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  sign: (message: Buffer, fromDomain: string, tenantId: string) => Promise<Buffer>;
  clock: { now(): Date };
  hostname: string;
  log: Pick<FastifyBaseLogger, 'info'>;
}) {
  /** What the malware engines find in a submitted message: the reasons, none when clean. */
  async function malwareIn(message: SubmittedMessage): Promise<string[]> {
    const engines = (deps.malwareEngines?.() ?? []).filter((e) => e.status === 'on');
    if (engines.length === 0) return [];
    const input = await engineInputOf(message.raw, {
      envelope: {
        mailFrom: message.envelopeFrom,
        clientIp: message.clientAddress,
        helo: '',
        rcptTo: message.recipients,
      },
      tenant: { id: message.tenantId, domains: [], people: [] },
    });
    const findings = await Promise.all(
      engines.map((engine) =>
        engine.scan(input).catch((error: Error) =>
          // A malware engine that cannot scan fails closed, as inbound: nothing unscanned leaves.
          engine.failClosed
            ? [
                {
                  engine: engine.name,
                  verdict: 'malware' as const,
                  reason: `could not be scanned (${error.message})`,
                },
              ]
            : [],
        ),
      ),
    );
    return findings
      .flat()
      .filter((f) => f.verdict === 'malware')
      .map((f) => f.reason);
  }

  return {
    /** Refusal words for a message that must not leave, or null: scanned before it is stored. */
    async refusalOf(message: SubmittedMessage): Promise<string | null> {
      const found = await malwareIn(message);
      if (found.length === 0) return null;
      deps.log.info(
        { tenantId: message.tenantId, sender: message.envelopeFrom, reasons: found },
        'outbound mail refused: malware',
      );
      return `5.7.1 Message refused: it carries malware (${found[0]!.slice(0, 200)})`;
    },

    async accept(message: SubmittedMessage): Promise<string> {
      const id = randomUUID();
      const received = Buffer.from(
        `Received: from [${message.clientAddress}] by ${deps.hostname} (Moat) with ESMTPSA id ${id};\r\n\t${rfc5322(deps.clock.now())}\r\n`,
      );
      const signed = await deps.sign(
        Buffer.concat([received, message.raw]),
        message.fromDomain,
        message.tenantId,
      );
      const subject = (headerField(message.raw, 'subject') ?? '').slice(0, 300);
      const recipients = [...new Set(message.recipients.map((r) => r.toLowerCase()))];
      const ids = await deps.db.transaction(async (tx) => {
        const stored: string[] = [];
        for (const to of recipients) {
          stored.push(
            await deps.mailer.send(
              {
                tenantId: message.tenantId,
                kind: OUTBOUND_KIND,
                to,
                fromName: '',
                subject,
                text: '',
                html: '',
                raw: signed,
                envelopeFrom: message.envelopeFrom,
                idempotencyKey: `outbound:${id}:${to}`,
              },
              tx,
            ),
          );
        }
        return stored;
      });
      for (const outboxId of ids) deps.mailer.deliverStored(outboxId, message.tenantId, OUTBOUND_KIND);
      deps.log.info(
        { submissionId: id, tenantId: message.tenantId, recipients: recipients.length, bytes: signed.length },
        'outbound mail accepted',
      );
      return id;
    },
  };
}
export type OutboundService = ReturnType<typeof createOutboundService>;
