import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDatabaseCommand } from '../../cli/database-commands.ts';
import { openTestDatabase } from '../../test/database.ts';
import {
  appOn,
  emptyCluster,
  type Installation,
  populate,
  prepareDataDir,
  startInstallation,
  tableDigests,
  whatPeopleSee,
} from '../../test/installation.ts';
import { openPglite, rowsOf } from '../client.ts';

/**
 * A PostgreSQL installation (the api-postgres project's database) backed up while it runs, in
 * one REPEATABLE READ transaction, and restored into an empty embedded DATA_DIR.
 */
describe.runIf(process.env.MOAT_TEST_DB === 'postgres')('backup of a PostgreSQL installation', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-backup-pg-test-'));
  const secret = randomBytes(32);
  let source: Installation;
  let data: Awaited<ReturnType<typeof populate>>;
  let url: string;
  const cli = (
    name: string,
    values: Record<string, unknown>,
    config: { dataDir: string; databaseUrl?: string },
  ) =>
    runDatabaseCommand(name, values, {
      config: { databaseUrl: undefined, secretKey: secret.toString('hex'), ...config },
      cwd: root,
    });

  beforeAll(async () => {
    source = await startInstallation(path.join(root, 'node'), { secret, database: await openTestDatabase() });
    data = await populate(source);
    const [row] = rowsOf<{ name: string }>(await source.db.execute(sql`select current_database() as name`));
    const u = new URL(process.env.TEST_DATABASE_URL!);
    u.pathname = `/${row!.name}`;
    url = u.toString();
  });
  afterAll(async () => {
    await source?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('backs it up and restores it into an empty DATA_DIR: every table the same, and people get in as before', async () => {
    const digests = await tableDigests(source.db);
    const backup = await cli(
      'db:backup',
      { out: 'pg.backup.gz' },
      { dataDir: path.join(root, 'node'), databaseUrl: url },
    );
    expect(backup).toMatchObject({ exitCode: 0, stderr: '' });
    expect(backup.stdout).toContain('read in one REPEATABLE READ transaction');
    expect(backup.stdout).toContain('keep SECRET_KEY with the backup');

    const dataDir = path.join(root, 'embedded');
    await (await prepareDataDir(dataDir, await emptyCluster(), secret)).close();
    const restored = await cli('db:restore', { from: 'pg.backup.gz' }, { dataDir });
    expect(restored).toMatchObject({ exitCode: 0, stderr: '' });
    expect(restored.stdout).toContain('from PostgreSQL) into the embedded database in');
    const database = await openPglite(path.join(dataDir, 'pgdata'));
    expect(await tableDigests(database.db)).toEqual(digests);
    const t = await appOn(database, secret);
    try {
      const seen = await whatPeopleSee(t, data);
      expect(seen).toMatchObject({
        session: { status: 200 },
        passwordSignIn: { status: 200, session: true },
        mfaSignIn: { first: 'mfa_code', code: { success: true }, session: true },
        held: ['Invoice with EICAR'],
        policy: { spam_thresholds: { suspicious: 3.5, spam: 7 } },
      });
      expect(seen.mail).toHaveLength(3);
    } finally {
      await t.close();
    }
  });

  it('takes a consistent backup while mail flows, and refuses to restore into a database that holds data', async () => {
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
    const backup = cli(
      'db:backup',
      { out: 'flowing.gz' },
      { dataDir: path.join(root, 'node'), databaseUrl: url },
    );
    for (let i = 10; i < 30; i++) sent.push(send(i));
    expect((await backup).exitCode).toBe(0);
    expect((await Promise.all(sent)).map((a) => a.response.slice(0, 4))).toEqual(Array(30).fill('250 '));
    await processor.stop();

    const lines = zlib
      .gunzipSync(fs.readFileSync(path.join(root, 'flowing.gz')))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    const header = JSON.parse(lines[0]!) as { tables: Array<{ name: string; rows: number }> };
    const rowsOf = (table: string) => {
      let at = 1;
      for (const t of header.tables) {
        at += 1;
        if (t.name === table)
          return lines.slice(at, at + t.rows).map((l) => JSON.parse(l) as Record<string, unknown>);
        at += t.rows;
      }
      return [];
    };
    const logged = new Set(rowsOf('mail_log').map((r) => r.inbound_id));
    for (const r of rowsOf('inbound_messages')) {
      expect({ id: r.id, processed: r.status === 'processed' }).toEqual({
        id: r.id,
        processed: logged.has(r.id),
      });
    }
    expect(rowsOf('inbound_messages').length).toBeGreaterThanOrEqual(3 + 5);

    const refused = await cli(
      'db:restore',
      { from: 'flowing.gz' },
      { dataDir: path.join(root, 'node'), databaseUrl: url },
    );
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/^Error: The target database is not empty: it has \d+ relations/);
  });
});
