import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import pg from 'pg';
import { ROOT, runCli, startMoat, tempDataDir } from '../support/server.ts';

test.describe('npm start', () => {
  test('stops at once with one clear line when a variable is bad', () => {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'abc', DATA_DIR: tempDataDir() },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual(['Invalid configuration: PORT must be a whole number from 0 to 65535 (got "abc")']);
  });

  test('keeps the data across a restart, and the CLI works while it runs and while it is stopped', async () => {
    const dataDir = tempDataDir();
    const env = { DATA_DIR: dataDir };
    const first = await startMoat({ dataDir });
    expect(first.output()).toMatch(/Generated admin password \(shown only this once, store it now\): \S{24}/);

    const created = await runCli(['tenant:create', '--name', 'Kept', '--domain', 'kept.test'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(await first.stop()).toBe(0);

    // Stopped: the CLI opens the embedded database itself.
    const user = await runCli(
      ['user:create', '--email', 'ann@kept.test', '--role', 'user', '--password', 'password-1'],
      env,
    );
    expect(user.code).toBe(0);

    const second = await startMoat({ dataDir });
    expect(second.output()).not.toContain('Generated admin password');
    const listed = await runCli(['tenant:list'], env);
    expect(listed.stdout).toContain('Kept');
    expect(listed.stdout).toContain('kept.test');
    const duplicate = await runCli(
      ['user:create', '--email', 'ann@kept.test', '--role', 'user', '--invite'],
      env,
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');
    expect(await second.stop()).toBe(0);
  });

  test('refuses to start a second server on the same DATA_DIR', async () => {
    const moat = await startMoat();
    const other = spawnSync(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: moat.dataDir, PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(
      `Another Moat process (pid ${moat.process.pid}) is using the embedded database`,
    );
    await moat.stop();
  });

  test('runs the same way on PostgreSQL with DATABASE_URL', async () => {
    // .ci/run sets TEST_DATABASE_URL; otherwise the PostgreSQL every machine here runs.
    const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const name = `moat_e2e_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    // Every node of one database shares SECRET_KEY; DATABASE_URL requires it.
    const env = { DATABASE_URL: url.toString(), SECRET_KEY: 'a1'.repeat(32) };
    try {
      const first = await startMoat({
        env: { ...env, ADMIN_EMAIL: 'boss@pg.test', ADMIN_PASSWORD: 'pg-password-1' },
      });
      expect(first.output()).toContain('created tenant "pg.test" and its admin boss@pg.test');
      const ready = await fetch(`${first.url}/readyz`).then((r) => r.json());
      expect(ready).toEqual({
        status: 'ready',
        checks: { database: 'ok', migrations: 'ok', secret_key: 'ok' },
      });
      // PostgreSQL serves many processes: the CLI connects directly while the server runs.
      const created = await runCli(['tenant:domain-add', '--tenant', 'pg.test', '--domain', 'pg2.test'], env);
      expect(created.code).toBe(0);
      expect(await first.stop()).toBe(0);
      const second = await startMoat({ env });
      const listed = await runCli(['tenant:list'], env);
      expect(listed.stdout).toContain('pg.test, pg2.test');
      await second.stop();
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
