import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessages, mailLog, outbox, quarantineMessages, securityEvents } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { MALFORMED_CORPUS } from './malformed-corpus.ts';
import { MAX_PROCESSING_ATTEMPTS } from './processor.ts';

/** DNS for tests: no records anywhere, answered at once. */
const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

const RECIPIENT = 'ana@acme.test';
/** Longest wait between two processing passes is 16 min: each round steps past it. */
const ROUND_STEP_MS = 20 * 60_000;
const MAX_ROUNDS = 10;

/** The door's answer to each case that must be refused (issue 9 "Refuse at the door"). */
const MUST_REFUSE: Record<string, RegExp> = {
  'nul-in-header': /^554 5\.6\.0 /,
  'nul-in-body': /^554 5\.6\.0 /,
  'header-line-1mb': /^55[24] /,
  'header-line-999': /^554 /,
  'headers-20000-short': /^5\d\d /,
  'headers-1001': /^552 /,
  'header-folded-300k': /^552 5\.3\.4 /,
  'content-type-param-10kb-one-line': /^554 /,
  'multipart-nested-21': /^554 /,
  'multipart-nested-100': /^554 /,
  'parts-600': /^552 /,
  'received-51': /^554 5\.4\.6 /,
  // Read one way by the checks and another by the mailbox: refused rather than guessed at.
  'duplicate-from-subject-content-type': /^550 5\.6\.0 .*more than one From/,
  'from-1000-addresses': /^550 5\.6\.0 .*From header field holds more than one address/,
  'bare-lf': /^550 5\.6\.0 Bare CR or LF in the message header/,
  'bare-cr': /^550 5\.6\.0 Bare CR or LF in the message header/,
  'cte-binary-8bit-body': /^550 5\.6\.0 Bare CR in the message body/,
};
/** Cases just inside a limit: they must be let in (and then processed or failed like any other). */
const MUST_ACCEPT = [
  'header-line-998',
  'headers-1000',
  'multipart-nested-19',
  'encoded-word-nul',
  'received-50',
];

interface Outcome {
  name: string;
  /** The reply at the end of DATA, or what happened instead ('timeout', 'closed', an earlier refusal). */
  reply: string;
  code: number;
  doorMs: number;
  /** The longest the event loop stood still while the door took the message. */
  doorBlockMs: number;
  inboundId: string | null;
  /** Set once processing is over for an accepted case. */
  status?: string;
  attempts?: number;
  firstPassMs?: number;
  /** The longest the event loop stood still during that pass: the whole process (door, API) waits. */
  firstPassBlockMs?: number;
  action?: string;
  verdict?: string;
  lastError?: string | null;
}

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
const clock = new ManualClock();
const outcomes: Outcome[] = [];
let rounds = 0;
let retryRoundsMs = 0;
let retryRoundsBlockMs = 0;

/** SMTP dot-stuffing (RFC 5321 §4.5.2) exactly where smtp-server removes it, and the terminator. */
function dataOf(raw: Buffer): Buffer {
  const pieces: Buffer[] = [];
  let from = 0;
  if (raw[0] === 0x2e) {
    pieces.push(Buffer.from('.'));
  }
  for (let at = raw.indexOf('\n.'); at !== -1; at = raw.indexOf('\n.', at + 1)) {
    pieces.push(raw.subarray(from, at + 1), Buffer.from('.'));
    from = at + 1;
  }
  pieces.push(raw.subarray(from));
  const endsWithCrlf = raw.length >= 2 && raw[raw.length - 2] === 13 && raw[raw.length - 1] === 10;
  pieces.push(Buffer.from(endsWithCrlf ? '.\r\n' : '\r\n.\r\n'));
  return Buffer.concat(pieces);
}

/**
 * One message over a raw socket, so the bytes go exactly as built (nodemailer would rewrite
 * them). Resolves with the reply to the end of DATA, or to the step that refused.
 */
function smtpSend(raw: Buffer, timeoutMs = 30_000): Promise<{ code: number; reply: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const steps: Array<{ send: string | Buffer | null; expect: number }> = [
      { send: null, expect: 220 },
      { send: 'EHLO client.test\r\n', expect: 250 },
      { send: 'MAIL FROM:<bob@outside.test>\r\n', expect: 250 },
      { send: `RCPT TO:<${RECIPIENT}>\r\n`, expect: 250 },
      { send: 'DATA\r\n', expect: 354 },
      { send: dataOf(raw), expect: 0 },
    ];
    let step = 0;
    let buffer = '';
    let lines: string[] = [];
    let settled = false;
    const finish = (code: number, reply: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!socket.destroyed) socket.end('QUIT\r\n');
      resolve({ code, reply });
    };
    const timer = setTimeout(() => {
      finish(0, `timeout after ${timeoutMs} ms at step ${step}`);
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk) => {
      if (settled) return;
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n'); end !== -1; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        lines.push(line);
        if (!/^\d{3} /.test(line)) continue; // a multi-line reply goes on
        const code = Number(line.slice(0, 3));
        const reply = lines.join(' | ');
        lines = [];
        const current = steps[step]!;
        if (current.expect === 0 || code !== current.expect) return finish(code, reply);
        step += 1;
        socket.write(steps[step]!.send!);
      }
    });
    socket.on('error', (error) => finish(0, `socket error: ${error.message}`));
    socket.on('close', () => finish(0, `closed without a reply at step ${step}`));
  });
}

const processor = () => t.app.services.gateway.processor;

/** Wall time of `work` and the longest the event loop stood still meanwhile (figures, not assertions). */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; blockMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const started = performance.now();
  const result = await work();
  const ms = Math.round(performance.now() - started);
  // Let the monitor's late timer fire, so a stall at the very end is counted.
  await new Promise((resolve) => setTimeout(resolve, 25));
  loop.disable();
  return { result, ms, blockMs: Math.round(loop.max / 1e6) };
}

const timedDrain = () => timed(() => processor().drain());

async function inboundRow(id: string) {
  const [row] = await t.db
    .select({
      status: inboundMessages.status,
      attempts: inboundMessages.attempts,
      lastError: inboundMessages.lastError,
    })
    .from(inboundMessages)
    .where(eq(inboundMessages.id, id));
  return row!;
}

const accepted = () => outcomes.filter((o) => o.inboundId);
const outcomeOf = (name: string) => outcomes.find((o) => o.name === name)!;

function printTable() {
  const cell = (value: string | number, width: number) => String(value).slice(0, width).padEnd(width);
  const rows = outcomes.map((o) => {
    const door = o.reply
      .replace(/\s*Ok: queued as [0-9a-f-]{36}/, ' queued')
      .replace('Message refused: ', '');
    const after = !o.inboundId
      ? '-'
      : o.status === 'failed'
        ? `failed after ${o.attempts}: ${(o.lastError ?? '').slice(0, 40)}`
        : `${o.status} → ${o.action ?? '-'} (${o.verdict ?? '-'})`;
    const pass = o.firstPassMs === undefined ? '' : `${o.firstPassMs}/${o.firstPassBlockMs}`;
    return `${cell(o.name, 38)} ${cell(door, 62)} ${cell(`${o.doorMs}/${o.doorBlockMs}`, 11)} ${cell(pass, 12)} ${after}`;
  });
  console.log(
    [
      `Malformed corpus: ${outcomes.length} cases, ${accepted().length} accepted, ${outcomes.length - accepted().length} refused at DATA; ${rounds} retry rounds: ${retryRoundsMs} ms, event loop blocked up to ${retryRoundsBlockMs} ms`,
      `${cell('case', 38)} ${cell('reply at end of DATA', 62)} ${cell('door ms/blk', 11)} ${cell('1st pass/blk', 12)} final state`,
      ...rows,
    ].join('\n'),
  );
}

beforeAll(async () => {
  t = await buildTestApp({ clock, dnsResolver: noDns as never, env: { SMTP_HOSTNAME: 'mx.moat.test' } });
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  await buildUser(t.db, tenant.id, { email: RECIPIENT, firstName: 'Ana', lastName: 'Lopez' });
  smtp = testSmtpIn(
    { db: t.db, clock, log: t.app.log },
    { maxMessageBytes: 26 * 1024 * 1024, maxMessagesPerMinute: 100_000 },
  );
  port = await smtp.listen(0, '127.0.0.1');

  for (const entry of MALFORMED_CORPUS) {
    const raw = entry.raw();
    const door = await timed(() => smtpSend(raw));
    const { code, reply } = door.result;
    const outcome: Outcome = {
      name: entry.name,
      code,
      reply,
      doorMs: door.ms,
      doorBlockMs: door.blockMs,
      inboundId: code === 250 ? (/queued as ([0-9a-f-]{36})/.exec(reply)?.[1] ?? null) : null,
    };
    outcomes.push(outcome);
    if (!outcome.inboundId) continue;
    // The first pass of this case alone, timed (a figure for the report, not an assertion).
    const pass = await timedDrain();
    outcome.firstPassMs = pass.ms;
    outcome.firstPassBlockMs = pass.blockMs;
  }

  // Failed passes wait 15 s, 1, 4, 16 min: step the clock past each and process again.
  const stillReceived = async () =>
    (
      await t.db
        .select({ id: inboundMessages.id })
        .from(inboundMessages)
        .where(eq(inboundMessages.status, 'received'))
    ).length;
  while (rounds < MAX_ROUNDS && (await stillReceived()) > 0) {
    rounds += 1;
    clock.advance(ROUND_STEP_MS);
    const round = await timedDrain();
    retryRoundsMs += round.ms;
    retryRoundsBlockMs = Math.max(retryRoundsBlockMs, round.blockMs);
  }

  for (const outcome of accepted()) {
    const row = await inboundRow(outcome.inboundId!);
    outcome.status = row.status;
    outcome.attempts = row.attempts;
    outcome.lastError = row.lastError;
    const [log] = await t.db
      .select({ action: mailLog.action, verdict: mailLog.verdict })
      .from(mailLog)
      .where(eq(mailLog.inboundId, outcome.inboundId!));
    outcome.action = log?.action;
    outcome.verdict = log?.verdict;
  }
  printTable();
}, 240_000);

afterAll(async () => {
  await smtp?.close();
  await t?.close();
});

describe('SMTP gateway: a corpus of malformed and hostile mail', () => {
  it(`holds at least 45 distinct cases`, () => {
    expect(MALFORMED_CORPUS.length).toBeGreaterThanOrEqual(45);
    expect(new Set(MALFORMED_CORPUS.map((c) => c.name)).size).toBe(MALFORMED_CORPUS.length);
  });

  it('answers every case at the end of DATA with 250 or a 5xx: never a 4xx, a timeout or a dropped connection', () => {
    const odd = outcomes.filter((o) => !(o.code === 250 || (o.code >= 500 && o.code < 600)));
    expect(odd.map((o) => `${o.name}: ${o.reply}`)).toEqual([]);
    // Every 250 names the stored message.
    expect(outcomes.filter((o) => o.code === 250 && !o.inboundId)).toEqual([]);
  });

  it('refuses what is over a limit with a 5xx and lets in what is just within it', () => {
    for (const [name, reply] of Object.entries(MUST_REFUSE)) {
      expect(outcomeOf(name).reply, name).toMatch(reply);
    }
    for (const name of MUST_ACCEPT) expect(outcomeOf(name).code, name).toBe(250);
  });

  it('ends every accepted case processed or failed, none left received', () => {
    expect(rounds).toBeLessThanOrEqual(MAX_ROUNDS);
    const stuck = accepted().filter((o) => o.status !== 'processed' && o.status !== 'failed');
    expect(stuck.map((o) => `${o.name}: ${o.status} after ${o.attempts} attempts (${o.lastError})`)).toEqual(
      [],
    );
  });

  it('records a processed case in Mail Explorer, and holds a failed one unscanned with its event and a failed row, delivering nothing', async () => {
    for (const outcome of accepted()) {
      const id = outcome.inboundId!;
      const logs = await t.db.select().from(mailLog).where(eq(mailLog.inboundId, id));
      const deliveries = await t.db
        .select({ kind: outbox.kind })
        .from(outbox)
        .where(eq(outbox.idempotencyKey, `${id}:${RECIPIENT}`));
      if (outcome.status === 'processed') {
        expect(
          logs.map((l) => l.action),
          outcome.name,
        ).toHaveLength(1);
        expect(logs[0]!.action, outcome.name).not.toBe('failed');
        continue;
      }
      expect(outcome.attempts, outcome.name).toBeGreaterThanOrEqual(MAX_PROCESSING_ATTEMPTS);
      const held = await t.db
        .select({ id: quarantineMessages.id, state: quarantineMessages.state })
        .from(quarantineMessages)
        .where(eq(quarantineMessages.failedInboundId, id));
      expect(held, outcome.name).toEqual([{ id: expect.any(String), state: 'quarantined' }]);
      const events = await t.db
        .select()
        .from(securityEvents)
        .where(eq(securityEvents.messageId, held[0]!.id));
      expect(events, outcome.name).toHaveLength(1);
      expect(events[0], outcome.name).toMatchObject({ type: 'failure', details: { inbound_id: id } });
      expect(
        logs.map((l) => l.action),
        outcome.name,
      ).toEqual(['failed']);
      expect(deliveries, outcome.name).toEqual([]);
    }
  });

  it('removes an Authentication-Results field that claims to be this gateway before delivering', async () => {
    // RFC 8601 §5: an MTA must delete Authentication-Results fields bearing its own authserv-id
    // that it did not add; otherwise the forged "dmarc=pass header.from=bank.test" reaches the mailbox.
    const forged = outcomeOf('authentication-results-forged');
    expect(forged.status).toBe('processed');
    const [delivery] = await t.db
      .select({ raw: outbox.raw })
      .from(outbox)
      .where(eq(outbox.idempotencyKey, `${forged.inboundId}:${RECIPIENT}`));
    const raw = Buffer.from(delivery!.raw!).toString('latin1');
    expect(raw.match(/^Authentication-Results:\s*mx\.moat\.test\s*;/gim)).toHaveLength(1);
    expect(raw).not.toContain('dmarc=pass header.from=bank.test');
  });

  it('still takes and delivers a clean message after the whole corpus', async () => {
    const { code, reply } = await smtpSend(
      Buffer.from(
        'From: Bob <bob@outside.test>\r\nTo: ana@acme.test\r\nSubject: After the storm\r\nDate: Mon, 03 Mar 2025 10:00:00 +0000\r\nMessage-ID: <after@outside.test>\r\n\r\nAll quiet now.\r\n',
      ),
    );
    expect(code).toBe(250);
    const id = /queued as ([0-9a-f-]{36})/.exec(reply)![1]!;
    await processor().drain();
    expect((await inboundRow(id)).status).toBe('processed');
    const [delivery] = await t.db
      .select({ kind: outbox.kind, toAddress: outbox.toAddress })
      .from(outbox)
      .where(and(eq(outbox.idempotencyKey, `${id}:${RECIPIENT}`), eq(outbox.kind, 'gateway_delivery')));
    expect(delivery).toEqual({ kind: 'gateway_delivery', toAddress: RECIPIENT });
  });
});

/*
 * Defects the corpus found, each fixed and kept here as a regression test; the comments say what
 * was wrong.
 */
describe('SMTP gateway: defects the malformed corpus found', () => {
  it('answers 552 to a header block over 256 KiB, as the limit says', () => {
    // Was: message-checks.ts gave the splitter maxHeadSize = 256 KiB + 1, so the splitter errored
    // ("Max header size for a MIME node exceeded") before checkHeaderBlock sees the block: the
    // 552 branch for an oversized block is never reached and the answer is 554 "malformed MIME".
    // (headers-20000-short and header-line-1mb get the same 554 for the same reason.)
    expect(outcomeOf('header-folded-300k').reply).toMatch(/^552 5\.3\.4 /);
  });

  it('processes an HTML-only message of deeply nested or unclosed tags, instead of parking it after passes that freeze the process', () => {
    // Was: parse.ts called simpleParser without skipHtmlToText: for an HTML-only message mailparser runs
    // html-to-text, whose htmlparser2 keeps its open-element stack with Array#unshift (O(depth)
    // per tag, so O(n²) in nesting) and whose selderee builder then recurses per level:
    //   RangeError: Maximum call stack size exceeded
    //     at Array.flatMap / @selderee/plugin-htmlparser2/lib/hp2-builder.cjs:12:38
    // mailparser turns it into 'Failed to parse HTML' and rejects. Every pass is synchronous and
    // grows with the square of the depth (25,000: 0.3 s, 50,000: 2.5 s, 100,000 nested tags in
    // 1.1 MB: ~9 s, five passes), so a 25 MB body would freeze the node for hours; and any
    // HTML-only message nested deeper than ~4,000 levels can never be processed.
    for (const name of ['html-100000-nested-tags', 'html-30000-unclosed-tags']) {
      expect(outcomeOf(name).status, name).toBe('processed');
    }
  });

  it('finds EICAR in a zip whose headers under-state its unpacked size, and does not pass such a bomb as clean', () => {
    // Was: anti-malware.ts budgeted archives by the sizes the zip declares (file.originalSize) and
    // fflate's unzipSync inflates each entry into a buffer of exactly that declared size: an entry
    // that claims 1,000 bytes is inflated in full (synchronous CPU, ~5 s per MB of deflated zip)
    // but only its first 1,000 bytes are kept and inspected. EICAR (or a blocklisted file, whose
    // SHA-256 is then taken over the truncated bytes) past them is never seen, and the zip bomb
    // the honest headers get flagged for is delivered clean.
    expect(outcomeOf('zip-bomb').verdict).toBe('suspicious');
    expect(outcomeOf('zip-eicar-understated-size').verdict).toBe('malware');
    expect(outcomeOf('zip-bomb-lying-sizes').verdict).not.toBe('clean');
  });
});
