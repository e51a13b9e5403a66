import fs from 'node:fs';
import { domainToASCII } from 'node:url';
import { deflateSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedMessage } from '../mail/parse.ts';
import { sha256 } from '../mail/parse.ts';
import { type RspamdDaemon, startRspamd } from '../test/daemons/rspamd.ts';
import { createAntiMalware, OFF_THREAD_ARCHIVE_BYTES, scanAttachments } from './anti-malware.ts';
import { createAntiPhishing, editDistance, lookalikeOf } from './anti-phishing.ts';
import { createAntiSpam } from './anti-spam.ts';
import { createScanPool } from './scan-pool.ts';
import { DEFAULT_SPAM_THRESHOLDS, type EngineInput } from './types.ts';

function input(overrides: Partial<ParsedMessage> = {}): EngineInput {
  return {
    parsed: {
      fromAddress: 'bob@outside.test',
      fromName: 'Bob',
      subject: 'Hi',
      messageId: null,
      date: null,
      text: 'Hello',
      html: null,
      attachments: [],
      ...overrides,
    },
    links: [],
    auth: { spf: 'none', dkim: 'none', dmarc: 'none', authenticationResults: '' },
    raw: Buffer.from('Subject: Hi\r\n\r\nHello\r\n'),
    envelope: {
      mailFrom: 'bob@outside.test',
      clientIp: '192.0.2.1',
      helo: 'client.test',
      rcptTo: ['ana@acme.test'],
    },
    tenant: { domains: ['acme.test'], people: [] },
    spamThresholds: DEFAULT_SPAM_THRESHOLDS,
  };
}
const attachment = (filename: string, content: Uint8Array) => ({
  filename,
  contentType: 'application/octet-stream',
  size: content.length,
  sha256: sha256(content),
  content: Buffer.from(content),
});

const EICAR_TEXT = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

describe('anti-malware', () => {
  it('flags a zip whose directory names an entry that reading in file order would not show (a parser differential)', async () => {
    // One stored entry whose declared size swallows the next one: readers that walk the file see
    // readme.txt; unzip tools (the central directory) see invoice.exe.
    const crc = (bytes: Uint8Array) => {
      let c = 0xffffffff;
      for (const byte of bytes) {
        c ^= byte;
        for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
      }
      return (c ^ 0xffffffff) >>> 0;
    };
    const header = (sig: number, size: number, name: string, fields: Array<[number, number, 2 | 4]>) => {
      const b = Buffer.alloc(size);
      b.writeUInt32LE(sig, 0);
      for (const [at, value, width] of fields) {
        if (width === 2) b.writeUInt16LE(value, at);
        else b.writeUInt32LE(value, at);
      }
      return Buffer.concat([b, Buffer.from(name)]);
    };
    const local = (name: string, method: number, sum: number, csize: number, usize: number) =>
      header(0x04034b50, 30, name, [
        [4, 20, 2],
        [8, method, 2],
        [14, sum, 4],
        [18, csize, 4],
        [22, usize, 4],
        [26, name.length, 2],
      ]);
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90), Buffer.from(EICAR_TEXT)]);
    const packed = deflateSync(exe);
    const hidden = Buffer.concat([local('invoice.exe', 8, crc(exe), packed.length, exe.length), packed]);
    const decoy = Buffer.concat([Buffer.from('Hello, see attached.\n'), hidden]);
    const decoyHeader = local('readme.txt', 0, crc(decoy), decoy.length, decoy.length);
    const files = Buffer.concat([decoyHeader, decoy]);
    const directory = header(0x02014b50, 46, 'invoice.exe', [
      [4, 20, 2],
      [6, 20, 2],
      [10, 8, 2],
      [16, crc(exe), 4],
      [20, packed.length, 4],
      [24, exe.length, 4],
      [28, 'invoice.exe'.length, 2],
      [42, decoyHeader.length + 21, 4],
    ]);
    const end = header(0x06054b50, 22, '', [
      [8, 1, 2],
      [10, 1, 2],
      [12, directory.length, 4],
      [16, files.length, 4],
    ]);
    const zip = Buffer.concat([files, directory, end]);
    const findings = await createAntiMalware().scan(input({ attachments: [attachment('docs.zip', zip)] }));
    const reasons = findings.map((f) => f.reason);
    expect(reasons).toContain('docs.zip is an archive whose contents list does not match its entries');
    expect(reasons).toContain('Dangerous file type .exe: docs.zip › invoice.exe');
    expect(findings.length).toBeGreaterThan(0);
  });

  it('finds a blocklisted SHA-256, a macro-enabled document inside a zip, and a disguised executable', async () => {
    const bad = Buffer.from('known bad bytes');
    const engine = createAntiMalware({ blockedSha256: [sha256(bad).toUpperCase()] });
    const docm = zipSync({
      'word/document.xml': new Uint8Array([60]),
      'word/vbaProject.bin': new Uint8Array([1, 2]),
    });
    const findings = await engine.scan(
      input({
        attachments: [
          attachment('report.pdf', bad),
          attachment('contract.docx', docm),
          attachment('photo.jpg', Buffer.from('MZ\x90\x00rest')),
          attachment('notes.txt', Buffer.from('plain words')),
        ],
      }),
    );
    expect(findings.map((f) => `${f.verdict}: ${f.reason}`)).toEqual([
      'malware: Known malware (SHA-256 blocklist) in report.pdf',
      'suspicious: contract.docx carries Office macros',
      'suspicious: photo.jpg is a Windows executable',
    ]);
  });

  it('scans a message with large archives on a worker thread, with the same findings', async () => {
    const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
    // Random bytes do not compress: the archive is past the threshold as sent.
    const noise = Uint8Array.from({ length: OFF_THREAD_ARCHIVE_BYTES + 1_000 }, () =>
      Math.floor(Math.random() * 256),
    );
    const archive = zipSync({ 'data.bin': noise, 'inner/eicar.com': new TextEncoder().encode(EICAR) });
    expect(archive.length).toBeGreaterThanOrEqual(OFF_THREAD_ARCHIVE_BYTES);
    const pool = createScanPool(1);
    let offThread = 0;
    const engine = createAntiMalware({
      offThread: (scan) => {
        offThread += 1;
        return pool.scan(scan);
      },
    });
    try {
      const message = input({ attachments: [attachment('big.zip', archive)] });
      const findings = await engine.scan(message);
      expect(offThread).toBe(1);
      expect(findings).toEqual(
        scanAttachments({
          attachments: [{ filename: 'big.zip', content: archive }],
          text: 'Hello',
          blockedSha256: [],
        }),
      );
      expect(findings.map((f) => `${f.verdict}: ${f.reason}`)).toEqual([
        'malware: EICAR test file in big.zip › eicar.com',
        'suspicious: Dangerous file type .com: big.zip › eicar.com',
      ]);
      // A small archive stays on this thread.
      await engine.scan(
        input({ attachments: [attachment('small.zip', zipSync({ 'a.txt': new Uint8Array([1]) }))] }),
      );
      expect(offThread).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('stops at an archive too large to inspect instead of unpacking it', async () => {
    const big = zipSync(
      Object.fromEntries(Array.from({ length: 1_100 }, (_, i) => [`f${i}.txt`, new Uint8Array([i % 256])])),
    );
    const findings = await createAntiMalware().scan(input({ attachments: [attachment('many.zip', big)] }));
    expect(findings.map((f) => f.reason)).toContain('many.zip is an archive too large to inspect');
  });
});

describe('anti-phishing lookalikes', () => {
  it('catches typos and homoglyphs of the tenant domain, not the domain itself or unrelated ones', () => {
    expect(lookalikeOf('acrne.test', ['acme.test'])).toBe('acme.test');
    expect(lookalikeOf('examp1e.com', ['example.com'])).toBe('example.com');
    expect(lookalikeOf('exmaple.com', ['example.com'])).toBe('example.com');
    expect(lookalikeOf('example.com', ['example.com'])).toBeNull();
    expect(lookalikeOf('mail.example.com', ['example.com'])).toBeNull();
    expect(lookalikeOf('contoso.com', ['example.com'])).toBeNull();
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('covers short tenant names by structure: the name hyphenated, under another suffix, inside a longer domain, homoglyphs', () => {
    const own = ['acme.test'];
    for (const domain of [
      'acme-test.com',
      'acme-test.test',
      'acme-mail.net',
      'login-acme.com',
      'login.acme-secure.co.uk',
      'acrne-test.com',
      'acm\u0435.test', // Cyrillic е
      domainToASCII('acm\u0435.test'), // the same as an IDNA A-label (xn--…)
      'mail.acm\u0435.test',
      'acm\u00e9.test',
      '\uff41\uff43\uff4d\uff45.test', // full-width letters
      'acrne.test',
      'acme.test.evil.example',
      'www.acme.test.evil.example',
      'acme.com',
      'acme.co.uk',
    ]) {
      expect(lookalikeOf(domain, own), domain).toBe('acme.test');
    }
    expect(lookalikeOf('acme.co', ['acme.com'])).toBe('acme.com');
    expect(lookalikeOf('exmaple-login.com', ['example.com'])).toBe('example.com');
    expect(lookalikeOf('login.exmaple.com', ['example.com'])).toBe('example.com');
  });

  it("does not flag the tenant's own domains, their subdomains, or unrelated short names", () => {
    const own = ['acme.test', 'acme-group.com'];
    for (const domain of [
      'acme.test',
      'ACME.TEST',
      'acme.test.',
      'mail.acme.test',
      'eu.mail.acme.test',
      'acme-group.com',
      'news.acme-group.com',
      'acne.org', // one letter from a four-letter name is another word, not a typo
      'acne.test',
      'acmes.test',
      'macme.test',
      'acmeco.com',
      'pacme.com',
      'acme.zendesk.com', // services send for a customer from a subdomain named after it
      'outside.test',
      'partner.test',
      'example.com',
    ]) {
      expect(lookalikeOf(domain, own), domain).toBeNull();
    }
    expect(lookalikeOf('sample.com', ['example.com'])).toBeNull();
    expect(lookalikeOf('example.org.evil', ['example.com'])).toBeNull();
  });

  it('reports a hyphenated lookalike of a short tenant name as phishing', async () => {
    const findings = await createAntiPhishing().scan(input({ fromAddress: 'billing@acme-test.com' }));
    expect(findings).toContainEqual({
      engine: 'anti_phishing',
      verdict: 'phishing',
      reason: 'Lookalike sender domain acme-test.com imitates acme.test',
      points: 6,
      rule: 'LOOKALIKE_OWN_DOMAIN',
    });
  });
});

describe('anti-spam (rspamd HTTP API)', () => {
  it('is off without RSPAMD_URL', async () => {
    const engine = createAntiSpam({ rspamdUrl: undefined });
    expect(engine).toMatchObject({ status: 'off', detail: 'RSPAMD_URL is not set' });
    expect(await engine.scan(input())).toEqual([]);
  });

  // Against Debian's rspamd itself (engines/rspamd.test.ts covers it in depth). CI must have it;
  // a workstation without it skips.
  describe.skipIf(!fs.existsSync('/usr/bin/rspamd') && process.env.CI !== 'true')(
    'with rspamd running',
    () => {
      let daemon: RspamdDaemon;
      beforeAll(async () => {
        daemon = await startRspamd({ redisDb: 8 });
      });
      afterAll(() => daemon?.stop());

      it("posts the message to rspamd and gives one finding: rspamd's score and symbols, judged by the tenant's thresholds", async () => {
        const engine = createAntiSpam({ rspamdUrl: daemon.url });
        expect(engine).toMatchObject({ name: 'rspamd', tool: 'anti_spam', status: 'on', failClosed: false });
        // No From, To, Date or Message-ID: rspamd's MISSING_* symbols.
        const [spam, ...more] = await engine.scan(input());
        expect(more).toEqual([]);
        expect(spam).toMatchObject({ engine: 'rspamd', verdict: 'spam' });
        expect(spam!.score).toBeGreaterThanOrEqual(DEFAULT_SPAM_THRESHOLDS.spam);
        expect(spam!.reason).toMatch(/^rspamd: score [\d.]+ \(add header\)$/);
        expect(spam!.rules).toContainEqual({
          name: 'MISSING_MID',
          score: 2.5,
          description: 'Message id is missing',
        });
        // A tenant with higher thresholds: the same score is clean, and the finding says why.
        const [clean] = await engine.scan({ ...input(), spamThresholds: { suspicious: 50, spam: 60 } });
        expect(clean).toEqual({ ...spam, verdict: 'clean' });
      });
    },
  );
});
