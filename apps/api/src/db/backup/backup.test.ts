import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { QUARANTINE_ADMIN_ROUTES } from '@moat/contracts/quarantine-admin';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDatabaseCommand } from '../../cli/database-commands.ts';
import {
  appOn,
  EICAR,
  emptyCluster,
  freshPostgres,
  type Installation,
  migratedCluster,
  populate,
  prepareDataDir,
  settled,
  startInstallation,
  tableDigests,
  whatPeopleSee,
} from '../../test/installation.ts';
import { openPglite, openPostgres, rowsOf } from '../client.ts';
import { contentsOf } from './restore.ts';

/**
 * db:backup, db:restore and db:copy on real installations: an embedded one running (the app with
 * its CLI bridge and SMTP front door, on a data folder), with mail through its gateway, users, a
 * session, MFA and a changed policy. The PostgreSQL targets need TEST_DATABASE_URL; the
 * api-postgres project runs backup-postgres.test.ts instead of this file.
 */
const postgres = process.env.TEST_DATABASE_URL;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-backup-test-'));
const dropLater: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of dropLater) await drop();
  fs.rmSync(root, { recursive: true, force: true });
});

type CliConfig = { dataDir: string; databaseUrl?: string; secretKey?: string };
/** The CLI's db:* commands as `npm run cli` runs them (typed in `root`), in this process. */
const cli = (name: string, values: Record<string, unknown>, config: CliConfig) =>
  runDatabaseCommand(name, values, {
    config: { databaseUrl: undefined, secretKey: undefined, ...config },
    cwd: root,
  });

/** A backup file's header, rows and end mark, parsed: what the file says. */
function readBackup(file: string) {
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').trimEnd().split('\n');
  const header = JSON.parse(lines[0]!) as {
    tables: Array<{ name: string; rows: number }>;
    migrations: unknown[];
  };
  const rows: Record<string, Array<Record<string, unknown>>> = {};
  let at = 1;
  for (const table of header.tables) {
    at += 1;
    rows[table.name] = lines.slice(at, at + table.rows).map((l) => JSON.parse(l));
    at += table.rows;
  }
  return { header, rows, trailer: JSON.parse(lines[at]!), lines };
}

const writeGzip = (file: string, lines: string[]) =>
  fs.writeFileSync(path.join(root, file), zlib.gzipSync(`${lines.join('\n')}\n`));

async function digestsOf(dataDir: string) {
  const database = await openPglite(path.join(dataDir, 'pgdata'));
  try {
    return await tableDigests(database.db);
  } finally {
    await database.close();
  }
}

async function emptyAt(dataDir: string) {
  const database = await openPglite(path.join(dataDir, 'pgdata'));
  try {
    return (await contentsOf(database.db)) === null;
  } finally {
    await database.close();
  }
}

/** What populate's people see on a faithful copy of its installation. */
function expected(data: Awaited<ReturnType<typeof populate>>, emlSha256: string) {
  return {
    session: { status: 200, email: `admin@${data.domain}` },
    passwordSignIn: { status: 200, session: true },
    mfaSignIn: { first: 'mfa_code', code: expect.objectContaining({ success: true }), session: true },
    mail: [
      `Big report → admin@${data.domain}: clean, delivered`,
      `Invoice with EICAR → ana@${data.domain}: malware, quarantined`,
      `Lunch → ana@${data.domain}: clean, delivered`,
    ],
    held: ['Invoice with EICAR'],
    emlSha256,
    policy: {
      verdicts: expect.objectContaining({
        spam: expect.objectContaining({ action: 'deliver_banner' }),
        suspicious: expect.objectContaining({ action: 'quarantine_silent' }),
      }),
      overrides: [
        expect.objectContaining({
          match: 'recipient',
          value: `ana@${data.domain}`,
          verdict: 'spam',
          action: 'quarantine',
        }),
      ],
      spam_thresholds: { suspicious: 3.5, spam: 7 },
    },
  };
}

/** The held EICAR message's .eml as the source serves it (a hash of its bytes). */
async function emlSha256Of(inst: Installation, data: Awaited<ReturnType<typeof populate>>) {
  const held = (
    await inst.app.inject({
      method: 'GET',
      url: QUARANTINE_ADMIN_ROUTES.messages,
      cookies: data.admin.cookies,
    })
  ).json() as { items: Array<{ id: string }> };
  const eml = await inst.app.inject({
    method: 'GET',
    url: QUARANTINE_ADMIN_ROUTES.messageEml.replace(':id', held.items[0]!.id),
    cookies: data.admin.cookies,
  });
  return createHash('sha256').update(eml.rawPayload).digest('hex');
}

describe.runIf(process.env.MOAT_TEST_DB !== 'postgres')(
  'backup and restore of an embedded installation',
  () => {
    let source: Installation;
    let data: Awaited<ReturnType<typeof populate>>;
    let emlSha: string;
    let digestsAtBackup: Record<string, string>;
    let backedUp: Awaited<ReturnType<typeof cli>>;
    const backupFile = path.join(root, 'moat.backup.gz');

    beforeAll(async () => {
      source = await startInstallation(path.join(root, 'source'));
      data = await populate(source);
      emlSha = await emlSha256Of(source, data);
      digestsAtBackup = await tableDigests(source.db);
      backedUp = await cli('db:backup', { out: 'moat.backup.gz' }, { dataDir: source.dataDir });
    });
    afterAll(() => source?.stop());

    describe('npm run cli -- db:backup', () => {
      it('backs up through the running server (a copy as of one moment): one whole file, mode 0600, nothing left behind', async () => {
        expect(backedUp).toMatchObject({ exitCode: 0, stderr: '' });
        expect(backedUp.stdout).toContain(`through the running server (pid ${process.pid})`);
        expect(backedUp.stdout).toMatch(/mail kept flowing/);
        expect(backedUp.stdout).toContain(`keep ${path.join(source.dataDir, 'secret.key')}`);
        expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);
        expect(fs.readdirSync(root).filter((f) => f.includes('partial'))).toEqual([]);
        expect(fs.readdirSync(source.dataDir).filter((f) => f.startsWith('backup-snapshot'))).toEqual([]);

        const { header, rows, trailer } = readBackup(backupFile);
        // Held mail with its bytes (bytea as hex); the MFA secret as stored, sealed.
        const held = rows.quarantine_messages!.find((m) => m.subject === 'Invoice with EICAR')!;
        expect(Buffer.from(String(held.raw).slice(2), 'hex').toString()).toContain(
          Buffer.from(EICAR).toString('base64').slice(0, 76),
        );
        const bo = rows.users!.find((u) => u.email === `bo@${data.domain}`)!;
        expect(bo.mfa_secret).toMatch(/^v1\./);
        expect(bo.mfa_secret).not.toContain(data.mfaSecret);
        // Parents before children, every table counted, and the end mark.
        const order = header.tables.map((t) => t.name);
        expect(order.indexOf('tenants')).toBeLessThan(order.indexOf('users'));
        expect(order.indexOf('users')).toBeLessThan(order.indexOf('sessions'));
        expect(order.indexOf('quarantine_messages')).toBeLessThan(order.indexOf('quarantine_attachments'));
        for (const t of header.tables) expect(rows[t.name]).toHaveLength(t.rows);
        expect(trailer).toMatchObject({ end: 'moat-backup', tables: header.tables.length });
        expect(header.migrations.length).toBeGreaterThan(30);

        // The server went on: more mail is taken in and processed.
        const info = await source.transport.sendMail({
          from: 'bob@outside.test',
          to: `ana@${data.domain}`,
          subject: 'After',
          text: 'x',
        });
        expect(info.response).toMatch(/^250 /);
      });

      it('takes a consistent backup while mail flows: every processed message has its Mail Explorer rows, and mail goes on', async () => {
        const processor = source.app.services.gateway.processor;
        processor.start(50);
        const send = (i: number) =>
          source.transport.sendMail({
            from: 'bob@outside.test',
            to: `ana@${data.domain}`,
            subject: `Flow ${i}`,
            text: `n ${i}`,
          });
        const sent: Array<Promise<{ response: string }>> = [];
        for (let i = 0; i < 10; i++) sent.push(send(i));
        await Promise.all(sent.slice(0, 5));
        // The backup starts while mail arrives and is processed, and more keeps coming while it runs.
        const backup = cli('db:backup', { out: 'flowing.gz' }, { dataDir: source.dataDir });
        for (let i = 10; i < 30; i++) sent.push(send(i));
        expect((await backup).exitCode).toBe(0);
        expect((await Promise.all(sent)).map((a) => a.response.slice(0, 4))).toEqual(Array(30).fill('250 '));
        await processor.stop();
        await settled(source);

        const { rows } = readBackup(path.join(root, 'flowing.gz'));
        // A message is marked processed with its Mail Explorer rows in one transaction: the copy has both or neither.
        const logged = new Set(rows.mail_log!.map((r) => r.inbound_id));
        for (const r of rows.inbound_messages!) {
          expect({ id: r.id, processed: r.status === 'processed' }).toEqual({
            id: r.id,
            processed: logged.has(r.id),
          });
        }
        const inbound = new Set(rows.inbound_messages!.map((r) => r.id));
        for (const id of logged) expect(inbound.has(id)).toBe(true);
        // Taken part way: at least the five answered before it, not all thirty; all thirty since.
        const flow = (r: Record<string, unknown>) => /^Flow \d+$/.test(String(r.subject));
        expect(rows.mail_log!.filter(flow).length).toBeLessThan(30);
        expect(rows.inbound_messages!.length).toBeGreaterThanOrEqual(3 + 5);
        const [after] = rowsOf<{ n: number }>(
          await source.db.execute(sql`select count(*)::int as n from mail_log where subject like 'Flow %'`),
        );
        expect(after!.n).toBe(30);
      });
    });

    describe('npm run cli -- db:restore', () => {
      it('restores into an empty DATA_DIR: every table the same, and sign-in, the session, MFA, mail, held mail and policy work', async () => {
        const dataDir = path.join(root, 'restored');
        fs.mkdirSync(dataDir);
        // What the operator keeps beside the backup: the key.
        fs.copyFileSync(path.join(source.dataDir, 'secret.key'), path.join(dataDir, 'secret.key'));
        const result = await cli('db:restore', { from: 'moat.backup.gz' }, { dataDir });
        expect(result).toMatchObject({ exitCode: 0, stderr: '' });
        expect(result.stdout).toMatch(
          /tables \(\d+ of them empty\), [\d,]+ rows: every count checked against the backup/,
        );
        expect(result.stdout).toContain(
          `Key: ${path.join(dataDir, 'secret.key')} is the key the backup's installation used (checked)`,
        );
        expect(result.stdout).toContain(`Start Moat on it: DATA_DIR='${dataDir}' npm start`);

        const restored = await openPglite(path.join(dataDir, 'pgdata'));
        expect(await tableDigests(restored.db)).toEqual(digestsAtBackup);
        const t = await appOn(restored, source.secret);
        try {
          expect(await whatPeopleSee(t, data)).toEqual(expected(data, emlSha));
        } finally {
          await t.close();
        }
      });

      it.runIf(postgres)(
        'restores into an empty PostgreSQL database, and refuses it once it holds data',
        async () => {
          const target = await freshPostgres();
          dropLater.push(target.drop);
          const config = {
            dataDir: path.join(root, 'unused'),
            databaseUrl: target.url,
            secretKey: source.secret.toString('hex'),
          };
          const result = await cli('db:restore', { from: backupFile }, config);
          expect(result).toMatchObject({ exitCode: 0, stderr: '' });
          expect(result.stdout).toContain('Key: SECRET_KEY is the key the backup');
          const restored = await openPostgres(target.url);
          expect(await tableDigests(restored.db)).toEqual(digestsAtBackup);
          const t = await appOn(restored, source.secret);
          try {
            expect(await whatPeopleSee(t, data)).toEqual(expected(data, emlSha));
          } finally {
            await t.close();
          }
          // Read once the app has stopped: its last counter writes land as it closes.
          const before = await openPostgres(target.url);
          const seen = await tableDigests(before.db);
          await before.close();

          const again = await cli('db:restore', { from: backupFile }, config);
          expect(again.exitCode).toBe(1);
          expect(again.stderr).toMatch(
            /^Error: The target database is not empty: it has \d+ relations \(.*\) and \d+ applied migrations\. Nothing was changed/,
          );
          const check = await openPostgres(target.url);
          expect(await tableDigests(check.db)).toEqual(seen);
          await check.close();
        },
      );

      it("refuses a running server's DATA_DIR and one with data, changing nothing", async () => {
        const running = await cli('db:restore', { from: backupFile }, { dataDir: source.dataDir });
        expect(running.exitCode).toBe(1);
        expect(running.stderr).toContain(
          `A Moat server (pid ${process.pid}) is running on ${source.dataDir}`,
        );

        const filled = path.join(root, 'filled');
        await (await prepareDataDir(filled, await migratedCluster())).close();
        const before = await digestsOf(filled);
        const again = await cli('db:restore', { from: backupFile }, { dataDir: filled });
        expect(again.exitCode).toBe(1);
        expect(again.stderr).toMatch(/The target database is not empty: it has \d+ relations/);
        expect(await digestsOf(filled)).toEqual(before);
      });

      it("refuses a damaged file or another installation's key with a clear message, and leaves the target empty", async () => {
        const target = path.join(root, 'damaged-target');
        await (await prepareDataDir(target, await emptyCluster())).close();
        const { lines } = readBackup(backupFile);
        const whole = fs.readFileSync(backupFile);
        const header = JSON.parse(lines[0]!);
        const flipped = Buffer.from(whole);
        flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
        fs.writeFileSync(path.join(root, 'cut.gz'), whole.subarray(0, Math.floor(whole.length * 0.6)));
        fs.writeFileSync(path.join(root, 'flipped.gz'), flipped);
        fs.writeFileSync(path.join(root, 'text.txt'), 'hello\n');
        writeGzip('lines.gz', lines.slice(0, -5));
        writeGzip('other.gz', ['{"hello":"world"}']);
        const future = { tag: '9999_future', when: 9_999_999_999_999, hash: 'f'.repeat(64) };
        writeGzip('newer.gz', [
          JSON.stringify({ ...header, migrations: [...header.migrations, future] }),
          ...lines.slice(1),
        ]);
        writeGzip(
          'badrow.gz',
          lines.map((l, i) =>
            i > 0 && l.includes('"verdict":"clean"') ? l.replace('"verdict":"clean"', '"verdict":{"x":') : l,
          ),
        );
        const fewer = header.tables.map((t: { name: string; rows: number }) =>
          t.name === 'tenants' ? { ...t, rows: t.rows - 1 } : t,
        );
        writeGzip('counts.gz', [JSON.stringify({ ...header, tables: fewer }), ...lines.slice(1)]);

        const refusals: Record<string, string> = {};
        for (const file of [
          'cut.gz',
          'lines.gz',
          'flipped.gz',
          'text.txt',
          'other.gz',
          'newer.gz',
          'badrow.gz',
          'counts.gz',
        ]) {
          const result = await cli('db:restore', { from: file }, { dataDir: target });
          expect({ file, exitCode: result.exitCode, stdout: result.stdout }).toEqual({
            file,
            exitCode: 1,
            stdout: '',
          });
          refusals[file] = result.stderr.trim();
        }
        expect(refusals).toEqual({
          'cut.gz': 'Error: The backup is cut short (truncated?): its gzip stream ends early',
          'lines.gz': expect.stringMatching(
            /^Error: The backup is cut short \(truncated\?\): it ends (in|before) the rows of \w+/,
          ),
          'flipped.gz': expect.stringMatching(/^Error: The backup (file is damaged|is damaged|is cut short)/),
          'text.txt': 'Error: The file is not a Moat backup (not a gzip file)',
          'other.gz': 'Error: The file is not a Moat backup (its first line is not a backup header)',
          'newer.gz': expect.stringMatching(
            /^Error: This backup was made by a newer Moat: its schema has \d+ migrations \(the last 9999_future\), this Moat knows \d+ \(the last \w+\)\. Restore it with Moat [\d.]+ or newer$/,
          ),
          'badrow.gz': expect.stringMatching(
            /^Error: The backup is damaged: PostgreSQL refused its rows \(.*json.*\)\. Nothing was changed$/,
          ),
          'counts.gz': expect.stringMatching(/^Error: The backup is damaged/),
        });
        // Another installation's key would not open the sealed secrets: refused before anything is kept.
        fs.writeFileSync(path.join(target, 'secret.key'), Buffer.alloc(32, 7).toString('hex'), {
          mode: 0o600,
        });
        const wrongKey = await cli('db:restore', { from: backupFile }, { dataDir: target });
        fs.rmSync(path.join(target, 'secret.key'));
        expect(wrongKey.exitCode).toBe(1);
        expect(wrongKey.stderr).toContain(
          `${path.join(target, 'secret.key')} is not the key of the installation this backup came from`,
        );
        // Each was refused inside the restore's one transaction (a later one would have found data).
        expect(await emptyAt(target)).toBe(true);
        // Into a DATA_DIR that had no database: none is left behind either.
        const fresh = path.join(root, 'fresh-target');
        expect((await cli('db:restore', { from: 'lines.gz' }, { dataDir: fresh })).exitCode).toBe(1);
        expect(fs.existsSync(path.join(fresh, 'pgdata'))).toBe(false);
      }, 120_000);
    });
  },
);

describe.runIf(process.env.MOAT_TEST_DB !== 'postgres' && postgres)(
  'npm run cli -- db:copy --to postgres://…',
  () => {
    let moving: Installation;
    let data: Awaited<ReturnType<typeof populate>>;
    let emlSha: string;
    beforeAll(async () => {
      moving = await startInstallation(path.join(root, 'moving'));
      data = await populate(moving, 'move.test');
      emlSha = await emlSha256Of(moving, data);
    });
    afterAll(() => moving?.stop());

    it('refuses while the server runs, then moves the stopped installation with every row, and says how to start on it', async () => {
      const target = await freshPostgres();
      dropLater.push(target.drop);
      const refused = await cli('db:copy', { to: target.url }, { dataDir: moving.dataDir });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(
        `The Moat server (pid ${process.pid}) is running on ${moving.dataDir}: stop it first`,
      );
      const untouched = await openPostgres(target.url);
      expect(await contentsOf(untouched.db)).toBeNull();
      await untouched.close();

      const digests = await tableDigests(moving.db);
      await moving.stop();
      const result = await cli('db:copy', { to: target.url }, { dataDir: moving.dataDir });
      expect(result).toMatchObject({ exitCode: 0, stderr: '' });
      expect(result.stdout).toMatch(/rows: every count checked against the embedded database/);
      expect(result.stdout).toContain(
        `  DATA_DIR='${moving.dataDir}' DATABASE_URL='${target.url}' SECRET_KEY="$(cat '${path.join(moving.dataDir, 'secret.key')}')" npm start`,
      );
      const copied = await openPostgres(target.url);
      expect(await tableDigests(copied.db)).toEqual(digests);
      const t = await appOn(copied, moving.secret);
      try {
        expect(await whatPeopleSee(t, data)).toEqual(expected(data, emlSha));
      } finally {
        await t.close();
      }

      const again = await cli('db:copy', { to: target.url }, { dataDir: moving.dataDir });
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toMatch(/^Error: The target database is not empty: it has \d+ relations/);
    });

    it('refuses with DATABASE_URL set, a --to that is no PostgreSQL URL, or an unreachable server', async () => {
      await moving.stop();
      const withUrl = await cli(
        'db:copy',
        { to: postgres },
        { dataDir: moving.dataDir, databaseUrl: postgres },
      );
      expect(withUrl).toMatchObject({
        exitCode: 1,
        stderr: expect.stringContaining('but DATABASE_URL is set'),
      });
      const bad = await cli('db:copy', { to: 'mysql://x' }, { dataDir: moving.dataDir });
      expect(bad).toMatchObject({
        exitCode: 2,
        stderr: expect.stringContaining('--to must be a PostgreSQL URL'),
      });
      const none = await cli(
        'db:copy',
        { to: 'postgres://postgres@127.0.0.1:1/x' },
        { dataDir: moving.dataDir },
      );
      expect(none).toMatchObject({
        exitCode: 1,
        stderr: expect.stringContaining('Cannot connect to postgres://postgres@127.0.0.1:1/x'),
      });
    });
  },
);
