import type { Db } from '../db/client.ts';
import { createInboundRepo } from '../mail/gateway/inbound.repo.ts';
import { createSmtpIn, type SmtpInOptions } from '../mail/gateway/smtp-in.ts';
import { createTenantsRepo } from '../modules/tenants/tenants.repo.ts';

/** The gateway's front door as tests start it: limits out of the way unless a test sets them. */
export const TEST_SMTP_OPTIONS: SmtpInOptions = {
  hostname: 'mx.moat.test',
  maxMessageBytes: 200_000,
  maxRecipients: 5,
  maxConnectionsPerIp: 50,
  maxMessagesPerMinute: 10_000,
};

type SmtpInDeps = Parameters<typeof createSmtpIn>[0];

/** An SMTP front door on a test database; processing is driven by the test (drain). */
export function testSmtpIn(
  deps: { db: Db } & Omit<SmtpInDeps, 'options' | 'store' | 'tenants'> & Partial<Pick<SmtpInDeps, 'store'>>,
  options: Partial<SmtpInOptions> = {},
) {
  const { db, ...rest } = deps;
  return createSmtpIn({
    store: async (message) => {
      const [row] = await createInboundRepo(db).storeMany([
        { ...message, claimedBy: null, leaseUntil: null },
      ]);
      return row!.id;
    },
    tenants: createTenantsRepo(db),
    ...rest,
    options: { ...TEST_SMTP_OPTIONS, ...options },
  });
}
