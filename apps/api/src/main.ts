import dns from 'node:dns';
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { buildApp } from './app.ts';
import { removeControlFile, writeControlFile } from './cli/control-file.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { acquireDataDirLock, DataDirBusyError } from './db/data-dir-lock.ts';
import { firstStartLines } from './first-start.ts';
import { systemClock } from './lib/clock.ts';
import { takeOverDataDir } from './lib/node-name.ts';
import { newToken } from './lib/tokens.ts';
import { type SeedResult, seedFirstTenant } from './seed.ts';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function announceAdmin(seed: SeedResult, publicUrl: { url: string; set: boolean }): void {
  const lines = firstStartLines(seed, publicUrl);
  const width = Math.max(...lines.map((l) => l.length));
  const bar = `+${'-'.repeat(width + 2)}+`;
  process.stdout.write(`\n${bar}\n${lines.map((l) => `| ${l.padEnd(width)} |`).join('\n')}\n${bar}\n\n`);
}

async function main(): Promise<void> {
  const started = performance.now();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  // Every lookup (SPF, DKIM, DMARC, Onboarding's checks) asks the servers named, if any.
  if (config.dnsServers.length > 0) {
    dns.setServers(config.dnsServers);
    dns.promises.setServers(config.dnsServers);
  }

  let releaseLock = () => {};
  if (!config.databaseUrl) {
    try {
      releaseLock = acquireDataDirLock(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirBusyError) fail(`Cannot start: ${error.message}. Stop it first.`);
      throw error;
    }
  }

  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(config);
  } catch (error) {
    releaseLock();
    fail(`Cannot open the database: ${(error as Error).message}`);
  }
  let seed: SeedResult | null = null;
  try {
    await database.migrate(async (db) => {
      seed = await seedFirstTenant(db, config, systemClock);
    });
  } catch (error) {
    releaseLock();
    fail(`Cannot prepare the database: ${(error as Error).message}`);
  }

  const cliBridgeToken = config.databaseUrl ? undefined : newToken();
  const app = await buildApp({ config, database, cliBridgeToken });
  try {
    // Every node of one database must share the key (captchas, codes, MFA secrets).
    await app.services.cluster.ensureKey();
  } catch (error) {
    await app.close();
    await database.close();
    releaseLock();
    fail(`Cannot start: ${(error as Error).message}`);
  }
  // Everything is up before the HTTP port opens, so a `/healthz` answer means the whole server
  // (SMTP, workers, the CLI bridge, the first-start announcement) is there.
  // The embedded database belongs to this process alone: work a previous run left claimed is
  // free at once. On a shared PostgreSQL, only the work of this node's previous run on its data
  // folder (certainly gone) is; another node's claims wait for their leases to run out.
  const ownsDatabase = database.kind === 'pglite';
  const previousNode = ownsDatabase ? null : takeOverDataDir(config.dataDir, config.nodeName);
  await app.services.mailer.start({ ownsDatabase, previousNode });
  const processor = app.services.gateway.processor;
  if (ownsDatabase) await processor.releaseAllLeases();
  else if (previousNode) await processor.takeBack(previousNode);
  const smtp = app.services.gateway.frontDoor();
  let smtpPort: number;
  try {
    smtpPort = await smtp.listen(config.smtpPort, config.host);
  } catch (error) {
    await app.close();
    await database.close();
    releaseLock();
    fail(`Cannot listen for SMTP on ${config.host}:${config.smtpPort}: ${(error as Error).message}`);
  }
  // Outbound submission (issue 38): the tenants' servers hand their mail to Moat here.
  const submission = config.submissionPort === null ? null : app.services.outbound.submission();
  let submissionPort: number | null = null;
  if (submission && config.submissionPort !== null) {
    try {
      submissionPort = await submission.listen(config.submissionPort, config.host);
    } catch (error) {
      await smtp.close();
      await app.close();
      await database.close();
      releaseLock();
      fail(
        `Cannot listen for submission on ${config.host}:${config.submissionPort}: ${(error as Error).message} (set SUBMISSION_PORT to a free port, or off)`,
      );
    }
  }
  // Mail stored before a crash or restart is processed first.
  processor.start();
  app.services.digest.start();
  app.services.sweeper.start();
  app.services.retraction.start();
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await smtp.close();
    await submission?.close();
    await app.close();
    await database.close();
    releaseLock();
    fail(`Cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
  // No await from here to the announcement: it is written (synchronously, to a pipe or a
  // terminal) before the first request can be answered.
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (cliBridgeToken) writeControlFile(config.dataDir, { pid: process.pid, port, token: cliBridgeToken });

  const url = `http://localhost:${port}`;
  if (seed) {
    announceAdmin(seed, config.publicUrlSet ? { url: config.publicUrl, set: true } : { url, set: false });
  }
  // Where Moat's own mail cannot come from a real address, say so once (Settings says it too).
  const withoutSender = await app.services.settings.withoutSender().catch(() => []);
  if (withoutSender.length > 0) {
    app.log.warn(
      { organisations: withoutSender },
      `No sender address for Moat's own mail of ${withoutSender.map((name) => `"${name}"`).join(', ')}: set MAIL_FROM, or add a mail domain or a sender in Configuration → Settings; until then that mail waits in the outbox`,
    );
  }
  // For scripts/run-server.mjs: the code the start compiled can be kept for the next one.
  (process as EventEmitter).emit('moat:started');
  app.log.info(
    {
      url,
      smtpPort,
      submissionPort,
      database: database.kind,
      node: config.nodeName,
      counters: app.services.counters.kind,
      startupMs: Math.round(performance.now() - started),
    },
    `Moat is ready at ${url}`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // SMTP connections get 5 s to finish, mail on its way to the relay 5 s more: then it is over.
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    try {
      // While SMTP sessions finish, the mail waiting for a relay connection goes back to the
      // table for the other nodes; then the messages waiting for processing go back too.
      await Promise.all([smtp.close(), submission?.close(), app.services.mailer.stop()]);
      await app.close();
      await database.close();
    } finally {
      if (cliBridgeToken) removeControlFile(config.dataDir, process.pid);
      releaseLock();
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

// A CommonJS script once compiled (scripts/build-server.mjs), so no top-level await.
main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
