import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { SMTPServer, type SMTPServerAddress, type SMTPServerAuthentication } from 'smtp-server';
import type { Clock } from '../../lib/clock.ts';
import { type Counters, memoryCounters } from '../../lib/counters.ts';
import { checkMessage } from '../gateway/message-checks.ts';
import { ADDRESS, badRecipient, listenOn, readData, SmtpError } from '../smtp-common.ts';

/** Failed AUTH attempts one client address may make in 10 minutes before it is told to wait (all nodes). */
export const AUTH_FAILURES_PER_10_MIN = 10;
/** Password checks one client address may have under way at once (this node). */
const CHECKS_PER_IP = 2;
/** Password checks under way at once on this node (each an argon2id run in the thread pool). */
const CHECKS_AT_ONCE = 8;

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export interface SubmissionOptions {
  hostname: string;
  maxMessageBytes: number;
  maxRecipients: number;
  /** Open sessions per client address on this node (20). */
  maxConnectionsPerIp?: number;
  /** Messages one credential may submit per hour, across nodes (a stolen one cannot spew). */
  maxMessagesPerHour?: number;
  /** The message's size times its recipients: what it costs to store, at most this (100 MiB). */
  maxStoredBytes?: number;
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

interface SessionUser {
  tenantId: string;
  credentialId: string;
  domains: string[];
}

/**
 * Whether the tenant may send as `domain`: the most specific registered domain it falls under
 * (itself, or the nearest parent) is one of `own`. A subdomain another tenant registered is that
 * tenant's, even under one of `own`; a lookalike (`notacme.test`) is under none.
 */
export async function mayUseDomain(
  own: string[],
  tenantId: string,
  domain: string,
  ownerOf: (domain: string) => Promise<string | null>,
): Promise<boolean> {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  for (let at = 0; at < labels.length - 1; at += 1) {
    const name = labels.slice(at).join('.');
    if (own.includes(name)) return true;
    const owner = await ownerOf(name);
    if (owner !== null) return owner === tenantId;
  }
  return false;
}

/** The unfolded header fields named `name` (lower case) of a message's own header. */
function headerFields(raw: Buffer, name: string): string[] {
  // A message that starts with an empty line has no header at all (its body is no header).
  if (raw[0] === 13 || raw[0] === 10) return [];
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

/**
 * The domain of the single address in the header field `name` (From, Sender), or null when there
 * is none, several, or one that is not a plain address (`ceo@victim.example@acme.test`); absent:
 * undefined.
 */
export function headerAddressDomain(raw: Buffer, name: 'from' | 'sender'): string | null | undefined {
  const values = headerFields(raw, name);
  if (values.length === 0) return undefined;
  if (values.length !== 1) return null;
  const addresses = addressparser(values[0]!, { flatten: true });
  if (addresses.length !== 1) return null;
  const address = addresses[0]!.address ?? '';
  if (!ADDRESS.test(address)) return null;
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** The From header's single address's domain, or null (none, several, or not a plain address). */
export const fromHeaderDomain = (raw: Buffer): string | null => headerAddressDomain(raw, 'from') ?? null;

/** The message without its Bcc header fields (RFC 6409 §8.1: the submission server removes them). */
export function withoutBcc(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return raw;
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines) {
    if (/^[ \t]/.test(line)) {
      if (!dropping) kept.push(line);
      continue;
    }
    dropping = /^bcc\s*:/i.test(line);
    if (!dropping) kept.push(line);
  }
  if (kept.length === lines.length) return raw;
  return Buffer.concat([Buffer.from(kept.join('\r\n'), 'latin1'), raw.subarray(end)]);
}

/**
 * The submission port (issue 38, RFC 6409): the tenants' own servers and clients hand their
 * outbound mail to Moat here. SMTP AUTH (PLAIN, LOGIN) with a credential of the tenant's is
 * required for every message, over STARTTLS (or from this host when no certificate is set); the
 * envelope sender and the From header must be the tenant's own domains, whatever the credential
 * (no open relay, no spoofing another tenant); a message is answered 250 only once `submit` has
 * stored it durably.
 */
export function createSubmissionIn(deps: {
  authenticate: (username: string, password: string) => Promise<{ tenantId: string; id: string } | null>;
  domainsOf: (tenantId: string) => Promise<string[]>;
  /** The tenant a domain is registered to (exactly that name), or null: the most specific one decides. */
  ownerOf: (domain: string) => Promise<string | null>;
  /** Whether a credential is still good (not revoked): asked at each message, not only at login. */
  stillValid: (credentialId: string) => Promise<boolean>;
  /**
   * Take the message: queued, held for an admin (both answered 250, once stored), or refused
   * (malware, DLP: its words, answered 554 at the end of DATA).
   */
  submit: (message: SubmittedMessage) => Promise<{ queued: string } | { held: string } | { refused: string }>;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  options: SubmissionOptions;
  counters?: Counters;
}) {
  const { options } = deps;
  const counters = deps.counters ?? memoryCounters(deps.clock);
  const users = new Map<string, SessionUser>();
  /** Password checks under way, per client address and in all (this node). */
  const checking = new Map<string, number>();
  let checkingTotal = 0;
  /** Open sessions per client address on this node. */
  const open = new Map<string, number>();
  const counted = new Set<string>();
  const perIp = options.maxConnectionsPerIp ?? 20;
  const perHour = options.maxMessagesPerHour ?? 1_000;
  const maxStored = options.maxStoredBytes ?? 100 * 1024 * 1024;

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

    onConnect(session, callback) {
      const ip = session.remoteAddress;
      const now = open.get(ip) ?? 0;
      if (now >= perIp) {
        return callback(new SmtpError('4.7.0 Too many connections from your address, try again later', 421));
      }
      open.set(ip, now + 1);
      counted.add(session.id);
      callback();
    },

    onAuth(auth: SMTPServerAuthentication, session, callback) {
      const ip = session.remoteAddress;
      if (!session.secure && !LOOPBACK.test(ip)) {
        // RFC 4954 §6: 538 5.7.11 Encryption required for requested authentication mechanism.
        return callback(new SmtpError('5.7.11 Use STARTTLS before AUTH', 538));
      }
      const key = `smtp-auth-fail:${ip}`;
      // Password checks (argon2id, in the thread pool) are few at a time, per address and in all:
      // parallel guesses cannot race past the failure count, nor a flood starve the process.
      const mine = checking.get(ip) ?? 0;
      if (mine >= CHECKS_PER_IP || checkingTotal >= CHECKS_AT_ONCE) {
        return callback(new SmtpError('4.7.0 Too many logins at once, try again in a moment', 454));
      }
      checking.set(ip, mine + 1);
      checkingTotal += 1;
      const done = () => {
        checkingTotal -= 1;
        const left = (checking.get(ip) ?? 1) - 1;
        if (left <= 0) checking.delete(ip);
        else checking.set(ip, left);
      };
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
        })
        .finally(done);
    },

    onClose(session) {
      users.delete(session.id);
      if (!counted.delete(session.id)) return;
      const left = (open.get(session.remoteAddress) ?? 1) - 1;
      if (left <= 0) open.delete(session.remoteAddress);
      else open.set(session.remoteAddress, left);
    },

    onMailFrom(address: SMTPServerAddress, session, callback) {
      const user = users.get(session.id);
      if (!user) return callback(new SmtpError('5.7.0 Authentication required', 530));
      const sender = address.address;
      if (!ADDRESS.test(sender)) {
        return callback(new SmtpError(`5.1.7 Bad sender address <${sender.slice(0, 100)}>`, 553));
      }
      const args = address.args as Record<string, string> | false;
      if (Number(args ? (args.SIZE ?? 0) : 0) > options.maxMessageBytes) {
        return callback(new SmtpError('5.3.4 Message too big', 552));
      }
      const notOurs = () =>
        new SmtpError(
          `5.7.1 <${sender.slice(0, 100)}>: Sender address is not in your organisation's domains`,
          553,
        );
      Promise.all([
        deps.stillValid(user.credentialId),
        mayUseDomain(user.domains, user.tenantId, sender.slice(sender.lastIndexOf('@') + 1), deps.ownerOf),
        counters.hit(`submit-msgs:${user.credentialId}`, 3_600_000, perHour),
      ])
        .then(([valid, allowed, rate]) => {
          // A credential revoked while this session was open ends here, not at its next login.
          if (!valid) return callback(new SmtpError('5.7.8 Authentication credentials invalid', 535));
          if (!allowed) return callback(notOurs());
          if (rate.count > perHour) {
            deps.log.warn(
              { tenantId: user.tenantId, credential: user.credentialId, perHour },
              'submission: a credential reached its hourly limit (a compromised account?)',
            );
            return callback(
              new SmtpError(
                `4.7.0 This account sent ${perHour} messages in the last hour: try again later`,
                451,
              ),
            );
          }
          callback();
        })
        .catch((error) => {
          deps.log.error({ err: error }, 'submission: sender check failed');
          callback(new SmtpError('4.3.0 Temporary failure, try again later', 451));
        });
    },

    onRcptTo(address: SMTPServerAddress, session, callback) {
      const rcpt = address.address;
      if (badRecipient(rcpt)) {
        return callback(new SmtpError(`5.1.3 Bad recipient address <${rcpt.slice(0, 100)}>`, 553));
      }
      if (session.envelope.rcptTo.length >= options.maxRecipients) {
        return callback(new SmtpError('4.5.3 Too many recipients', 452));
      }
      callback();
    },

    onData(stream, session, callback) {
      readData(stream, options.maxMessageBytes).then((data) => {
        if (!data) return callback(new SmtpError('5.3.4 Message too big', 552));
        const user = users.get(session.id);
        const from = session.envelope.mailFrom;
        if (!user || !from) return callback(new SmtpError('5.7.0 Authentication required', 530));
        const raw = withoutBcc(data);
        if (raw.length * session.envelope.rcptTo.length > maxStored) {
          return callback(
            new SmtpError('5.3.4 Message too big for that many recipients: send it to fewer at a time', 552),
          );
        }
        checkMessage(raw)
          .then(async (refusal) => {
            if (refusal) return callback(new SmtpError(refusal.message, refusal.code));
            const fromDomain = fromHeaderDomain(raw);
            if (!fromDomain) {
              return callback(
                new SmtpError('5.6.0 Message refused: it needs one From header with one address', 550),
              );
            }
            if (!(await mayUseDomain(user.domains, user.tenantId, fromDomain, deps.ownerOf))) {
              return callback(
                new SmtpError(
                  `5.7.1 Message refused: the From header's domain ${fromDomain} is not your organisation's`,
                  550,
                ),
              );
            }
            // A Sender field names who sent it on the From's behalf: the same rule.
            const senderDomain = headerAddressDomain(raw, 'sender');
            if (
              senderDomain === null ||
              (senderDomain !== undefined &&
                !(await mayUseDomain(user.domains, user.tenantId, senderDomain, deps.ownerOf)))
            ) {
              return callback(
                new SmtpError(
                  "5.7.1 Message refused: its Sender header is not an address of your organisation's",
                  550,
                ),
              );
            }
            const submitted: SubmittedMessage = {
              tenantId: user.tenantId,
              credentialId: user.credentialId,
              envelopeFrom: from.address,
              recipients: session.envelope.rcptTo.map((r) => r.address),
              fromDomain,
              raw,
              clientAddress: session.remoteAddress,
            };
            const outcome = await deps.submit(submitted);
            if ('refused' in outcome) return callback(new SmtpError(outcome.refused, 554));
            if ('held' in outcome)
              return callback(
                null,
                `2.0.0 Ok: queued as ${outcome.held}, held for review by your organisation`,
              );
            callback(null, `2.0.0 Ok: queued as ${outcome.queued}`);
          })
          .catch((error) => {
            deps.log.error({ err: error }, 'submission: storing a message failed');
            callback(new SmtpError('4.3.0 Temporary failure, try again later', 451));
          });
      }, callback);
    },
  });
  server.on('error', (error) => deps.log.warn({ err: error }, 'submission: SMTP error'));

  return {
    listen: (port: number, host: string) => listenOn(server, port, host),
    close(): Promise<void> {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
export type SubmissionIn = ReturnType<typeof createSubmissionIn>;
