import type { Readable } from 'node:stream';
import type { SMTPServer } from 'smtp-server';

/** An address Moat takes: local part and a domain with a dot, no spaces or brackets. */
export const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/**
 * A local part that routes on: `victim%evil.example@` (the percent hack) and `evil.example!victim@`
 * (a UUCP bang path) name another host that a mail server behind Moat may relay to.
 */
export const ROUTING_LOCAL_PART = /[%!]/;

/** A recipient address Moat refuses at RCPT: not an address, or one that routes on. */
export const badRecipient = (rcpt: string) =>
  !ADDRESS.test(rcpt) || ROUTING_LOCAL_PART.test(rcpt.slice(0, rcpt.lastIndexOf('@')));

/** An SMTP reply to a command: its text and code (smtp-server sends `responseCode text`). */
export class SmtpError extends Error {
  constructor(
    message: string,
    readonly responseCode: number,
  ) {
    super(message);
  }
}

/**
 * A message's DATA, read whole: its bytes, or null when it is larger than `maxBytes` (what is past
 * the limit is read and dropped, never kept).
 */
export function readData(stream: Readable, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    stream.on('error', reject);
    stream.on('end', () => {
      const exceeded = (stream as unknown as { sizeExceeded?: boolean }).sizeExceeded;
      resolve(exceeded || size > maxBytes ? null : Buffer.concat(chunks));
    });
  });
}

/** Start listening; the port it got (`0` asks for a free one). */
export function listenOn(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
