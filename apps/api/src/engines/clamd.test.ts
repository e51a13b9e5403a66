import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClamd } from '../test/daemons/clamd.ts';
import { daemonInput, skipReason } from '../test/daemons/spamd.ts';
import { freePort } from '../test/ports.ts';
import { createClamd } from './clamd.ts';

const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

/** A message with one attachment, base64-encoded as mail clients send it. */
const withAttachment = (filename: string, content: Buffer) =>
  Buffer.from(
    [
      'From: Bob <bob@outside.example>',
      'To: Ana <ana@acme.example>',
      'Subject: The file',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Here it is.',
      '--b1',
      `Content-Type: application/octet-stream; name="${filename}"`,
      `Content-Disposition: attachment; filename="${filename}"`,
      'Content-Transfer-Encoding: base64',
      '',
      content.toString('base64').replace(/.{76}/g, '$&\r\n').trimEnd(),
      '--b1--',
      '',
    ].join('\r\n'),
  );

// Locally a missing clamd skips these tests; in CI, startup fails naming the package.
const skip = skipReason('clamd', 'clamav-daemon');
if (skip) console.warn(`Skipping the clamd tests: ${skip}`);

describe.skipIf(skip !== null)('ClamAV through clamd', () => {
  let clamd: Awaited<ReturnType<typeof startClamd>>;
  beforeAll(async () => {
    clamd = await startClamd({ streamMaxLength: '1M' });
  });
  afterAll(() => clamd?.stop());

  it('finds EICAR in a base64 attachment and names the signature', async () => {
    const engine = createClamd({ url: clamd.url });
    const findings = await engine.scan(await daemonInput(withAttachment('eicar.com', Buffer.from(EICAR))));
    // A signature from a database ClamAV did not sign is named `….UNOFFICIAL` by clamd.
    expect(findings).toEqual([
      { engine: 'clamav', verdict: 'malware', reason: 'ClamAV: Eicar-Test-Signature.UNOFFICIAL' },
    ]);
  });

  it('finds nothing in a clean message', async () => {
    const engine = createClamd({ url: clamd.url });
    expect(
      await engine.scan(await daemonInput(withAttachment('notes.txt', Buffer.from('Just notes.\n')))),
    ).toEqual([]);
  });

  it('scans through the unix socket too', async () => {
    const engine = createClamd({ url: clamd.socketUrl });
    const findings = await engine.scan(await daemonInput(withAttachment('eicar.com', Buffer.from(EICAR))));
    expect(findings.map((f) => f.verdict)).toEqual(['malware']);
  });

  it("throws when the message is over clamd's StreamMaxLength (the processor holds it as unscanned)", async () => {
    const engine = createClamd({ url: clamd.url });
    const raw = withAttachment('big.bin', Buffer.alloc(1024 * 1024, 7));
    // clamd answers and closes; whether its answer or the broken pipe of our next write comes
    // first is a race of the two sockets, so either says why.
    await expect(engine.scan(await daemonInput(raw))).rejects.toThrow(
      /clamd: INSTREAM size limit exceeded\. ERROR|closed the connection while the message was being sent \(.*\), as clamd does with a message over its StreamMaxLength/,
    );
  });

  it('answers PING and tells its version, shown as the engine version', async () => {
    const engine = createClamd({ url: clamd.url.replace('clamd:', 'tcp:') });
    await expect(engine.ping()).resolves.toBeUndefined();
    const version = await engine.queryVersion();
    expect(version).toMatch(/^ClamAV \d+\.\d+/);
    expect(engine.version).toBe(version);
  });
});

describe('ClamAV through clamd, without clamd', () => {
  it('throws when clamd is unreachable', async () => {
    const engine = createClamd({ url: `clamd://127.0.0.1:${await freePort()}` });
    await expect(engine.scan(await daemonInput(withAttachment('a.txt', Buffer.from('a'))))).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });

  it('throws when clamd does not answer in time', async () => {
    const server = net.createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const engine = createClamd({ url: `clamd://127.0.0.1:${port}`, timeoutMs: 200 });
      await expect(engine.scan(await daemonInput(withAttachment('a.txt', Buffer.from('a'))))).rejects.toThrow(
        /no answer within 200 ms/,
      );
    } finally {
      server.close();
    }
  });

  it('is off, saying why, without CLAMD_URL', async () => {
    const engine = createClamd({ url: undefined });
    expect(engine).toMatchObject({ status: 'off', detail: 'CLAMD_URL is not set', tool: 'anti_malware' });
    expect(await engine.scan(await daemonInput(withAttachment('a.txt', Buffer.from('a'))))).toEqual([]);
  });
});
