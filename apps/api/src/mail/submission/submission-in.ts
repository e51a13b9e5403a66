import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { SMTPServer, type SMTPServerAddress, type SMTPServerAuthentication } from 'smtp-server';
import type { Clock } from '../../lib/clock.ts';
import { type Counters, memoryCounters } from '../../lib/counters.ts';
import { checkMessage } from '../gateway/message-checks.ts';

/** Failed AUTH attempts one client address may make in 10 minutes before it is told to wait (all nodes). */
export const AUTH_FAILURES_PER_10_MIN = 10;

const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const ROUTING_LOCAL_PART = /[%!]/;
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export interface SubmissionOptions {
  hostname: string;
  maxMessageBytes: number;
  maxRecipients: number;
  maxConnectionsPerIp?: number;
  tls?: { key: string; cert: string } | undefined;
}

/** A submitted message, accepted: who sent it, to whom, its bytes as they came. */
export interface SubmittedMessage {
  tenantId: string;
  credentialId: string;
  envelopeFrom: string;
  recipients: string[];
  /** The From header's domain (one of the tenant's, or a subdomain of one). */
  fromDomain: string;
  raw: Buffer;
  clientAddress: string;
}

class SmtpError extends Error {
  constructor(
    message: string,
    readonly responseCode: number,
  ) {
    super(message);
  }
}

interface SessionUser {
  tenantId: string;
  credentialId: string;
  domains: string[];
}

/** `domain` is one of `own`, or a subdomain of one. */
export const ownsDomain = (own: string[], domain: string) => {
  const d = domain.toLowerCase();
  return own.some((o) => d === o || d.endsWith(`.${o}`));
};

/** The unfolded header fields named `name` (lower case) of a message's own header. */
function headerFields(raw: Buffer, name: string): string[] {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end === -1 ? Math.min(raw.length, 256 * 1024) : end).toString('latin1');
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const prefix = new RegExp(`^${name}\\s*:`, 'i');
  return unfolded
    .split(/\r?\n/)
    .filter((line) => prefix.test(line))
    .map((line) => line.slice(line.indexOf(':') + 1).trim());
}

/** The first header field `name`'s value (unfolded, as sent), or null. */
export const headerField = (raw: Buffer, name: string): string | null => headerFields(raw, name)[0] ?? null;

/** The From header's single address's domain, or null (none, several, or no domain). */
export function fromHeaderDomain(raw: Buffer): string | null {
  const values = headerFields(raw, 'from');
  if (values.length !== 1) return null;
  const addresses = addressparser(values[0]!, { flatten: true });
  if (addresses.length !== 1) return null;
  const address = addresses[0]!.address ?? '';
  const at = address.lastIndexOf('@');
  return at > 0 ? address.slice(at + 1).toLowerCase() : null;
}

/**
 * The submission port (issue 38, RFC 6409): the tenants' own servers and clients hand their
 * outbound mail to Moat here. SMTP AUTH (PLAIN, LOGIN) with a credential of the tenant's is
 * required for every message, over STARTTLS (or from this host when no certificate is set); the
 * envelope sender and the From header must be the tenant's own domains, whatever the credential
 * (no open relay, no spoofing another tenant); a message is answered 250 only once `accept` has
 * stored it durably.
 */
export function createSubmissionIn(deps: {
  authenticate: (username: string, password: string) => Promise<{ tenantId: string; id: string } | null>;
  domainsOf: (tenantId: string) => Promise<string[]>;
  accept: (message: SubmittedMessage) => Promise<string>;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  options: SubmissionOptions;
  counters?: Counters;
}) {
  const { options } = deps;
  const counters = deps.counters ?? memoryCounters(deps.clock);
  const users = new Map<string, SessionUser>();

  const server = new SMTPServer({
    name: options.hostname,
    banner: 'Moat submission',
    size: options.maxMessageBytes,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    // AUTH in the clear is refused in onAuth, except from this host (smtp-server would hide AUTH).
    allowInsecureAuth: true,
    hideSTARTTLS: !options.tls,
    ...(options.tls
      ? { key: fs.readFileSync(options.tls.key), cert: fs.readFileSync(options.tls.cert) }
      : {}),
    logger: false,
    maxClients: 500,
    socketTimeout: 60_000,
    closeTimeout: 5_000,

    onAuth(auth: SMTPServerAuthentication, session, callback) {
      const ip = session.remoteAddress;
      if (!session.secure && !LOOPBACK.test(ip)) {
        // RFC 4954 §6: 538 5.7.11 Encryption required for requested authentication mechanism.
        return callback(new SmtpError('5.7.11 Use STARTTLS before AUTH', 538));
      }
      const key = `smtp-auth-fail:${ip}`;
      counters
        .hits(key)
        .then(async (failures) => {
          if (failures >= AUTH_FAILURES_PER_10_MIN) {
            return callback(
              new SmtpError('4.7.0 Too many failed logins from your address, try again later', 421),
            );
          }
          const found = await deps.authenticate(auth.username ?? '', auth.password ?? '');
          if (!found) {
            await counters.hit(key, 600_000, AUTH_FAILURES_PER_10_MIN);
            deps.log.info({ ip, username: (auth.username ?? '').slice(0, 64) }, 'submission: login refused');
            return callback(new SmtpError('5.7.8 Authentication credentials invalid', 535));
          }
          const domains = (await deps.domainsOf(found.tenantId)).map((d) => d.toLowerCase());
          users.set(session.id, { tenantId: found.tenantId, credentialId: found.id, domains });
          callback(null, { user: found.id });
        })
        .catch((error) => {
          deps.log.error({ err: error }, 'submission: login check failed');
          callback(new SmtpError('4.3.0 Temporary failure, try again later', 454));
        });
    },

    onClose(session) {
      users.delete(session.id);
    },

    onMailFrom(address: SMTPServerAddress, session, callback) {
      const user = users.get(session.id);
      if (!user) return callback(new SmtpError('5.7.0 Authentication required', 530));
      const sender = address.address;
      if (!ADDRESS.test(sender)) {
        return callback(new SmtpError(`5.1.7 Bad sender address <${sender.slice(0, 100)}>`, 553));
      }
      if (!ownsDomain(user.domains, sender.slice(sender.lastIndexOf('@') + 1))) {
        return callback(
          new SmtpError(
            `5.7.1 <${sender.slice(0, 100)}>: Sender address is not in your organisation's domains`,
            553,
          ),
        );
      }
      const args = address.args as Record<string, string> | false;
      if (Number(args ? (args.SIZE ?? 0) : 0) > options.maxMessageBytes) {
        return callback(new SmtpError('5.3.4 Message too big', 552));
      }
      callback();
    },

    onRcptTo(address: SMTPServerAddress, session, callback) {
      const rcpt = address.address;
      if (!ADDRESS.test(rcpt) || ROUTING_LOCAL_PART.test(rcpt.slice(0, rcpt.lastIndexOf('@')))) {
        return callback(new SmtpError(`5.1.3 Bad recipient address <${rcpt.slice(0, 100)}>`, 553));
      }
      if (session.envelope.rcptTo.length >= options.maxRecipients) {
        return callback(new SmtpError('4.5.3 Too many recipients', 452));
      }
      callback();
    },

    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= options.maxMessageBytes) chunks.push(chunk);
      });
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        if (
          (stream as unknown as { sizeExceeded?: boolean }).sizeExceeded ||
          size > options.maxMessageBytes
        ) {
          return callback(new SmtpError('5.3.4 Message too big', 552));
        }
        const user = users.get(session.id);
        const from = session.envelope.mailFrom;
        if (!user || !from) return callback(new SmtpError('5.7.0 Authentication required', 530));
        const raw = Buffer.concat(chunks);
        checkMessage(raw)
          .then(async (refusal) => {
            if (refusal) return callback(new SmtpError(refusal.message, refusal.code));
            const fromDomain = fromHeaderDomain(raw);
            if (!fromDomain) {
              return callback(
                new SmtpError('5.6.0 Message refused: it needs one From header with one address', 550),
              );
            }
            if (!ownsDomain(user.domains, fromDomain)) {
              return callback(
                new SmtpError(
                  `5.7.1 Message refused: the From header's domain ${fromDomain} is not your organisation's`,
                  550,
                ),
              );
            }
            const id = await deps.accept({
              tenantId: user.tenantId,
              credentialId: user.credentialId,
              envelopeFrom: from.address,
              recipients: session.envelope.rcptTo.map((r) => r.address),
              fromDomain,
              raw,
              clientAddress: session.remoteAddress,
            });
            callback(null, `2.0.0 Ok: queued as ${id}`);
          })
          .catch((error) => {
            deps.log.error({ err: error }, 'submission: storing a message failed');
            callback(new SmtpError('4.3.0 Temporary failure, try again later', 451));
          });
      });
    },
  });
  server.on('error', (error) => deps.log.warn({ err: error }, 'submission: SMTP error'));

  return {
    listen(port: number, host: string): Promise<number> {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    close(): Promise<void> {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
export type SubmissionIn = ReturnType<typeof createSubmissionIn>;
