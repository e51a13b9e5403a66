import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import dns from 'node:dns';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBinary, watch } from './spamd.ts';

/**
 * One dataset of a test zone, in rbldnsd's own file format (man rbldnsd): `ip4set` and `ip6trie`
 * list addresses (`192.0.2.7`, `2001:db8::7`), `dnset` domain names (`evil.example` the name
 * only, `*.evil.example` its subdomains only). A line may end in `:127.0.0.3:Why it is listed`
 * (an A code and TXT reason); `$` in a reason is the address asked about.
 */
export interface RbldnsdDataset {
  zone: string;
  type: 'ip4set' | 'ip6trie' | 'dnset';
  lines: string[];
}

export interface RunningRbldnsd {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  server: string;
  port: number;
  /**
   * Adds `line` to dataset `index` as a list does when it lists something new: the file is
   * rewritten and rbldnsd told to read it again (SIGHUP); resolves once `name` is listed.
   */
  add(index: number, line: string, name: string): Promise<void>;
  stop(): Promise<void>;
}

/** A UDP loopback port nobody listens on now (rbldnsd answers over UDP only). */
export async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/**
 * Debian's rbldnsd on a free loopback UDP port, in the foreground (`-n`), serving `datasets`
 * from files in a temporary directory (`-w`; several datasets of one zone make one zone). Each
 * dataset file gets a default `:127.0.0.2:Listed on <zone>` line first, so every listing has a
 * TXT reason unless its line says otherwise. Ready once it answers a question about its first zone.
 */
export async function startRbldnsd(datasets: RbldnsdDataset[]): Promise<RunningRbldnsd> {
  const bin = findBinary('rbldnsd', 'rbldnsd');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-rbldnsd-'));
  // As root, rbldnsd drops to its own user and re-reads the files each minute.
  fs.chmodSync(dir, 0o755);
  const write = (dataset: RbldnsdDataset, i: number) => {
    const file = `${dataset.type}-${i}.txt`;
    fs.writeFileSync(
      path.join(dir, file),
      [`:127.0.0.2:Listed on ${dataset.zone}`, ...dataset.lines, ''].join('\n'),
      { mode: 0o644 },
    );
    return file;
  };
  const specs = datasets.map((dataset, i) => `${dataset.zone}:${dataset.type}:${write(dataset, i)}`);
  const port = await freeUdpPort();
  const child = spawn(bin, ['-n', '-b', `127.0.0.1/${port}`, '-w', dir, '-t', '60', ...specs], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running = watch(child, dir, 'rbldnsd');
  const server = `127.0.0.1:${port}`;
  const resolver = new dns.promises.Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([server]);
  // Any answer from the zone (NXDOMAIN included) means it is serving; no answer throws ETIMEOUT
  // or ECONNREFUSED.
  const answers = () =>
    resolver.resolve4(`ready.${datasets[0]?.zone ?? 'test'}`).then(
      () => true,
      (error: { code?: string }) => error.code === 'ENOTFOUND' || error.code === 'ENODATA',
    );
  await running.until(answers, 20_000);
  let additions = 0;
  return {
    server,
    port,
    async add(index, line, name) {
      const dataset = datasets[index]!;
      dataset.lines = [...dataset.lines, line];
      // rbldnsd reloads a file whose time changed, in whole seconds: a time of its own each time.
      const at = Date.now() / 1000 + 2 * ++additions;
      fs.utimesSync(path.join(dir, write(dataset, index)), at, at);
      child.kill('SIGHUP');
      await running.until(
        () =>
          resolver.resolve4(`${name}.${dataset.zone}`).then(
            () => true,
            () => false,
          ),
        10_000,
      );
    },
    stop: running.stop,
  };
}

/**
 * A UDP "DNS server" that reads every question and answers none: a blocklist whose servers are
 * unreachable, as a firewall dropping packets makes it.
 */
export async function startBlackhole(): Promise<{
  server: string;
  questions: () => number;
  stop(): Promise<void>;
}> {
  const socket = dgram.createSocket('udp4');
  let questions = 0;
  socket.on('message', () => {
    questions += 1;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    questions: () => questions,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
