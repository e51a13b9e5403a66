import type { Verdict } from '@moat/contracts/quarantine';
import type { FastifyInstance } from 'fastify';

/** Hold a message for `recipient` through the one intake path, as the gateway or the CLI would. */
export function holdMessage(
  app: FastifyInstance,
  input: { raw: Buffer; recipient: string; verdict: Verdict; stripAttachments?: boolean },
) {
  return app.services.quarantine.ingest(
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
