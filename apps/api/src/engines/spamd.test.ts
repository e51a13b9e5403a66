import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonInput, type RunningDaemon, skipReason, startSpamd } from '../test/daemons/spamd.ts';
import { freePort } from '../test/ports.ts';
import { createSpamd, parseReportRules, SPAMD_MAX_MESSAGE_BYTES, spamAssassinKnowledge } from './spamd.ts';
import { DEFAULT_SPAM_THRESHOLDS } from './types.ts';

/** SpamAssassin's own test string: its GTUBE rule scores 1000. */
const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

const message = (id: string, body: string) =>
  Buffer.from(
    [
      'From: Bob Example <bob@outside.example>',
      'To: Ana <ana@acme.example>',
      `Subject: Minutes of ${id}`,
      `Message-ID: <${id}@outside.example>`,
      'Date: Mon, 2 Jun 2025 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      body,
      '',
    ].join('\r\n'),
  );
const ham = (id: string) =>
  message(id, 'Hi Ana,\r\n\r\nthe minutes of Monday are below. Next meeting on Thursday at ten.\r\n\r\nBob');

/** A server that accepts and then does what `onConnection` says (nothing: a hung daemon). */
async function fakeDaemon(onConnection: (socket: net.Socket) => void = () => {}) {
  const server = net.createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

// Locally a missing spamd skips these tests; in CI, startup fails naming the package.
const skip = skipReason('spamd', 'spamassassin');
if (skip) console.warn(`Skipping the spamd tests: ${skip}`);

describe.skipIf(skip !== null)('SpamAssassin through spamd', () => {
  let spamd: RunningDaemon;
  beforeAll(async () => {
    spamd = await startSpamd();
  });
  afterAll(() => spamd?.stop());

  it('answers spam for GTUBE, with the GTUBE rule, its score and description', async () => {
    const engine = createSpamd({ url: spamd.url });
    const [finding, ...rest] = await engine.scan(
      await daemonInput(message('gtube-1', `This is GTUBE:\r\n${GTUBE}`)),
    );
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      engine: 'spamassassin',
      verdict: 'spam',
      reason: 'SpamAssassin: score 1000.0',
    });
    expect(finding!.score).toBeGreaterThanOrEqual(1000);
    expect(finding!.rules).toContainEqual({
      name: 'GTUBE',
      score: 1000,
      description: 'BODY: Generic Test for Unsolicited Bulk Email',
    });
  });

  it('returns a clean finding with the score for an ordinary message (it explains the verdict)', async () => {
    const engine = createSpamd({ url: spamd.url });
    const [finding] = await engine.scan(await daemonInput(ham('ham-1')));
    expect(finding).toMatchObject({ engine: 'spamassassin', verdict: 'clean' });
    expect(finding!.score).toBeLessThan(DEFAULT_SPAM_THRESHOLDS.suspicious);
    expect(finding!.reason).toBe(`SpamAssassin: score ${finding!.score!.toFixed(1)}`);
    expect(Array.isArray(finding!.rules)).toBe(true);
  });

  it("takes the verdict from the tenant's thresholds, not spamd's required score", async () => {
    const engine = createSpamd({ url: spamd.url });
    const raw = message('gtube-2', GTUBE);
    const [finding] = await engine.scan({
      ...(await daemonInput(raw)),
      spamThresholds: { suspicious: 500, spam: 2000 },
    });
    expect(finding!.verdict).toBe('suspicious');
  });

  it('learns a message through TELL once, then answers that it already knew it', async () => {
    const engine = createSpamd({ url: spamd.url });
    const raw = message('tell-1', 'Cheap watches, best prices, click now to order today!');
    expect(await engine.learn(raw, 'spam')).toBe('learned');
    expect(await engine.learn(raw, 'spam')).toBe('already');
    expect(await engine.learn(raw, 'ham')).toBe('learned');
  });

  it('says what it knew: its Bayes not trained (no BAYES_ test in its report), its lookups not run (-L)', async () => {
    const engine = createSpamd({ url: spamd.url });
    const [finding] = await engine.scan(await daemonInput(ham('knows-1')));
    expect(finding!.rules!.some((r) => r.name.startsWith('BAYES_'))).toBe(false);
    expect(finding!.knowledge).toEqual({ bayes: 'untrained', lookups: 'unknown' });
  });

  it('answers PING', async () => {
    await expect(createSpamd({ url: spamd.url.replace('spamd:', 'tcp:') }).ping()).resolves.toBeUndefined();
  });
});

describe.skipIf(skip !== null)("SpamAssassin's Bayes once trained", () => {
  let spamd: RunningDaemon;
  // Its Bayes judges after 3 learns of each class here (SpamAssassin's default is 200).
  beforeAll(async () => {
    spamd = await startSpamd({ cf: ['bayes_min_spam_num 3', 'bayes_min_ham_num 3'] });
  });
  afterAll(() => spamd?.stop());

  it('rates every message with a BAYES_ test, and the finding says its Bayes is trained', async () => {
    const engine = createSpamd({ url: spamd.url });
    const spam = (n: number) =>
      message(
        `prize-${n}`,
        `Congratulations winner ${n}! Claim your cash prize lottery reward now: send your bank account details and a processing fee today to receive the million dollar jackpot transfer.`,
      );
    const meeting = (n: number) =>
      message(
        `minutes-${n}`,
        `Hi team, the minutes of meeting ${n} are below. We agreed to review the quarterly budget next week and to move the design workshop to Thursday afternoon. Thanks, Bob`,
      );
    for (let n = 1; n <= 4; n++) {
      expect(await engine.learn(spam(n), 'spam')).toBe('learned');
      expect(await engine.learn(meeting(n), 'ham')).toBe('learned');
    }
    const [judged] = await engine.scan(await daemonInput(spam(99)));
    const bayes = judged!.rules!.filter((r) => /^BAYES_\d+$/.test(r.name));
    expect(bayes.length).toBeGreaterThan(0);
    expect(bayes[0]!.score).toBeGreaterThan(0);
    expect(judged!.knowledge).toEqual({ bayes: 'trained', lookups: 'unknown' });
  });
});

describe('spamAssassinKnowledge', () => {
  it('knows its lookups ran from a network test that hit', () => {
    const rule = (name: string, score: number) => ({ name, score, description: '' });
    expect(spamAssassinKnowledge([rule('RCVD_IN_DNSWL_HI', -5), rule('BAYES_00', -1.9)])).toEqual({
      bayes: 'trained',
      lookups: 'reached',
    });
    expect(spamAssassinKnowledge([rule('SPF_PASS', -0.001)]).lookups).toBe('reached');
    expect(spamAssassinKnowledge([rule('HTML_MESSAGE', 0)])).toEqual({
      bayes: 'untrained',
      lookups: 'unknown',
    });
  });
});

describe('SpamAssassin through spamd, without spamd', () => {
  it('skips a message over 500 KB without sending it, as spamc does, and says so', async () => {
    const port = await freePort(); // nothing listens: the message must not be sent
    const engine = createSpamd({ url: `spamd://127.0.0.1:${port}` });
    const raw = message(
      'big-1',
      'a'
        .repeat(70)
        .concat('\r\n')
        .repeat(Math.ceil(SPAMD_MAX_MESSAGE_BYTES / 72) + 1),
    );
    expect(raw.length).toBeGreaterThan(SPAMD_MAX_MESSAGE_BYTES);
    const findings = await engine.scan(await daemonInput(raw));
    expect(findings).toEqual([
      {
        engine: 'spamassassin',
        verdict: 'clean',
        reason: expect.stringMatching(/^SpamAssassin: not scanned, \d+ KB is over spamd's 500 KB limit/),
      },
    ]);
  });

  it('throws when spamd is unreachable', async () => {
    const port = await freePort();
    const engine = createSpamd({ url: `spamd://127.0.0.1:${port}` });
    await expect(engine.scan(await daemonInput(ham('down-1')))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('throws when spamd does not answer in time', async () => {
    const hung = await fakeDaemon();
    try {
      const engine = createSpamd({ url: `spamd://127.0.0.1:${hung.port}`, timeoutMs: 200 });
      await expect(engine.scan(await daemonInput(ham('hung-1')))).rejects.toThrow(
        /did not answer within 200 ms/,
      );
    } finally {
      hung.close();
    }
  });

  it('throws on an answer larger than a report can be', async () => {
    const chatty = await fakeDaemon((socket) =>
      socket.end(`SPAMD/1.1 0 EX_OK\r\n\r\n${'x'.repeat(300_000)}`),
    );
    try {
      const engine = createSpamd({ url: `spamd://127.0.0.1:${chatty.port}` });
      await expect(engine.scan(await daemonInput(ham('chatty-1')))).rejects.toThrow(/answer is over/);
    } finally {
      chatty.close();
    }
  });

  it('is off, saying why, without SPAMD_URL', async () => {
    const engine = createSpamd({ url: undefined });
    expect(engine).toMatchObject({ status: 'off', detail: 'SPAMD_URL is not set', tool: 'anti_spam' });
    expect(await engine.scan(await daemonInput(ham('off-1')))).toEqual([]);
  });
});

describe('parseReportRules', () => {
  it('reads wrapped descriptions, skips rule logs and ignores a preview posing as rules', () => {
    const report = [
      'Content preview:  Content analysis details: ',
      '   ---- ---- ----',
      '   1000 FAKE_RULE  from the sender',
      '',
      'Content analysis details:   (7.3 points, 5.0 required)',
      '',
      ' pts rule name              description',
      '---- ---------------------- --------------------------------------------------',
      ' 2.5 URIBL_SOMETHING        URI: Contains an URL listed in a blocklist that is',
      '                            rather long to wrap',
      '                            [URIs: spam.example]',
      '-0.0 NO_RELAYS              Informational: message was not relayed via SMTP',
      '  12 LOCAL_RULE_WITH_A_VERY_LONG_NAME Words',
      '',
    ].join('\n');
    expect(parseReportRules(report)).toEqual([
      {
        name: 'URIBL_SOMETHING',
        score: 2.5,
        description: 'URI: Contains an URL listed in a blocklist that is rather long to wrap',
      },
      { name: 'NO_RELAYS', score: 0, description: 'Informational: message was not relayed via SMTP' },
      { name: 'LOCAL_RULE_WITH_A_VERY_LONG_NAME', score: 12, description: 'Words' },
    ]);
  });
});
