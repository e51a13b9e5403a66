import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './server.ts';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  headers: ParsedMail['headers'];
  /** The bytes that crossed the wire. */
  raw: Buffer;
}

/**
 * A local SMTP server the product relays to (SMTP_RELAY_URL), so tests read each email as its
 * recipient would: parsed from the bytes that crossed the wire.
 */
export async function startSmtpSink() {
  const mails: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then((parsed) => {
            mails.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: parsed.from?.text ?? '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              headers: parsed.headers,
              raw,
            });
            for (const wake of waiters.splice(0)) wake();
            callback();
          })
          .catch(callback);
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The first mail to `to` (after `since` mails) matching `match`, waiting up to 20 s for it. */
    async waitFor(
      to: string,
      match: (mail: ReceivedMail) => boolean = () => true,
      since = 0,
    ): Promise<ReceivedMail> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const found = mails.slice(since).find((m) => m.to.includes(to.toLowerCase()) && match(m));
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(
            `no such mail to ${to} within 20 s (got ${mails.length} mails; to ${to}: ${
              mails
                .filter((m) => m.to.includes(to.toLowerCase()))
                .map((m) => JSON.stringify(m.subject))
                .join(', ') || 'none'
            })`,
          );
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
