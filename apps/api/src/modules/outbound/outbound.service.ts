import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
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
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  sign: (message: Buffer, fromDomain: string) => Promise<Buffer>;
  clock: { now(): Date };
  hostname: string;
  log: Pick<FastifyBaseLogger, 'info'>;
}) {
  return {
    async accept(message: SubmittedMessage): Promise<string> {
      const id = randomUUID();
      const received = Buffer.from(
        `Received: from [${message.clientAddress}] by ${deps.hostname} (Moat) with ESMTPSA id ${id};\r\n\t${rfc5322(deps.clock.now())}\r\n`,
      );
      const signed = await deps.sign(Buffer.concat([received, message.raw]), message.fromDomain);
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
