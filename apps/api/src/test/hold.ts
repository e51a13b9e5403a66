import type { Verdict } from '@moat/contracts/quarantine';
import type { FastifyInstance } from 'fastify';
import { createQuarantineService } from '../modules/quarantine/quarantine.service.ts';

/** Hold a message for `recipient` through the one intake path, as the gateway or the CLI would. */
export function holdMessage(
  app: FastifyInstance,
  input: { raw: Buffer; recipient: string; verdict: Verdict; stripAttachments?: boolean },
) {
  return createQuarantineService({
    db: app.database.db,
    clock: app.clock,
    config: app.config,
    mailer: app.services.mailer,
  }).ingest(
    {
      raw: input.raw,
      recipient: input.recipient,
      saasType: 'office365_emails',
      verdict: input.verdict,
      reasons: [],
      stripAttachments: input.stripAttachments ?? false,
      engine: 'test',
    },
    { type: 'system' },
  );
}
