import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API } from '@moat/contracts/api-paths';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { MAIL_EXPLORER_API } from '@moat/contracts/mail-explorer';
import { POLICY_API } from '@moat/contracts/policy';
import { QUARANTINE_ADMIN_ROUTES } from '@moat/contracts/quarantine-admin';
import { SMART_BANNERS_API } from '@moat/contracts/smart-banners';
import { USER_INTERACTION_SETTINGS_API } from '@moat/contracts/user-interaction-settings';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runDatabaseCommand } from '../cli/database-commands.ts';
import { ServerKey } from '../lib/server-key.ts';
import { totpCode } from '../lib/totp.ts';
import { buildTestApp } from '../test/app.ts';
import { emptyCluster, freshPostgres, noDns, prepareDataDir, TEST_ENV } from '../test/installation.ts';
import { Jar, login, postJson } from '../test/sign-in.ts';
import { appliedMigrations, shippedMigrations } from './backup/migrations.ts';
import { type Database, openPglite, openPostgres } from './client.ts';
import type { RemotePglite } from './pglite-remote.ts';

/**
 * Upgrades keep data. fixtures/moat-606578d.sql is a pg_dump of a Moat of commit 606578d
 * (migrations up to 0020) that took mail through its gateway, signed people in, turned MFA on
 * and changed its policy (fixtures/README.md says how it was made). Loaded into an empty
 * database — PGlite here, PostgreSQL in the api-postgres project — and migrated by this build, it
 * must serve the same people, mail and policy.
 */
const FIXTURE = path.join(import.meta.dirname, 'fixtures/moat-606578d.sql');
/** The old installation's SECRET_KEY, its admin's session cookie, Bo's MFA secret, and when it was made. */
const OLD = {
  secretKey: 'eba0a715c96aab8fe491870a4bcab32aa4aff396b038718f4ddac90590c56168',
  adminSession: 'z0cYrTpLEqrWpC8eXo0dqAzKWbQem5bLzUr7RML8PZ4',
  boMfaSecret: '7BUCESBY2J3NLEMGM3G6OCNETCRS47QE',
  madeAt: '2026-12-02T06:24:51Z',
  migrations: 21,
};
const onPostgres = process.env.MOAT_TEST_DB === 'postgres';
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A new, empty database holding the old installation, as pg_dump's SQL put it there. */
async function oldInstallation(): Promise<{ database: Database; url?: string }> {
  const dump = fs.readFileSync(FIXTURE, 'utf8');
  if (onPostgres) {
    const target = await freshPostgres();
    cleanups.push(target.drop);
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    await client.query(dump);
    await client.end();
    return { database: await openPostgres(target.url), url: target.url };
  }
  const database = await openPglite(null, { loadDataDir: await emptyCluster() });
  const client = (database.db as unknown as { $client: RemotePglite }).$client;
  await client.exec(dump);
  // pg_dump empties the search_path of its session: this one goes on serving the app.
  await client.exec('reset all');
  return { database };
}

/**
 * This build's app on a database, with the old installation's key. Its sessions are moved to
 * now as if it had stopped five minutes ago (sessions end after 30 idle minutes; the captcha and
 * the codes go by the real clock).
 */
async function appOn(database: Database) {
  const since = (Date.now() - new Date(OLD.madeAt).getTime() - 5 * 60_000) / 1000;
  await database.db.execute(sql`update sessions set
    created_at = created_at + ${since}::double precision * interval '1 second',
    last_seen_at = last_seen_at + ${since}::double precision * interval '1 second',
    expires_at = expires_at + ${since}::double precision * interval '1 second'`);
  const t = await buildTestApp({
    database,
    serverKey: ServerKey.inMemory(Buffer.from(OLD.secretKey, 'hex')),
    dnsResolver: noDns as never,
    env: TEST_ENV,
  });
  cleanups.push(() => t.close());
  return t;
}

/** What the old installation's people find in the upgraded one. */
async function whatTheyFind(t: Awaited<ReturnType<typeof appOn>>) {
  const admin = new Jar();
  admin.cookies.moat_session = OLD.adminSession;
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, cookies: admin.cookies, remoteAddress: admin.ip });
    expect(res.statusCode, url).toBe(200);
    return res;
  };
  const me = (await get(API.currentUser)).json() as { email: string };
  const mail = (await get(MAIL_EXPLORER_API.messages)).json() as {
    items: Array<{ subject: string; verdict: string; action: string; recipient: string }>;
  };
  const held = (await get(QUARANTINE_ADMIN_ROUTES.messages)).json() as {
    items: Array<{ id: string; subject: string; verdict: string }>;
  };
  const eml = (await get(QUARANTINE_ADMIN_ROUTES.messageEml.replace(':id', held.items[0]!.id))).body;
  const policy = (await get(POLICY_API.policy)).json() as Record<string, unknown>;
  const banners = (await get(SMART_BANNERS_API.settings)).json() as {
    verdicts: Record<string, { text: string; action: string }>;
  };
  const quarantine = (await get(USER_INTERACTION_SETTINGS_API.quarantine)).json() as Record<string, unknown>;

  const ana = new Jar();
  const anaSignIn = await login(t.app, ana, 'ana@acme.test', 'old user password 1');
  const bo = new Jar();
  const boFirst = await login(t.app, bo, 'bo@acme.test', 'old user password 1');
  const boCode = await postJson(t.app, bo, AUTH_API.mfaCode, {
    code: totpCode(OLD.boMfaSecret, new Date()),
  });
  return {
    admin: me.email,
    mail: mail.items.map((m) => `${m.subject} → ${m.recipient}: ${m.verdict}, ${m.action}`).sort(),
    held: held.items.map((m) => `${m.subject}: ${m.verdict}`),
    eml: { subject: eml.includes('Subject: Invoice with EICAR'), eicar: eml.includes('invoice.pdf') },
    policy: {
      spam: (policy.verdicts as Record<string, { action: string }>).spam!.action,
      suspicious: (policy.verdicts as Record<string, { action: string }>).suspicious!.action,
      overrides: (policy.overrides as Array<Record<string, string>>).map(
        (o) => `${o.match} ${o.value}: ${o.verdict} → ${o.action}`,
      ),
    },
    banners: Object.fromEntries(Object.entries(banners.verdicts).map(([v, b]) => [v, b.text])),
    digest: quarantine.digest_schedule,
    passwordSignIn: { status: anaSignIn.statusCode, session: Boolean(ana.session) },
    mfaSignIn: {
      first: (boFirst.json() as { next: string }).next,
      code: boCode.json(),
      session: Boolean(bo.session),
    },
  };
}

const BANNER = 'Careful: Moat thinks this message is not what it seems';
const FOUND = {
  admin: 'admin@acme.test',
  mail: [
    'Invoice with EICAR → ana@acme.test: malware, quarantined',
    'Lunch → ana@acme.test: clean, delivered',
    'Quarterly figures → admin@acme.test: clean, delivered',
  ],
  held: ['Invoice with EICAR: malware'],
  eml: { subject: true, eicar: true },
  policy: {
    spam: 'deliver_banner',
    suspicious: 'quarantine_silent',
    overrides: ['recipient ana@acme.test: spam → quarantine'],
  },
  // The old Policy screen's one banner text became each verdict's banner (migration 0030).
  banners: { phishing: BANNER, spam: BANNER, suspicious: BANNER },
  digest: 'weekly',
  passwordSignIn: { status: 200, session: true },
  mfaSignIn: { first: 'mfa_code', code: expect.objectContaining({ success: true }), session: true },
};

describe('an installation made by an older Moat (commit 606578d, migrations up to 0020)', () => {
  it("is migrated by this build's migrations and keeps its mail, people, sessions, MFA and policy", async () => {
    const { database } = await oldInstallation();
    expect(await appliedMigrations(database.db)).toHaveLength(OLD.migrations);
    await database.migrate();
    expect((await appliedMigrations(database.db)).map((m) => m.tag)).toEqual(
      shippedMigrations().map((m) => m.tag),
    );
    const t = await appOn(database);
    // The key it was set up with is the one recorded: it would start.
    await t.app.services.cluster.ensureKey();
    expect(await whatTheyFind(t)).toEqual(FOUND);
  });

  it('backed up by this build before its upgrade, restores into an empty embedded database and is upgraded on the way', async () => {
    const { database, url } = await oldInstallation();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-upgrade-test-'));
    cleanups.push(async () => fs.rmSync(root, { recursive: true, force: true }));
    const old = path.join(root, 'old');
    if (!url) {
      // The old embedded installation as a data folder, as it was left on disk.
      const dump = await (database as Database & { dumpDataDir(): Promise<Blob> }).dumpDataDir();
      await database.close();
      await (await openPglite(path.join(old, 'pgdata'), { loadDataDir: dump })).close();
    } else {
      await database.close();
    }
    const config = { dataDir: old, databaseUrl: url, secretKey: url ? OLD.secretKey : undefined };
    const backup = await runDatabaseCommand('db:backup', { out: 'old.backup.gz' }, { config, cwd: root });
    expect(backup).toMatchObject({ exitCode: 0, stderr: '' });
    expect(backup.stdout).toContain('schema 0020_phishing_reports (21 migrations)');

    const target = path.join(root, 'restored');
    await (await prepareDataDir(target, await emptyCluster(), Buffer.from(OLD.secretKey, 'hex'))).close();
    const restored = await runDatabaseCommand(
      'db:restore',
      { from: 'old.backup.gz' },
      { config: { dataDir: target, databaseUrl: undefined, secretKey: undefined }, cwd: root },
    );
    expect(restored).toMatchObject({ exitCode: 0, stderr: '' });
    expect(restored.stdout).toContain(
      `Schema: the backup's 21 migrations (up to 0020_phishing_reports), then this Moat's ${shippedMigrations().length - 21} newer ones (0021_default_apps,`,
    );
    expect(restored.stdout).toContain('is the key the backup');
    const upgraded = await openPglite(path.join(target, 'pgdata'));
    const t = await appOn(upgraded);
    expect(await whatTheyFind(t)).toEqual(FOUND);
  });
});
