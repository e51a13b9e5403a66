import net from 'node:net';
import type { Engine } from './types.ts';

const DEFAULT_PORT = 3310;
/** INSTREAM chunk size (clamdscan's is 8 KB; fewer, larger writes; clamd takes any size). */
const CHUNK_BYTES = 64 * 1024;
/** clamd answers one NUL-terminated line: a signature name, OK or an error. */
const MAX_RESPONSE_BYTES = 4 * 1024;
const ENGINE = 'clamav';

export interface ClamdEngine extends Engine {
  /** Resolves when clamd answers PONG. */
  ping(): Promise<void>;
  /**
   * clamd's VERSION (`ClamAV 1.4.6/27500/Tue Jan …`: engine, signature database, its date), also
   * kept as the engine's `version` for the console.
   */
  queryVersion(): Promise<string>;
}

/**
 * ClamAV through clamd (CLAMD_URL: `clamd://host:port`, `tcp://host:port` or `unix:/path`): INSTREAM
 * of the raw message (clamd decodes MIME and archives itself). A signature is `malware`, named as
 * clamd names it (signatures from a database not signed by ClamAV end in `.UNOFFICIAL`). A message
 * clamd cannot scan (over its StreamMaxLength, a timeout, clamd down) throws, and failClosed marks
 * it suspicious.
 */
export function createClamd(options: { url?: string | undefined; timeoutMs?: number }): ClamdEngine {
  if (!options.url) {
    const off = () => Promise.reject(new Error('CLAMD_URL is not set'));
    return {
      name: ENGINE,
      tool: 'anti_malware',
      version: 'ClamAV (clamd)',
      status: 'off',
      detail: 'CLAMD_URL is not set',
      failClosed: true,
      scan: async () => [],
      ping: off,
      queryVersion: off,
    };
  }
  const target = socketTarget(options.url);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const call = (command: string, body?: Buffer) => exchange(target, command, body, timeoutMs);

  const engine: ClamdEngine = {
    name: ENGINE,
    tool: 'anti_malware',
    version: 'ClamAV (clamd)',
    status: 'on',
    failClosed: true,
    async scan({ raw }) {
      const reply = await call('INSTREAM', raw);
      const found = /^stream: (.+) FOUND$/.exec(reply);
      if (found) return [{ engine: ENGINE, verdict: 'malware', reason: `ClamAV: ${found[1]}` }];
      if (reply === 'stream: OK') return [];
      throw new Error(`clamd: ${reply}`);
    },
    async ping() {
      const reply = await call('PING');
      if (reply !== 'PONG') throw new Error(`clamd answered "${reply}" to PING`);
    },
    async queryVersion() {
      const reply = await call('VERSION');
      if (!reply.startsWith('ClamAV ')) throw new Error(`clamd answered "${reply}" to VERSION`);
      engine.version = reply;
      return reply;
    },
  };
  return engine;
}

type Target = { host: string; port: number } | { path: string };

function socketTarget(url: string): Target {
  const parsed = new URL(url);
  if (parsed.protocol === 'unix:') return { path: parsed.pathname };
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(parsed.port) || DEFAULT_PORT,
  };
}

const where = (target: Target) => ('path' in target ? target.path : `${target.host}:${target.port}`);

/**
 * One `z`-command (NUL-terminated) and, for INSTREAM, the body in length-prefixed chunks ending with
 * a zero length; the answer is one NUL-terminated line. clamd answers a stream over its limit with
 * an error and closes while we still write: the answer read before the broken pipe still counts,
 * and a pipe broken before it was read says what clamd does.
 */
function exchange(
  target: Target,
  command: string,
  body: Buffer | undefined,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const answer = () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf(0);
      return end < 0 ? null : all.subarray(0, end).toString('utf8').trim();
    };
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const line = answer();
      if (line !== null) resolve(line);
      else reject(new Error(`clamd at ${where(target)}: ${error?.message ?? 'closed without an answer'}`));
    };
    const socket = net.connect(target, () => {
      socket.write(`z${command}\0`);
      if (!body) return;
      for (let at = 0; at < body.length; at += CHUNK_BYTES) {
        const chunk = body.subarray(at, at + CHUNK_BYTES);
        const length = Buffer.alloc(4);
        length.writeUInt32BE(chunk.length);
        socket.write(length);
        socket.write(chunk);
      }
      socket.write(Buffer.alloc(4));
    });
    const timer = setTimeout(() => settle(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (chunk.includes(0)) settle(null);
      else if (size > MAX_RESPONSE_BYTES) {
        chunks.length = 0;
        settle(new Error(`answer over ${MAX_RESPONSE_BYTES} bytes`));
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // clamd answers a stream over its StreamMaxLength and closes; when our next write reaches
      // the closed socket first, the pipe breaks and its answer may be lost with the connection.
      const cutOff = body !== undefined && (error.code === 'EPIPE' || error.code === 'ECONNRESET');
      settle(
        cutOff
          ? new Error(
              `closed the connection while the message was being sent (${error.message}), as clamd does with a message over its StreamMaxLength`,
            )
          : error,
      );
    });
    socket.on('close', () => settle(null));
  });
}
