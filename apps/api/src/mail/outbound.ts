import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { DbOrTx } from '../db/client.ts';
import { createBatcher } from '../lib/batcher.ts';
import type { Clock } from '../lib/clock.ts';
import { createLeaseKeeper, DEFAULT_WORK_LEASE_MS } from '../lib/lease-keeper.ts';
import type { Metrics } from '../lib/metrics.ts';
import { LOCAL_NODE } from '../lib/node-name.ts';
import { createPeriodic } from '../lib/periodic.ts';
import { mailComposer } from './compose.ts';
import { checkedRelayUrl, type NextHopNetworks, whyNotDelivered } from './next-hop.ts';
import type { OutboundRoutes } from './outbound-routes.ts';
import type { DeliveryRow, OutboxRepo, OutboxRow } from './outbox.repo.ts';
import { createRelay, type Relay, type RelayError, unsent } from './relay.ts';
import type { Rendered } from './templates.ts';

export interface OutgoingMail extends Rendered {
  tenantId: string | null;
  /** Send these bytes as they are (a released message) instead of rendering text and html. */
  raw?: Uint8Array;
  /** What the mail is for (mail_verification, password_reset, …): kept in the outbox. */
  kind: string;
  to: string;
  fromName: string;
  /** Relayed mail: the SMTP envelope sender ('' for none); default: Moat's own address. */
  envelopeFrom?: string;
  /** Queue this mail at most once per key; a second send with the key returns the first one's id. */
  idempotencyKey?: string;
  /** A bounce or delay notice about the tenant's own outbound mail: From the tenant's sender. */
  aboutOwnMail?: boolean;
}

/** The kind of the tenants' own outbound mail (submitted on SUBMISSION_PORT): routed by MX or the smarthost. */
export const OUTBOUND_KIND = 'outbound';

/** How long mail is retried before it bounces (Postfix's maximal_queue_lifetime is 5 days). */
export const DEFAULT_RETRY_WINDOW_MS = 5 * 86_400_000;
/** After this long undelivered, relayed mail's sender is told it is delayed (once). */
export const DELAY_NOTICE_AFTER_MS = 4 * 3_600_000;
/** A mail whose lease its node stopped renewing this long ago is any node's to take over. */
export const DEFAULT_OUTBOX_LEASE_MS = DEFAULT_WORK_LEASE_MS;
const JOURNAL_ROTATE_BYTES = 1024 * 1024;
/** Tenant next hops with a connection pool kept at once. */
const MAX_TENANT_HOPS = 64;
/** How long a tenant next hop's checked address is used before it is resolved and checked again. */
const HOP_RECHECK_MS = 10 * 60_000;
/** The most bytes of mail handed over from memory and waiting for a connection (`reserve`). */
const HAND_OFF_BYTES = 64 * 1024 * 1024;
/**
 * A tenant's own server gets bounded waits (not nodemailer's minutes), so a slow one holds this
 * node's delivery slots for seconds, not for ten minutes.
 */
const HOP_TIMEOUTS = { connectionTimeout: '30000', greetingTimeout: '30000', socketTimeout: '120000' };
/** How long a stopping node waits for the mail it is handing to the relay. */
const STOP_WAIT_MS = 5_000;

/**
 * An append-only file of outbox ids: appended synchronously (the page cache outlives a killed
 * process), read back and emptied once the database has them.
 */
function createSentJournal(file: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return {
    append(id: string) {
      fs.appendFileSync(file, `${id}\n`, { mode: 0o600 });
    },
    size(): number {
      try {
        return fs.statSync(file).size;
      } catch {
        return 0;
      }
    },
    /** The ids written so far; the file is emptied (the caller records them right away). */
    drain(): string[] {
      let text = '';
      try {
        text = fs.readFileSync(file, 'utf8');
        fs.truncateSync(file, 0);
      } catch {
        return [];
      }
      return [...new Set(text.split('\n').filter((line) => /^[0-9a-f-]{36}$/.test(line)))];
    },
  };
}
/**
 * Wait after attempt n, counted from that attempt: 30 s, 1, 2, 4 … minutes, at most an hour
 * (Postfix: 5 minutes to 66 minutes). A relay outage delays mail; it bounces only after the
 * retry window.
 */
export const retryDelayMs = (attempts: number) =>
  Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);

/**
 * The one way out for every email. Each one is first stored in the outbox table; a node with an
 * SMTP relay then claims it (a lease, so several nodes never send one mail twice at once) and
 * delivers it, retrying with back-off from the last attempt for the retry window (5 days) before
 * it bounces. A node without a relay leaves mail queued (with a log line) for a node that has one,
 * so mail the CLI stores is sent by the running server whatever the CLI's environment.
 */
export function createMailer(deps: {
  repo: OutboxRepo;
  relayUrl: string | undefined;
  /** The deployment's sender (config `mailFrom`); null: none, and mail without one of its own waits. */
  fromAddress: string | null;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  clock: Clock;
  /**
   * A local journal of ids the relay accepted, appended the moment it answers, before the
   * database hears of it: a crash in between would otherwise send that mail again on restart.
   */
  journalPath?: string;
  /**
   * The tenant's own sender of Moat's mail (Settings), read when a mail is stored (on the caller's
   * transaction `tx`: the embedded database has one connection, which that transaction holds);
   * null fields keep `fromAddress` and the template's name.
   */
  senderOf?: (
    tenantId: string,
    tx?: DbOrTx,
  ) => Promise<{ address: string | null; name: string | null } | null>;
  /**
   * The tenant's own next hop (`smtp://host:port`, Onboarding), or null for the deployment's
   * relay. Given (the server), a node delivers the mail of tenants with one even without a relay.
   */
  nextHopOf?: (tenantId: string) => Promise<string | null>;
  /** Where a tenant's next hop may be (NEXT_HOP_NETWORKS), checked before each connection pool. */
  nextHopNetworks?: NextHopNetworks;
  /** This node's name in leases. */
  nodeId?: string;
  leaseMs?: number;
  retryWindowMs?: number;
  /** `moat_relay_errors_total` (issue 14); the CLI, which serves no metrics, has none. */
  metrics?: Pick<Metrics, 'relayErrors'>;
  /**
   * DKIM signing of Moat's own mail (issue 38): the composed bytes and the From address's domain
   * in, the bytes to send out (signed when that domain signs). Mail sent on as it was (a release)
   * is the original sender's and is never signed here.
   */
  sign?: (message: Buffer, fromDomain: string, tenantId: string | null) => Promise<Buffer>;
  /**
   * The way out for the tenants' outbound mail (kind `outbound`, issue 38): the smarthost or the
   * recipients' MX. Without it, such mail waits for a node that has it.
   */
  outbound?: Pick<OutboundRoutes, 'send' | 'close'>;
}) {
  const transport: Relay | null = deps.relayUrl ? createRelay(deps.relayUrl) : null;
  /** This node sends mail: through the deployment's relay, or at least to tenants' own next hops. */
  const delivering = transport !== null || deps.nextHopOf !== undefined || deps.outbound !== undefined;
  /** One pooled relay per tenant next hop in use, to the address checked when it was made. */
  const hops = new Map<string, { relay: Relay; until: number }>();
  const parallel = transport?.connections ?? 4;
  const nodeId = deps.nodeId ?? LOCAL_NODE;
  const retryWindowMs = deps.retryWindowMs ?? DEFAULT_RETRY_WINDOW_MS;
  const { repo } = deps;
  let started = false;
  /** Stopped (or stopping): nothing more is claimed, and mail waiting for a connection goes back. */
  let stopping = false;
  /**
   * Mails this node has claimed and not finished (waiting for a pooled connection, or talking to
   * the relay). Bounded, so a claim never waits in a local queue long enough for its lease to run
   * out (another node would then send it too); the leases of these are renewed while they last.
   */
  const leases = createLeaseKeeper({
    clock: deps.clock,
    leaseMs: deps.leaseMs ?? DEFAULT_OUTBOX_LEASE_MS,
    renew: (ids, until) => repo.renewLeases(ids, nodeId, until),
    onError: (error) => deps.log.warn({ err: error }, 'renewing outbox leases failed'),
  });
  const inFlight = leases.held;
  /** Mails claimed from the table at a time (their bytes read back): a few per connection. */
  const capacity = parallel * 4;
  /**
   * Mails the gateway may hand over from memory while the connections are busy. A queue this deep
   * keeps the relay's connections fed under load without claiming each mail back from the table
   * (a statement and a read of its bytes each); the byte bound keeps big mail from piling up.
   */
  const handOffCapacity = parallel * 16;
  /** The bytes of claimed mail held in memory (in flight, and promised by `reserve`). */
  let heldBytes = 0;
  const passes = createPeriodic(drain, (error) => deps.log.error({ err: error }, 'mail retry loop failed'));

  const journal = deps.journalPath ? createSentJournal(deps.journalPath) : null;
  /**
   * Mail waits that this node had no room to claim: a connection that frees up takes it at once.
   * Otherwise new mail is started as it is stored, and the periodic pass finds the rest.
   */
  let backlog = false;
  /**
   * Mail the relay accepted is marked sent in batches, one statement for what finished within
   * 50 ms; the journal has each id first, so a crash in between sends nothing twice.
   */
  const sent = createBatcher<string>({
    waitMs: 50,
    run: async (ids) => {
      await repo.markSent(ids, deps.clock.now());
      if (journal && journal.size() > JOURNAL_ROTATE_BYTES)
        await repo.markSent(journal.drain(), deps.clock.now());
      return [];
    },
  });

  /**
   * The sender of Moat's own mail: its tenant's, chosen when it was stored, else the deployment's.
   * Never made up: without one the delivery fails (and is retried) with what to set.
   */
  function senderOf(row: DeliveryRow): string {
    const address = row.fromAddress ?? deps.fromAddress;
    if (!address) {
      throw new Error(
        "No sender address for Moat's own mail: set MAIL_FROM, add a mail domain to the tenant, or set a sender in Configuration → Settings",
      );
    }
    return address;
  }

  /**
   * The envelope sender of a message Moat sends again as it was (a release): its tenant's sender,
   * else the deployment's; without either, the null sender (MAIL FROM:<>) rather than no delivery —
   * its From header is the original's, and a bounce of it has nobody to go back to.
   */
  function resentFrom(row: DeliveryRow): string {
    return row.fromAddress ?? deps.fromAddress ?? '';
  }

  /** Moat's own mail (a notice, a code) as the bytes that go out. */
  async function composed(row: DeliveryRow): Promise<Buffer> {
    const MailComposer = await mailComposer();
    const from = senderOf(row);
    const bytes = await new MailComposer({
      from: { name: row.fromName, address: from },
      to: row.toAddress,
      subject: row.subject,
      text: row.text,
      html: row.html,
      headers: { 'X-Moat-Mail-Kind': row.kind, 'Auto-Submitted': 'auto-generated' },
    })
      .compile()
      .build();
    return deps.sign ? deps.sign(bytes, from.slice(from.lastIndexOf('@') + 1), row.tenantId) : bytes;
  }

  /** The way out for a mail: its tenant's next hop if it has one, else the deployment's relay. */
  async function routeOf(row: DeliveryRow): Promise<Relay | null> {
    const hop = row.tenantId && deps.nextHopOf ? await deps.nextHopOf(row.tenantId) : null;
    if (!hop) return transport;
    const now = Date.now();
    const kept = hops.get(hop);
    if (kept && kept.until > now) return kept.relay;
    if (kept) {
      // Its name is resolved and checked again: it may point elsewhere by now.
      hops.delete(hop);
      kept.relay.close();
    }
    // Bounded: a next hop changed many times leaves no pile of idle pools behind.
    if (hops.size >= MAX_TENANT_HOPS) {
      const [oldest, pool] = hops.entries().next().value as [string, { relay: Relay }];
      hops.delete(oldest);
      pool.relay.close();
    }
    // Throws (the delivery fails and is retried) when the next hop is not allowed.
    const relay = createRelay(await checkedRelayUrl(hop, deps.nextHopNetworks ?? 'public', HOP_TIMEOUTS));
    hops.set(hop, { relay, until: now + HOP_RECHECK_MS });
    return relay;
  }

  async function deliver(row: DeliveryRow): Promise<void> {
    if (!delivering) return;
    inFlight.add(row.id);
    const bytes = row.raw?.length ?? 0;
    heldBytes += bytes;
    /** Sent to a tenant's own server: what it said is kept only as an SMTP reply (next-hop.ts). */
    let viaHop = false;
    try {
      const relay = row.kind === OUTBOUND_KIND ? (deps.outbound ?? null) : await routeOf(row);
      viaHop = relay !== null && relay !== transport;
      if (!relay) {
        // Neither a next hop of its tenant nor a relay here: it waits for a node that has one.
        await repo.unclaim(row.id, nodeId);
        return;
      }
      await relay.send(
        // Relayed mail keeps its envelope; Moat's own mail comes from its address (bounces from <>).
        { from: row.envelopeFrom ?? (row.raw ? resentFrom(row) : senderOf(row)), to: [row.toAddress] },
        row.raw ? Buffer.from(row.raw.buffer, row.raw.byteOffset, row.raw.byteLength) : await composed(row),
      );
      journal?.append(row.id);
      await sent.add(row.id);
    } catch (error) {
      // The relay was closed (this node is stopping, or a next hop's pool was replaced) before
      // this mail had a connection: it goes back to the table as it was, due at once.
      if (unsent(error)) {
        await repo.unclaim(row.id, nodeId);
        return;
      }
      const lastError = (viaHop ? whyNotDelivered(error as RelayError) : (error as Error).message).slice(
        0,
        500,
      );
      const now = deps.clock.now();
      // A permanent refusal (5xx) will not change with retries; nor will mail past its window.
      const permanent = ((error as { responseCode?: number }).responseCode ?? 0) >= 500;
      const tooOld = now.getTime() - row.createdAt.getTime() >= retryWindowMs;
      deps.metrics?.relayErrors.inc({ kind: permanent ? 'permanent' : tooOld ? 'expired' : 'temporary' });
      if (permanent || tooOld) {
        await bounce(await repo.markBounced([row.id], lastError));
        return;
      }
      const next = new Date(now.getTime() + retryDelayMs(row.attempts));
      await repo.markFailed(row.id, nodeId, lastError, next);
      deps.log.warn(
        { outboxId: row.id, attempts: row.attempts, err: lastError, nextAttemptAt: next },
        'mail delivery failed; will retry',
      );
    } finally {
      inFlight.delete(row.id);
      heldBytes -= bytes;
      if (started && backlog) {
        backlog = false;
        void deliverDue(false).catch((error) => deps.log.error({ err: error }, 'mail delivery crashed'));
      }
    }
  }

  /**
   * Claim due mail while this node has room and deliver it; `wait`: resolve once those deliveries
   * are over (a pass), else return once they are started.
   */
  async function deliverDue(wait: boolean): Promise<void> {
    // A stopping node claims nothing more (what it hands back would come straight back to it).
    while (!stopping) {
      const room = capacity - inFlight.size - reserved;
      if (room <= 0) {
        backlog = true;
        return;
      }
      const rows = await repo.claimDue(
        nodeId,
        deps.clock.now(),
        leases.until(),
        Math.min(room, 50),
        transport === null,
        deps.outbound !== undefined,
      );
      if (rows.length === 0) return;
      const started = rows.map((row) => deliver(row));
      if (wait) await Promise.all(started);
    }
  }

  /** Connections promised to mails being stored already claimed (`reserve`), not yet in flight. */
  let reserved = 0;
  /** Their bytes. */
  let reservedBytes = 0;

  /** Has a way out here for a tenant's mail (without a relay, only its own next hop is one). */
  async function routable(tenantId: string | null | undefined, kind?: string): Promise<boolean> {
    if (kind === OUTBOUND_KIND) return deps.outbound !== undefined;
    if (transport) return true;
    return Boolean(tenantId && deps.nextHopOf && (await deps.nextHopOf(tenantId)));
  }

  /**
   * Claim a stored mail and deliver it. `tenantId`, when the caller knows it: a node without a
   * relay delivers at once to a tenant's own next hop; otherwise its next pass finds the mail.
   */
  function startDelivery(id: string, tenantId?: string | null, kind?: string): void {
    // A stopped node leaves it queued for the other nodes (or its own next start).
    if (!delivering || stopping) return;
    // No room: the mail stays queued for the next free connection (or the next pass).
    if (inFlight.size + reserved >= capacity) {
      backlog = true;
      return;
    }
    void routable(tenantId, kind)
      .then((ok) => (ok ? repo.claimOne(id, nodeId, deps.clock.now(), leases.until()) : null))
      .then((row) => (row ? deliver(row) : undefined))
      .catch((error) => deps.log.error({ err: error, outboxId: id }, 'mail delivery crashed'));
  }

  /** Store the mail (at most once per idempotency key), then deliver it unless inside a transaction. */
  async function sendMail(mail: OutgoingMail, tx?: DbOrTx): Promise<string> {
    // Relayed mail keeps its own envelope sender. Moat's own mail, and a message it sends again
    // (a release) without one, come from the tenant's sender.
    // A notice about the tenant's own outbound mail, from the null sender, still comes From the
    // tenant's address; one about relayed inbound mail goes to an outside sender (maybe forged)
    // and keeps the deployment's, unsigned.
    const notice = mail.envelopeFrom === '' && mail.aboutOwnMail === true;
    const sender =
      mail.tenantId && (mail.envelopeFrom === undefined || notice) && deps.senderOf
        ? await deps.senderOf(mail.tenantId, tx)
        : null;
    const id = await repo.insert(
      {
        tenantId: mail.tenantId,
        kind: mail.kind,
        fromName: notice ? mail.fromName : (sender?.name ?? mail.fromName),
        fromAddress: sender?.address ?? null,
        toAddress: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        raw: mail.raw ?? null,
        status: 'queued',
        envelopeFrom: mail.envelopeFrom ?? null,
        idempotencyKey: mail.idempotencyKey ?? null,
      },
      tx,
    );
    // Already queued under this idempotency key: the same mail, once.
    if (!id) return (await repo.idByKey(mail.idempotencyKey ?? '', tx))!;
    // Inside a transaction, delivery waits for the commit (`deliverStored`).
    if (tx) return id;
    if (!(await routable(mail.tenantId, mail.kind))) {
      deps.log.info(
        { outboxId: id, to: mail.to, kind: mail.kind, subject: mail.subject },
        'mail queued in the outbox; this process has no SMTP_RELAY_URL, a node with one sends it',
      );
      return id;
    }
    startDelivery(id, mail.tenantId, mail.kind);
    return id;
  }

  /**
   * Bounced mail: for relayed mail the original sender gets a delivery-failure notice (sent with
   * an empty envelope sender, as bounces are).
   */
  async function bounce(rows: OutboxRow[]): Promise<void> {
    for (const row of rows) {
      deps.log.warn({ outboxId: row.id, to: row.toAddress, err: row.lastError }, 'mail bounced');
      if (!row.envelopeFrom) continue;
      const text = [
        `Your message to ${row.toAddress} could not be delivered after ${row.attempts} attempt(s).`,
        `Subject: ${row.subject || '(no subject)'}`,
        `Last error: ${row.lastError ?? 'unknown'}`,
      ].join('\n');
      await sendMail({
        tenantId: row.tenantId,
        kind: 'bounce',
        to: row.envelopeFrom,
        fromName: 'Mail Delivery System',
        subject: `Undelivered Mail: ${row.subject || '(no subject)'}`,
        text,
        html: '',
        envelopeFrom: '',
        idempotencyKey: `bounce:${row.id}`,
        aboutOwnMail: row.kind === OUTBOUND_KIND,
      });
    }
  }

  /** Relayed mail undelivered for DELAY_NOTICE_AFTER_MS: its sender is told once that it is delayed. */
  async function noticeDelays(now: Date): Promise<void> {
    const rows = await repo.takeDelayed(new Date(now.getTime() - DELAY_NOTICE_AFTER_MS), now, 100);
    const days = Math.round(retryWindowMs / 86_400_000);
    for (const row of rows) {
      await sendMail({
        tenantId: row.tenantId,
        kind: 'delay_notice',
        to: row.envelopeFrom!,
        fromName: 'Mail Delivery System',
        subject: `Delayed Mail (still being retried): ${row.subject || '(no subject)'}`,
        text: [
          `Your message to ${row.toAddress} has not been delivered yet. This is a warning only:`,
          `delivery will be retried for up to ${days} day(s) after it was sent; you do not need to send it again.`,
          `Subject: ${row.subject || '(no subject)'}`,
          `Last error: ${row.lastError ?? 'unknown'}`,
        ].join('\n'),
        html: '',
        envelopeFrom: '',
        idempotencyKey: `delay:${row.id}`,
        aboutOwnMail: row.kind === OUTBOUND_KIND,
      });
    }
  }

  /**
   * One pass: bounce what is past the retry window, tell senders of long-delayed mail, then claim
   * and deliver what is due, as many at a time as the relay allows.
   */
  async function drain(): Promise<void> {
    if (!delivering) return;
    const now = deps.clock.now();
    for (;;) {
      const ids = await repo.expired(new Date(now.getTime() - retryWindowMs), 100);
      if (ids.length === 0) break;
      await bounce(await repo.markBounced(ids, null));
    }
    await noticeDelays(now);
    await deliverDue(true);
  }

  return {
    /**
     * Store the mail, then deliver it in the background. Resolves once it is stored. Inside a
     * transaction (`tx`), delivery starts only when `deliverStored` is called after the commit.
     */
    send: sendMail,
    /** Start delivering a mail stored inside a transaction, once that transaction committed. */
    deliverStored: (id: string, tenantId?: string | null, kind?: string) => startDelivery(id, tenantId, kind),
    /**
     * Room on this delivering node for `count` mails of `bytes` each, stored already claimed by it
     * (status `sending`, lease until `leaseUntil()`, first attempt counted) and handed over from
     * memory with `deliverClaimed`: no claim statement, no reading the bytes back. False: store them
     * queued and call `deliverStored`. Each reserved mail is handed over or `release`d.
     */
    reserve(count: number, bytes: number): boolean {
      if (!transport || !started || inFlight.size + reserved + count > handOffCapacity) return false;
      // Mail waits in the table (a retry, Moat's own mail, one the byte bound turned away): the
      // connections go to it first, so new mail cannot keep it waiting.
      if (backlog) return false;
      const held = heldBytes + reservedBytes;
      // One message however big when nothing else is held; otherwise within the byte bound.
      if (held > 0 && held + count * bytes > HAND_OFF_BYTES) return false;
      reserved += count;
      reservedBytes += count * bytes;
      return true;
    },
    release(count: number, bytes: number): void {
      reserved -= count;
      reservedBytes -= count * bytes;
      if (started && backlog && reserved + inFlight.size < capacity) {
        backlog = false;
        void deliverDue(false).catch((error) => deps.log.error({ err: error }, 'mail delivery crashed'));
      }
    },
    leaseUntil: () => leases.until(),
    deliverClaimed(row: DeliveryRow): void {
      reserved -= 1;
      reservedBytes -= row.raw?.length ?? 0;
      void deliver(row).catch((error) =>
        deps.log.error({ err: error, outboxId: row.id }, 'mail delivery crashed'),
      );
    },

    /**
     * Start delivering in the background (the server does; tests call drain() themselves).
     * `ownsDatabase`: the embedded database belongs to this process alone, so mail a previous
     * run left `sending` is due at once; on a shared database it waits for its lease to expire.
     */
    async start(options: { intervalMs?: number; ownsDatabase?: boolean; previousNode?: string | null } = {}) {
      if (!delivering || started) return;
      started = true;
      stopping = false;
      // What the relay accepted just before a crash is sent already: record it before retrying.
      if (journal) {
        const accepted = journal.drain();
        for (let i = 0; i < accepted.length; i += 500)
          await repo.markSent(accepted.slice(i, i + 500), deps.clock.now());
      }
      if (options.ownsDatabase) await repo.releaseAllLeases();
      // This node's previous run is gone: the mail it held is due now, not when its leases run out.
      else if (options.previousNode) await repo.releaseLeasesOf(options.previousNode);
      passes.start(options.intervalMs ?? 5_000, { now: true });
      // Mail this node is still sending stays its own: leases renewed well before they run out.
      leases.start();
    },
    async stop() {
      started = false;
      stopping = true;
      // Mail waiting for a connection is handed back at once (due for the other nodes); mail on
      // its way to the relay finishes (for a while): a message is not cut off mid-DATA, and what
      // the relay accepted is marked sent. What is left keeps its lease until it runs out.
      transport?.close();
      deps.outbound?.close();
      for (const { relay } of hops.values()) relay.close();
      const stopped = passes.stop();
      const until = Date.now() + STOP_WAIT_MS;
      while (inFlight.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      hops.clear();
      await stopped;
      await sent.flush();
      await leases.stop();
    },
    drain,
  };
}
export type Mailer = ReturnType<typeof createMailer>;
