import { createSmtpIn, type SmtpInOptions } from '../mail/gateway/smtp-in.ts';

/** The gateway's front door as tests start it: limits out of the way unless a test sets them. */
export const TEST_SMTP_OPTIONS: SmtpInOptions = {
  hostname: 'mx.moat.test',
  maxMessageBytes: 200_000,
  maxRecipients: 5,
  maxConnectionsPerIp: 50,
  maxMessagesPerMinute: 10_000,
};

/** An SMTP front door on a test database; processing is driven by the test (drain). */
export function testSmtpIn(
  deps: Omit<Parameters<typeof createSmtpIn>[0], 'options' | 'onStored'> &
    Partial<Pick<Parameters<typeof createSmtpIn>[0], 'onStored'>>,
  options: Partial<SmtpInOptions> = {},
) {
  return createSmtpIn({ onStored: () => {}, ...deps, options: { ...TEST_SMTP_OPTIONS, ...options } });
}
