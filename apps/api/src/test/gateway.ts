import type { Db } from '../db/client.ts';
import { createInboundRepo } from '../mail/gateway/inbound.repo.ts';
import { createSmtpIn, type SmtpInOptions } from '../mail/gateway/smtp-in.ts';
import { createTenantsRepo } from '../modules/tenants/tenants.repo.ts';
import type { buildTestApp } from './app.ts';

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

/**
 * As the server runs: delivery and processing in the background, the front door storing for
 * them, listening on a free loopback port.
 */
export async function startRunningGateway(t: Awaited<ReturnType<typeof buildTestApp>>) {
  await t.app.services.mailer.start({ intervalMs: 60_000 });
  t.app.services.gateway.processor.start(60_000);
  const door = t.app.services.gateway.frontDoor();
  const port = await door.listen(0, '127.0.0.1');
  return { door, port };
}

/** Waits until `done` holds (polled every 25 ms), or fails after `ms`. */
export async function until(done: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
