import net from 'node:net';
import tls from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import type { TenantsRepo } from '../../modules/tenants/tenants.repo.ts';

/**
 * How the gateway checks a domain's recipients at RCPT (`tenant_domains.recipient_verification`):
 * auto = callout when a next hop (SMTP_RELAY_URL) is configured, else off; callout = ask the next
 * hop; known = the tenant's users who are not disabled; off = accept every address.
 */
export const RECIPIENT_VERIFICATION_MODES = ['auto', 'callout', 'known', 'off'] as const;
export type RecipientVerificationMode = (typeof RECIPIENT_VERIFICATION_MODES)[number];

/** `detail` says why, for the log; the SMTP reply to the client is the gateway's own wording. */
export type RecipientCheck =
  | { result: 'ok' }
  | { result: 'unknown'; detail: string }
  | { result: 'tempfail'; detail: string }
  | { result: 'no_domain' };

export interface RecipientVerifier {
  check(address: string): Promise<RecipientCheck>;
}

const DOMAIN_TTL_MS = 30_000;
const OK_TTL_MS = 60 * 60_000;
const UNKNOWN_TTL_MS = 10 * 60_000;
/** A next hop's reply longer than this is not SMTP: the callout gives up. */
const MAX_REPLY_CHARS = 16_384;
/** After QUIT the next hop gets this long to close before the socket is destroyed. */
const QUIT_GRACE_MS = 2_000;
/** One warning a minute about an unreachable or refusing next hop, not one per recipient. */
const WARN_EVERY_MS = 60_000;

/** A map whose entries expire, bounded in size: the oldest entry goes first. */
class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  constructor(
    private readonly clock: Clock,
    private readonly maxSize: number,
  ) {}
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now().getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }
  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now().getTime() + ttlMs });
    while (this.entries.size > this.maxSize) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

/** Concurrent calls with the same key share one run of `work`. */
function coalesced<V>(): (key: string, work: () => Promise<V>) => Promise<V> {
  const running = new Map<string, Promise<V>>();
  return (key, work) => {
    const pending = running.get(key);
    if (pending) return pending;
    const started = work().finally(() => running.delete(key));
    running.set(key, started);
    return started;
  };
}

/** Printable ASCII only, one line, bounded: the next hop's words are only ever logged. */
const sanitize = (text: string) =>
  text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);

interface Reply {
  code: number;
  text: string;
}

/**
 * One SMTP conversation over a socket: `command` writes a line and waits for the whole (maybe
 * multi-line) reply. Any socket error, a close, or a line that is not an SMTP reply fails the
 * pending and every later read.
 */
function smtpDialog(socket: net.Socket) {
  let buffer = '';
  let lines: string[] = [];
  const replies: Reply[] = [];
  let failure: Error | null = null;
  let waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | null = null;

  const settle = () => {
    if (!waiting) return;
    const { resolve, reject } = waiting;
    if (replies.length > 0) {
      waiting = null;
      resolve(replies.shift()!);
    } else if (failure) {
      waiting = null;
      reject(failure);
    }
  };
  const fail = (error: Error) => {
    failure ??= error;
    settle();
  };

  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      const match = /^([2-5]\d\d)([ -]?)(.*)$/.exec(line);
      if (!match) return fail(new Error(`not an SMTP reply: ${sanitize(line).slice(0, 60)}`));
      lines.push(match[3]!);
      if (match[2] !== '-') {
        replies.push({ code: Number(match[1]), text: sanitize(lines.join(' ')) });
        lines = [];
      }
    }
    if (buffer.length > MAX_REPLY_CHARS || lines.length > 100) fail(new Error('reply too long'));
    settle();
  });
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the next hop closed the connection')));

  const read = () =>
    new Promise<Reply>((resolve, reject) => {
      waiting = { resolve, reject };
      settle();
    });
  return {
    read,
    command(line: string): Promise<Reply> {
      socket.write(`${line}\r\n`);
      return read();
    },
  };
}

/** The enhanced status code (RFC 3463) at the start of a reply's text, e.g. "5.1.1". */
const enhancedCode = (text: string) => /^([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1];

/**
 * Recipient verification at RCPT time, as Proxmox Mail Gateway does it, so mail for an address
 * that does not exist is refused while the sender is still connected instead of bounced later
 * (backscatter). The domain's owner and mode are read once per 30 s; callout answers are cached
 * (ok 1 h, unknown 10 min, a temporary failure not at all) and concurrent checks of one address
 * share one callout.
 */
export function createRecipientVerifier(deps: {
  tenants: Pick<TenantsRepo, 'recipientVerificationOf' | 'isKnownRecipient'>;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** The next hop, `smtp://host:port` or `smtps://host:port` (SMTP_RELAY_URL). */
  relayUrl: string | undefined;
  /** The name this gateway gives in EHLO (SMTP_HOSTNAME). */
  heloName: string;
  /** The whole callout, connection to last reply (default 10 s). */
  timeoutMs?: number;
  /** Addresses whose callout answer is remembered (default 10,000). */
  cacheSize?: number;
}): RecipientVerifier {
  const { tenants } = deps;
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const nextHop = deps.relayUrl ? new URL(deps.relayUrl) : null;
  const domains = new TtlCache<{ tenantId: string; mode: string }>(deps.clock, 1_000);
  const answers = new TtlCache<RecipientCheck>(deps.clock, deps.cacheSize ?? 10_000);
  const lookupOnce = coalesced<{ tenantId: string; mode: string } | null>();
  const calloutOnce = coalesced<RecipientCheck>();
  const warnedAt = new Map<string, number>();

  function warn(key: string, fields: Record<string, unknown>, message: string) {
    const now = deps.clock.now().getTime();
    if (now - (warnedAt.get(key) ?? Number.NEGATIVE_INFINITY) < WARN_EVERY_MS) return;
    warnedAt.set(key, now);
    deps.log.warn(fields, message);
  }

  async function domainOf(domain: string) {
    const cached = domains.get(domain);
    if (cached) return cached;
    return lookupOnce(domain, async () => {
      const row = await tenants.recipientVerificationOf(domain);
      // Only domains that exist are remembered: a domain added a moment ago is served at once.
      if (row) domains.set(domain, row, DOMAIN_TTL_MS);
      return row;
    });
  }

  function connect(url: URL): net.Socket {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (url.protocol === 'smtps:') {
      return tls.connect({
        host,
        port: Number(url.port) || 465,
        ...(net.isIP(host) ? {} : { servername: host }),
        // The outbound transport reads the same option from the URL (nodemailer's syntax).
        rejectUnauthorized: url.searchParams.get('tls.rejectUnauthorized') !== 'false',
      });
    }
    return net.connect({ host, port: Number(url.port) || 25 });
  }

  /**
   * EHLO, MAIL FROM:<>, RCPT TO, QUIT. Only a 550–553 at RCPT that is not a policy refusal
   * (5.7.x: "relaying denied", "authentication required") says the mailbox does not exist. Any
   * other permanent refusal means the next hop would not judge the address for us (it may be a
   * smarthost): the address is accepted as before and a warning says why. A 4xx, a broken
   * connection or no answer within `timeoutMs` is a temporary failure.
   */
  async function callout(url: URL, address: string): Promise<RecipientCheck> {
    const socket = connect(url);
    const dialog = smtpDialog(socket);
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let finished = false;
    try {
      const step = async (name: string, reply: Promise<Reply>) => {
        const answer = await reply;
        if (answer.code >= 400) throw Object.assign(new Error(name), { reply: answer, step: name });
        return answer;
      };
      await step('greeting', dialog.read());
      const ehlo = await dialog.command(`EHLO ${deps.heloName}`);
      if (ehlo.code >= 500) await step('HELO', dialog.command(`HELO ${deps.heloName}`));
      else if (ehlo.code >= 400) await step('EHLO', Promise.resolve(ehlo));
      await step('MAIL FROM', dialog.command('MAIL FROM:<>'));
      const rcpt = await dialog.command(`RCPT TO:<${address}>`);
      finished = true;
      const said = `${rcpt.code} ${rcpt.text}`;
      if (rcpt.code < 400) return { result: 'ok' };
      if (rcpt.code < 500) return { result: 'tempfail', detail: `next hop said: ${said}` };
      const policy = enhancedCode(rcpt.text)?.startsWith('5.7.');
      if (rcpt.code >= 550 && rcpt.code <= 553 && !policy) {
        return { result: 'unknown', detail: `next hop said: ${said}` };
      }
      warn('rcpt', { nextHop: url.host, reply: said }, 'recipient callout refused by policy: accepting');
      return { result: 'ok' };
    } catch (error) {
      const { reply, step } = error as { reply?: Reply; step?: string };
      if (reply && reply.code >= 500) {
        warn(
          'refused',
          { nextHop: url.host, step, reply: `${reply.code} ${reply.text}` },
          'the next hop refuses recipient callouts: accepting recipients unverified',
        );
        return { result: 'ok' };
      }
      const detail = reply
        ? `next hop said at ${step}: ${reply.code} ${reply.text}`
        : `callout failed: ${sanitize((error as Error).message)}`;
      warn('tempfail', { nextHop: url.host, detail }, 'recipient callout failed');
      return { result: 'tempfail', detail };
    } finally {
      clearTimeout(timer);
      if (finished && !socket.destroyed) {
        // Polite close; the socket goes in any case once the grace time is over.
        const grace = setTimeout(() => socket.destroy(), QUIT_GRACE_MS);
        grace.unref();
        socket.once('close', () => clearTimeout(grace));
        socket.end('QUIT\r\n');
      } else {
        socket.destroy();
      }
    }
  }

  async function verifyByCallout(url: URL, address: string): Promise<RecipientCheck> {
    const cached = answers.get(address);
    if (cached) return cached;
    return calloutOnce(address, async () => {
      const answer = await callout(url, address);
      if (answer.result === 'ok') answers.set(address, answer, OK_TTL_MS);
      else if (answer.result === 'unknown') answers.set(address, answer, UNKNOWN_TTL_MS);
      return answer;
    });
  }

  return {
    async check(raw: string): Promise<RecipientCheck> {
      const address = raw.toLowerCase();
      const at = address.lastIndexOf('@');
      // The front door checks addresses first; this keeps anything odd out of the callout line.
      if (at < 1 || !/^[\x21-\x7e]+$/.test(address) || /[<>]/.test(address)) {
        return { result: 'unknown', detail: 'malformed address' };
      }
      const domain = await domainOf(address.slice(at + 1));
      if (!domain) return { result: 'no_domain' };
      switch (domain.mode) {
        case 'known':
          // The database is the truth and the query is one index lookup: a new user gets mail at once.
          return (await tenants.isKnownRecipient(domain.tenantId, address))
            ? { result: 'ok' }
            : { result: 'unknown', detail: 'not a user of the tenant' };
        case 'auto':
        case 'callout':
          if (nextHop) return verifyByCallout(nextHop, address);
          if (domain.mode === 'callout') {
            warn(
              'no-relay',
              { domain: address.slice(at + 1) },
              'recipient callout set but no SMTP_RELAY_URL: accepting recipients unverified',
            );
          }
          return { result: 'ok' };
        default:
          return { result: 'ok' };
      }
    },
  };
}
