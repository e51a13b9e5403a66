import path from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { acquireDataDirLock, DataDirBusyError, isProcessAlive } from '../db/data-dir-lock.ts';
import { systemClock } from '../lib/clock.ts';
import { ServerKey } from '../lib/server-key.ts';
import { createMailer } from '../mail/outbound.ts';
import { createOutboxRepo } from '../mail/outbox.repo.ts';
import { createSenderOf } from '../mail/sender.ts';
import { createDkimSigner } from '../modules/dkim-signing/dkim-signer.ts';
import { createDkimSigningRepo } from '../modules/dkim-signing/dkim-signing.repo.ts';
import { createTenantsRepo } from '../modules/tenants/tenants.repo.ts';
import { BridgeError, callBridge } from './bridge-client.ts';
import { type CliResult, parseCommandLine, runCommand } from './commands.ts';
import { readControlFile } from './control-file.ts';
import { hasDatabase, runDatabaseCommand } from './database-commands.ts';
import { databaseNotice } from './database-notice.ts';

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function finish(result: CliResult, notice: string | null = null): never {
  if (result.stdout) process.stdout.write(result.stdout);
  // Which database it used goes to stderr: what a command prints on stdout stays as it was.
  if (notice) process.stderr.write(notice);
  if (result.stderr) process.stderr.write(result.stderr);
  process.exit(result.exitCode);
}

async function main(): Promise<never> {
  const argv = process.argv.slice(2);
  const parsed = parseCommandLine(argv);
  if (parsed.kind === 'help') finish({ exitCode: 0, stdout: `${parsed.text}\n`, stderr: '' });
  if (parsed.kind === 'error') finish({ exitCode: 2, stdout: '', stderr: `${parsed.text}\n` });

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) finish({ exitCode: 1, stdout: '', stderr: `${error.message}\n` });
    throw error;
  }
  const stdin = parsed.command.readsStdin?.(parsed.values) ? await readStdin() : undefined;
  // npm runs scripts in the project root; INIT_CWD is where the command was typed.
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const notice = (bridge: { pid: number } | null, existed: boolean) =>
    databaseNotice({
      dataDirSet: Boolean(process.env.DATA_DIR),
      databaseUrlSet: Boolean(config.databaseUrl),
      dataDir: config.dataDir,
      cwd,
      bridge,
      existed,
      hasDatabase,
    });

  // Backup, restore and copy choose their own way to the database (a running server's snapshot, the lock).
  if (parsed.command.standalone)
    finish(await runDatabaseCommand(parsed.name, parsed.values, { config, cwd }));

  if (!config.databaseUrl) {
    // The embedded database belongs to one process: if the server runs, ask it to do the work.
    const control = readControlFile(config.dataDir);
    if (control && isProcessAlive(control.pid)) {
      const result = await callBridge(control, { argv, cwd, stdin }).catch((error: Error) =>
        finish({
          exitCode: 1,
          stdout: '',
          stderr: `${error instanceof BridgeError ? error.message : String(error)}\n`,
        }),
      );
      finish(result, notice({ pid: control.pid }, true));
    }
  }

  let release = () => {};
  if (!config.databaseUrl) {
    try {
      release = acquireDataDirLock(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirBusyError) {
        finish({
          exitCode: 1,
          stdout: '',
          stderr: `${error.message} (a server starting up?); try again in a moment\n`,
        });
      }
      throw error;
    }
  }
  const existed = config.databaseUrl ? true : hasDatabase(config.dataDir);
  const database = await openDatabase(config);
  try {
    await database.migrate();
    const tenants = createTenantsRepo(database.db);
    const serverKey = ServerKey.fromEnvOrFile(config.secretKey, config.dataDir);
    const signer = createDkimSigner({
      repo: createDkimSigningRepo(database.db),
      serverKey,
      clock: systemClock,
    });
    const mailer = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: config.smtpRelayUrl,
      fromAddress: config.mailFrom,
      // The sender the server would choose: the tenant's own, MAIL_FROM, or its domain.
      senderOf: createSenderOf(config, {
        find: (tenantId, tx) => tenants.findById(tenantId, tx),
        domainsOf: (tenantId, tx) => tenants.domainsOf(tenantId, tx),
      }),
      journalPath: path.join(config.dataDir, 'outbox-sent.journal'),
      log: {
        info: () => {},
        warn: (o: unknown) => process.stderr.write(`mail: ${JSON.stringify(o)}\n`),
        error: (o: unknown) => process.stderr.write(`mail: ${JSON.stringify(o)}\n`),
      },
      clock: systemClock,
      sign: async (message, fromDomain, tenantId) =>
        (await signer.sign(message, fromDomain, tenantId)).message,
    });
    const result = await runCommand(argv, {
      db: database.db,
      config,
      serverKey,
      clock: systemClock,
      cwd,
      stdin,
      mailer,
    });
    // Deliver what the command queued now; whatever fails is retried by the server later.
    await mailer.drain();
    await mailer.stop();
    await database.close();
    release();
    finish(result, notice(null, existed));
  } catch (error) {
    await database.close().catch(() => {});
    release();
    throw error;
  }
}

await main();
