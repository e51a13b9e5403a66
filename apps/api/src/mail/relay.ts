import { Readable } from 'node:stream';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';

/** Messages one relay connection carries before it is closed and another opened (nodemailer's default). */
const MESSAGES_PER_CONNECTION = 100;
/** An idle connection is closed after this long, before the relay's own timeout would drop it. */
const IDLE_MS = 30_000;

export interface RelayEnvelope {
  /** The envelope sender; '' for a bounce (MAIL FROM:<>). */
  from: string;
  to: string[];
}

const UNSENT = Symbol('unsent');
/** The relay was closed before any of this message left: nothing of it can have arrived. */
export const unsent = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && UNSENT in error;

/** What went wrong in an SMTP exchange: a reply code when the relay gave one (5xx: permanent). */
export type RelayError = Error & { responseCode?: number; code?: string };

interface Connection {
  smtp: SMTPConnection;
  ready: Promise<void>;
  /** Closed, failed or ended: never used again. */
  dead: boolean;
  messages: number;
  idle: NodeJS.Timeout | null;
}

/**
 * The way to the next hop for messages whose bytes are ready: up to `connections` SMTP
 * connections kept open (nodemailer's SMTPConnection, with STARTTLS when offered, authentication
 * from the URL's user and password), each carrying one message at a time; what finds every
 * connection busy waits its turn. The URL is nodemailer's (`smtp://`, `smtps://`, query options);
 * `maxConnections` sets how many (4), `pool=false` opens one per message.
 */
export function createRelay(relayUrl: string) {
  const { auth, pool, maxConnections, ...options } = parseConnectionUrl(
    relayUrl,
  ) as SMTPConnection.Options & {
    auth?: { user?: string; pass?: string };
    pool?: boolean;
    maxConnections?: number;
  };
  const keepOpen = pool !== false;
  /** Connections at once: `maxConnections` of the URL (default 4, at most 32); 1 with `pool=false`. */
  const connections = keepOpen ? Math.max(1, Math.min(32, Number(maxConnections ?? 4) || 4)) : 1;
  const open = new Set<Connection>();
  const idle: Connection[] = [];
  const waiting: Array<{ resolve: (connection: Connection) => void; reject: (error: Error) => void }> = [];
  let closed = false;
  const closedError = () =>
    Object.assign(new Error('the relay is closed'), { code: 'ECONNECTION', [UNSENT]: true });

  /** A connection not to be used again; its slot goes to the next waiting message (once). */
  function discard(connection: Connection): void {
    if (!open.has(connection)) return;
    if (connection.idle) clearTimeout(connection.idle);
    connection.dead = true;
    open.delete(connection);
    const at = idle.indexOf(connection);
    if (at !== -1) idle.splice(at, 1);
    connection.smtp.close();
    const next = waiting.shift();
    if (next) next.resolve(connect());
  }

  function connect(): Connection {
    const smtp = new SMTPConnection(options);
    const connection: Connection = { smtp, ready: Promise.resolve(), dead: false, messages: 0, idle: null };
    open.add(connection);
    connection.ready = new Promise<void>((resolve, reject) => {
      smtp.once('error', reject);
      smtp.connect((error) => {
        if (error) return reject(error);
        if (!auth?.user || !smtp.allowsAuth) return resolve();
        smtp.login({ credentials: { user: auth.user, pass: auth.pass ?? '' } }, (loginError) =>
          loginError ? reject(loginError) : resolve(),
        );
      });
    });
    connection.ready.catch(() => undefined);
    // A connection that errs or ends later (the relay closed it) is not used again.
    smtp.on('error', () => discard(connection));
    smtp.once('end', () => discard(connection));
    return connection;
  }

  /** A connection for one message: an idle one, a new one while under the limit, or the next freed. */
  function take(): Promise<Connection> {
    const ready = idle.pop();
    if (ready) {
      if (ready.idle) clearTimeout(ready.idle);
      ready.idle = null;
      return Promise.resolve(ready);
    }
    if (open.size < connections) return Promise.resolve(connect());
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  }

  function give(connection: Connection): void {
    if (connection.dead) return;
    if (!keepOpen || connection.messages >= MESSAGES_PER_CONNECTION || closed) {
      discard(connection);
      return;
    }
    const next = waiting.shift();
    if (next) {
      next.resolve(connection);
      return;
    }
    connection.idle = setTimeout(() => discard(connection), IDLE_MS);
    connection.idle.unref();
    idle.push(connection);
  }

  /** Send on one connection; `started`: whether any of the message was read for DATA. */
  function sendOn(
    connection: Connection,
    envelope: RelayEnvelope,
    raw: Buffer,
  ): Promise<string> & { started: () => boolean } {
    const message = Readable.from([raw], { objectMode: false });
    const sending = new Promise<string>((resolve, reject) => {
      connection.smtp.send({ from: envelope.from, to: envelope.to }, message, (error, info) => {
        connection.messages += 1;
        if (!error) return resolve(info?.response ?? '');
        const { code, responseCode } = error as RelayError;
        // Refused by the relay: the connection stays usable once reset.
        if ((code === 'EENVELOPE' || code === 'EMESSAGE') && responseCode !== 421 && !connection.dead) {
          connection.smtp.reset((resetError) => {
            if (resetError) discard(connection);
            else give(connection);
          });
        } else {
          discard(connection);
        }
        reject(error);
      });
    });
    return Object.assign(sending, { started: () => message.readableDidRead });
  }

  return {
    /**
     * Send one message; resolves with the relay's answer once it accepted it, rejects with its
     * answer (or the connection's error) otherwise.
     */
    async send(envelope: RelayEnvelope, raw: Buffer): Promise<string> {
      if (closed) throw closedError();
      const connection = await take();
      const reused = connection.messages > 0;
      try {
        await connection.ready;
      } catch (error) {
        discard(connection);
        throw error;
      }
      if (closed) {
        discard(connection);
        throw closedError();
      }
      const sending = sendOn(connection, envelope, raw);
      let answer: string;
      try {
        answer = await sending;
      } catch (error) {
        // The relay had closed a connection that waited idle: none of the message left, so it
        // goes on a new connection now (nothing can arrive twice).
        if (!reused || sending.started() || (error as RelayError).responseCode !== undefined) throw error;
        const fresh = await take();
        try {
          await fresh.ready;
        } catch (connectError) {
          discard(fresh);
          throw connectError;
        }
        const retried = await sendOn(fresh, envelope, raw);
        give(fresh);
        return retried;
      }
      give(connection);
      return answer;
    },
    /**
     * No more messages: idle connections say QUIT; one carrying a message closes once it is done
     * (its message is not cut off); messages still waiting for a connection are refused.
     */
    close(): void {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.reject(closedError());
      for (const connection of idle.splice(0)) {
        if (connection.idle) clearTimeout(connection.idle);
        connection.dead = true;
        open.delete(connection);
        connection.smtp.quit();
      }
    },
    /** Connections open or opening (idle or carrying a message). */
    size: () => open.size,
    /** Connections the URL allows at once. */
    connections,
  };
}
export type Relay = ReturnType<typeof createRelay>;
