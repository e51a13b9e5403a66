import fs from 'node:fs';
import { isReportAddress } from '@moat/contracts/dmarc';
import type { FastifyBaseLogger } from 'fastify';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { Clock } from '../../lib/clock.ts';
import { type Counters, memoryCounters } from '../../lib/counters.ts';
import { LOCAL_NODE } from '../../lib/node-name.ts';
import type { TenantsRepo } from '../../modules/tenants/tenants.repo.ts';
import { ADDRESS, badRecipient, listenOn, readData, SmtpError } from '../smtp-common.ts';
import type { ArrivedMessage } from './inbound.repo.ts';
import { checkMessage } from './message-checks.ts';

/** Unknown recipients one client address may try in 10 minutes before RCPT answers 421 (all nodes). */
export const UNKNOWN_RECIPIENTS_PER_10_MIN = 20;

export interface SmtpInOptions {
  maxMessageBytes: number;
  maxRecipients: number;
  /** Open connections per client address. */
  maxConnectionsPerIp: number;
  /** Messages per client address per minute. */
  maxMessagesPerMinute: number;
  tls?: { key: string; cert: string } | undefined;
  hostname: string;
}

/**
 * The gateway's front door (smtp-server): mail only for the tenants' domains (550 for any other
 * recipient: no open relay), a size limit (552), address checks, STARTTLS when a certificate is
 * configured, connection and message-rate limits per client address. A message is answered 250
 * only once it is stored in `inbound_messages` (`store`).
 */
export function createSmtpIn(deps: {
  /**
   * Store a message durably (the 250 waits for it) and see to its processing; its id. The
   * processor's `intake`, or for a test that drives processing itself, the repository's `store`.
   */
  store: (message: ArrivedMessage) => Promise<string>;
  /** Whether a domain is served, when no recipient verifier reads it. */
  tenants: Pick<TenantsRepo, 'domainOwner'>;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  options: SmtpInOptions;
  /**
   * Recipient verification at RCPT (recipient-verify.ts): an unknown address is refused with
   * 550 5.1.1 while the sender is connected, instead of accepted and bounced later (backscatter).
   */
  verifyRecipient?: (
    address: string,
  ) => Promise<{ result: 'ok' | 'unknown' | 'tempfail' | 'no_domain'; detail?: string }>;
  /** Per-address counts shared by every node; default: this process's memory. */
  counters?: Counters;
  /** This node's name in the shared counts. */
  nodeId?: string;
}) {
  const { options } = deps;
  const { tenants } = deps;
  const counters = deps.counters ?? memoryCounters(deps.clock);
  const node = deps.nodeId ?? LOCAL_NODE;
  const accepted = new Set<string>();
  /**
   * Per connection, the unknown recipients its client address has tried (every node's, read at the
   * connection's first recipient, plus this connection's since): one read per connection, not per
   * RCPT.
   */
  const unknownTried = new Map<string, number>();
  /** Connections whose count is being taken, and those of them that closed meanwhile. */
  const pending = new Set<string>();
  const closedWhilePending = new Set<string>();
  /** This node's open connections per client address: its share of the cluster-wide count. */
  const open = new Map<string, number>();
  /** A node's share lapses this long after its last renewal: a node that died stops counting. */
  const SHARE_TTL_MS = 3 * 60_000;
  const connectionKey = (ip: string) => `smtp-conn:${ip}`;
  const moveShare = (ip: string, delta: number) => {
    const count = (open.get(ip) ?? 0) + delta;
    if (count <= 0) open.delete(ip);
    else open.set(ip, count);
    return counters.share(connectionKey(ip), node, delta, SHARE_TTL_MS);
  };
  const renewal = setInterval(() => {
    if (open.size === 0) return;
    counters
      .renewShares([...open.keys()].map(connectionKey), node, SHARE_TTL_MS)
      .catch((error) => deps.log.warn({ err: error }, 'renewing SMTP connection counts failed'));
  }, SHARE_TTL_MS / 3);
  renewal.unref();

  const server = new SMTPServer({
    name: options.hostname,
    banner: 'Moat mail gateway',
    size: options.maxMessageBytes,
    authOptional: true,
    disabledCommands: ['AUTH'],
    hideSTARTTLS: !options.tls,
    ...(options.tls
      ? { key: fs.readFileSync(options.tls.key), cert: fs.readFileSync(options.tls.cert) }
      : {}),
    logger: false,
    maxClients: 500,
    socketTimeout: 60_000,
    closeTimeout: 5_000,

    onConnect(session, callback) {
      // Counted for every node (shared counters): N nodes do not allow N times the limit.
      const ip = session.remoteAddress;
      pending.add(session.id);
      moveShare(ip, 1)
        .then(async (total) => {
          pending.delete(session.id);
          if (closedWhilePending.delete(session.id)) {
            // The client left while it was being counted: it no longer counts.
            await moveShare(ip, -1);
            return callback(new SmtpError('4.4.2 Connection closed', 421));
          }
          if (total > options.maxConnectionsPerIp) {
            await moveShare(ip, -1);
            return callback(
              new SmtpError('4.7.0 Too many connections from your address, try again later', 421),
            );
          }
          accepted.add(session.id);
          callback();
        })
        .catch((error) => {
          pending.delete(session.id);
          closedWhilePending.delete(session.id);
          deps.log.error({ err: error }, 'counting an SMTP connection failed');
          callback(new SmtpError('4.3.0 Temporary failure, try again later', 421));
        });
    },

    onClose(session) {
      unknownTried.delete(session.id);
      if (pending.has(session.id)) {
        closedWhilePending.add(session.id);
        return;
      }
      // smtp-server closes refused connections too: only those let in were counted.
      if (!accepted.delete(session.id)) return;
      moveShare(session.remoteAddress, -1).catch((error) =>
        deps.log.warn({ err: error }, 'uncounting an SMTP connection failed'),
      );
    },

    onMailFrom(address: SMTPServerAddress, _session: SMTPServerSession, callback) {
      // The null sender <> is how bounces arrive; anything else must be an address.
      if (address.address !== '' && !ADDRESS.test(address.address)) {
        return callback(new SmtpError(`5.1.7 Bad sender address <${address.address.slice(0, 100)}>`, 553));
      }
      const args = address.args as Record<string, string> | false;
      const size = Number(args ? (args.SIZE ?? 0) : 0);
      if (size > options.maxMessageBytes) {
        return callback(new SmtpError('5.3.4 Message too big for this gateway', 552));
      }
      callback();
    },

    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback) {
      const rcpt = address.address;
      if (badRecipient(rcpt)) {
        return callback(new SmtpError(`5.1.3 Bad recipient address <${rcpt.slice(0, 100)}>`, 553));
      }
      if (session.envelope.rcptTo.length >= options.maxRecipients) {
        return callback(new SmtpError('4.5.3 Too many recipients', 452));
      }
      const domain = rcpt.split('@')[1]!.toLowerCase();
      const relayingDenied = () =>
        new SmtpError('5.7.1 Relaying denied: not a domain this gateway serves', 550);
      // A domain's DMARC report address is no mailbox: taken for any served domain, never verified.
      const report = isReportAddress(rcpt);
      // With recipient verification the verifier reads the domain's owner itself (cached briefly).
      const served =
        deps.verifyRecipient && !report ? Promise.resolve(true) : tenants.domainOwner(domain).then(Boolean);
      served
        .then(async (isServed) => {
          if (!isServed) return callback(relayingDenied());
          if (!deps.verifyRecipient || report) return callback();
          // Directory harvesting: an address that guessed too many unknown recipients is told to
          // come back later, for every node, before any more are checked (no callout either).
          const unknownKey = `smtp-rcpt-unknown:${session.remoteAddress}`;
          let tried = unknownTried.get(session.id);
          if (tried === undefined) {
            tried = await counters.hits(unknownKey);
            unknownTried.set(session.id, tried);
          }
          if (tried >= UNKNOWN_RECIPIENTS_PER_10_MIN) {
            return callback(
              new SmtpError('4.7.1 Too many unknown recipients from your address, try again later', 421),
            );
          }
          const check = await deps.verifyRecipient(rcpt);
          if (check.result === 'unknown') {
            const { count } = await counters.hit(unknownKey, 600_000, UNKNOWN_RECIPIENTS_PER_10_MIN);
            unknownTried.set(session.id, Math.max(count, tried + 1));
            deps.log.info({ rcpt, detail: check.detail }, 'recipient refused: unknown address');
            // RFC 3463 5.1.1: bad destination mailbox address.
            return callback(new SmtpError(`5.1.1 <${rcpt}>: Recipient address rejected: User unknown`, 550));
          }
          if (check.result === 'tempfail') {
            return callback(
              new SmtpError(
                `4.1.1 <${rcpt}>: Recipient address verification is temporarily unavailable, try again later`,
                450,
              ),
            );
          }
          if (check.result === 'no_domain') return callback(relayingDenied());
          callback();
        })
        .catch((error) => {
          deps.log.error({ err: error }, 'recipient check failed');
          callback(new SmtpError('4.3.0 Temporary failure, try again later', 451));
        });
    },

    onData(stream, session, callback) {
      readData(stream, options.maxMessageBytes).then((message) => {
        if (!message) return callback(new SmtpError('5.3.4 Message too big for this gateway', 552));
        const ip = session.remoteAddress;
        const size = message.length;
        counters
          .hit(`smtp-msg:${ip}`, 60_000, options.maxMessagesPerMinute)
          .then(({ count }) => {
            if (count > options.maxMessagesPerMinute) {
              return new SmtpError('4.7.0 Too many messages from your address, try again later', 451);
            }
            return checkMessage(message).then((refusal) =>
              refusal ? new SmtpError(refusal.message, refusal.code) : null,
            );
          })
          .then((refusal) => {
            if (refusal) {
              deps.log.info(
                { clientIp: ip, size, reply: refusal.message },
                'inbound message refused at end of DATA',
              );
              return callback(refusal);
            }
            return store(session, message, callback);
          })
          .catch((error) => {
            deps.log.error({ err: error }, 'checking an inbound message failed');
            callback(new SmtpError('4.3.0 Temporary failure checking the message, try again later', 451));
          });
      }, callback);
    },
  });

  /** The session's TLS (STARTTLS or implicit) for the message trace; null: plain text. */
  function tlsOf(session: SMTPServerSession) {
    if (!session.secure) return null;
    const cipher = (session.tlsOptions || undefined) as { name?: string; version?: string } | undefined;
    return {
      protocol: String(cipher?.version || 'TLS').slice(0, 40),
      cipher: String(cipher?.name || '').slice(0, 100),
    };
  }

  /** Store the message durably, then answer 250 (and only then). */
  function store(
    session: SMTPServerSession,
    message: Buffer,
    callback: (err?: Error | null, msg?: string) => void,
  ) {
    const ip = session.remoteAddress;
    const now = deps.clock.now();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    const helo = (session.hostNameAppearsAs ?? '').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255);
    const trace = `Received: from ${helo.replace(/[^\w.-]/g, '') || 'unknown'} ([${ip}])\r\n\tby ${options.hostname} (Moat) with ${session.transmissionType ?? 'SMTP'} id ${session.id};\r\n\t${now.toUTCString()}\r\n`;
    const raw = Buffer.concat([Buffer.from(trace), message]);
    const envelope = session.envelope;
    deps
      .store({
        receivedAt: now,
        clientIp: ip,
        helo,
        mailFrom: envelope.mailFrom ? envelope.mailFrom.address.toLowerCase() : '',
        rcptTo: envelope.rcptTo.map((r) => r.address.toLowerCase()),
        raw,
        tls: tlsOf(session),
      })
      .then((id) => {
        // Stored durably: only now may the client forget the message.
        callback(null, `2.0.0 Ok: queued as ${id}`);
      })
      .catch((error) => {
        deps.log.error({ err: error }, 'storing an inbound message failed');
        callback(new SmtpError('4.3.0 Temporary failure storing the message, try again later', 451));
      });
  }

  server.on('error', (error) => deps.log.warn({ err: error.message }, 'SMTP connection error'));

  return {
    server,
    listen: (port: number, host: string) => listenOn(server, port, host),
    async close(): Promise<void> {
      clearInterval(renewal);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // A clean stop takes this node's share of every count with it.
      await Promise.all(
        [...open.entries()].map(([ip, count]) => moveShare(ip, -count).catch(() => undefined)),
      );
    },
  };
}
export type SmtpIn = ReturnType<typeof createSmtpIn>;
