import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API } from '@moat/contracts/api-paths';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { MAIL_EXPLORER_API } from '@moat/contracts/mail-explorer';
import { POLICY_API } from '@moat/contracts/policy';
import { QUARANTINE_ADMIN_ROUTES } from '@moat/contracts/quarantine-admin';
import { sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { removeControlFile, writeControlFile } from '../cli/control-file.ts';
import { shippedMigrations } from '../db/backup/migrations.ts';
import { type Database, type Db, type DbOrTx, openPglite, rowsOf } from '../db/client.ts';
import { users } from '../db/schema.ts';
import { hashPassword } from '../lib/passwords.ts';
import { ServerKey } from '../lib/server-key.ts';
import { newTotpSecret, totpCode } from '../lib/totp.ts';
import { MFA_SECRET_PURPOSE } from '../modules/auth/mfa-challenge.service.ts';
import { buildTestApp, TEST_BRIDGE_TOKEN } from './app.ts';
import { buildTenant, buildUser } from './factories.ts';
import { Jar, login, postJson } from './sign-in.ts';

/**
 * Installations on disk for the backup, restore and copy tests: a data folder with its embedded
 * database and `secret.key`, the real app on it with the CLI bridge listening on loopback and its
 * `control.json` (as `npm start` leaves them), and its SMTP front door.
 */

const TEMPLATES = path.join(os.tmpdir(), 'moat-test-installations');

/** A PGlite cluster, kept as a tarball in the temporary folder: initdb (and migrating) once, not per test. */
async function cachedCluster(
  name: string,
  make: (database: Database & { dumpDataDir(): Promise<Blob> }) => Promise<void>,
) {
  const file = path.join(TEMPLATES, `${name}.tar`);
  if (fs.existsSync(file)) return new Blob([new Uint8Array(fs.readFileSync(file))]);
  const database = await openPglite(null);
  await make(database);
  const dump = await database.dumpDataDir();
  await database.close();
  fs.mkdirSync(TEMPLATES, { recursive: true });
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, file);
  return dump;
}

const pgliteVersion = () =>
  (
    JSON.parse(
      fs.readFileSync(
        path.join(import.meta.dirname, '../../../../node_modules/@electric-sql/pglite/package.json'),
        'utf8',
      ),
    ) as { version: string }
  ).version;

/** An empty cluster, as initdb leaves it: what a new DATA_DIR gets. */
export const emptyCluster = () => cachedCluster(`empty-${pgliteVersion()}`, async () => {});

/** A cluster migrated by this build's migrations. */
export function migratedCluster() {
  const hash = createHash('sha256');
  for (const m of shippedMigrations()) hash.update(m.hash);
  return cachedCluster(`migrated-${pgliteVersion()}-${hash.digest('hex').slice(0, 16)}`, (db) =>
    db.migrate(),
  );
}

/** A new data folder whose embedded database starts from `cluster` (a restore target: `emptyCluster()`). */
export async function prepareDataDir(dataDir: string, cluster: Blob, secret?: Buffer) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (secret) fs.writeFileSync(path.join(dataDir, 'secret.key'), secret.toString('hex'), { mode: 0o600 });
  const database = await openPglite(path.join(dataDir, 'pgdata'), { loadDataDir: cluster });
  return database;
}

/** DNS for tests: no records anywhere, answered at once. */
export const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

export const TEST_ENV = { CAPTCHA_DIFFICULTY: '10', SMTP_HOSTNAME: 'mx.moat.test' };

/** A running installation on `dataDir` (its embedded database made from the migrated template). */
export async function startInstallation(
  dataDir: string,
  /** `database`: another database than an embedded one in `dataDir` (PostgreSQL: no CLI bridge then). */
  options: { secret?: Buffer; database?: Database } = {},
) {
  const secret = options.secret ?? randomBytes(32);
  const database = options.database ?? (await prepareDataDir(dataDir, await migratedCluster(), secret));
  const bridge = database.kind === 'pglite';
  const serverKey = ServerKey.inMemory(secret);
  const t = await buildTestApp({ database, serverKey, dnsResolver: noDns as never, env: TEST_ENV });
  await t.app.services.cluster.ensureKey();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as { port: number }).port;
  if (bridge) writeControlFile(dataDir, { pid: process.pid, port, token: TEST_BRIDGE_TOKEN });
  const smtp = t.app.services.gateway.frontDoor();
  const smtpPort = await smtp.listen(0, '127.0.0.1');
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
    name: 'client.test',
    pool: true,
    maxConnections: 4,
  });
  let stopped = false;
  return {
    ...t,
    dataDir,
    secret,
    serverKey,
    transport,
    /** Stop as `npm start` does on SIGTERM: SMTP, the app, the database; control.json removed. */
    async stop() {
      if (stopped) return;
      stopped = true;
      transport.close();
      await smtp.close();
      if (bridge) removeControlFile(dataDir, process.pid);
      await t.close();
    },
  };
}
export type Installation = Awaited<ReturnType<typeof startInstallation>>;

export const PASSWORD = 'a long password 1';
export const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

/**
 * Real data in an installation: an organisation with an admin (signed in: a session), a user, a
 * user with MFA (its secret sealed with the server key), a changed policy, and mail through the
 * SMTP front door: a clean message, one with EICAR (held) and one with a 120 KB attachment.
 */
export async function populate(inst: Installation, domain = 'acme.test') {
  const tenant = await buildTenant(inst.db, {
    domain,
    logo: new Uint8Array(randomBytes(2048)),
    logoMime: 'image/png',
  });
  const passwordHash = await hashPassword(PASSWORD);
  await buildUser(inst.db, tenant.id, { email: `admin@${domain}`, role: 'admin', passwordHash });
  await buildUser(inst.db, tenant.id, {
    email: `ana@${domain}`,
    role: 'user',
    passwordHash,
    firstName: 'Ana',
  });
  const mfaSecret = newTotpSecret();
  await buildUser(inst.db, tenant.id, {
    email: `bo@${domain}`,
    role: 'user',
    passwordHash,
    mfaEnabled: true,
    mfaSecret: inst.serverKey.encrypt(MFA_SECRET_PURPOSE, mfaSecret),
  });
  const admin = new Jar();
  const signedIn = await login(inst.app, admin, `admin@${domain}`, PASSWORD);
  if (!admin.session) throw new Error(`no session: ${signedIn.body}`);
  const policy = await postJson(
    inst.app,
    admin,
    POLICY_API.policy,
    {
      verdicts: {
        phishing: { action: 'quarantine' },
        malware: { action: 'quarantine' },
        spam: { action: 'deliver_banner' },
        suspicious: { action: 'quarantine_silent' },
      },
      overrides: [{ match: 'recipient', value: `ana@${domain}`, verdict: 'spam', action: 'quarantine' }],
      spam_thresholds: { suspicious: 3.5, spam: 7 },
    },
    'PUT',
  );
  if (policy.statusCode !== 200) throw new Error(`policy: ${policy.body}`);
  const from = 'Bob <bob@outside.test>';
  await inst.transport.sendMail({ from, to: `ana@${domain}`, subject: 'Lunch', text: 'Lunch at noon?' });
  await inst.transport.sendMail({
    from,
    to: `ana@${domain}`,
    subject: 'Invoice with EICAR',
    text: 'See attached',
    attachments: [{ filename: 'invoice.pdf', content: EICAR }],
  });
  await inst.transport.sendMail({
    from,
    to: `admin@${domain}`,
    subject: 'Big report',
    text: 'The figures',
    attachments: [{ filename: 'report.bin', content: randomBytes(120_000) }],
  });
  await settled(inst);
  return { tenant, domain, admin, mfaSecret };
}

/**
 * Every message taken in is processed: the test's pass, and the passes each arrival kicked off
 * in the background (they may still be finishing one when the test's own pass ends).
 */
export async function settled(inst: Installation): Promise<void> {
  await inst.app.services.gateway.processor.drain();
  for (let i = 0; i < 500; i++) {
    const [row] = rowsOf<{ n: number }>(
      await inst.db.execute(
        sql`select count(*)::int as n from inbound_messages where status not in ('processed', 'failed')`,
      ),
    );
    if (row!.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('inbound messages still unprocessed after 5 s');
}

/**
 * Every table's rows in one digest each (rows as JSON text, in a fixed order), so two databases
 * can be compared whole: the same digests are the same data, bytea and sealed values included.
 */
export async function tableDigests(db: Db): Promise<Record<string, string>> {
  return db.transaction(async (tx: DbOrTx) => {
    await tx.execute(sql.raw(`set local bytea_output = 'hex'`));
    await tx.execute(sql.raw(`set local timezone = 'UTC'`));
    await tx.execute(sql.raw('set local extra_float_digits = 3'));
    const tables = rowsOf<{ name: string }>(
      await tx.execute(sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r' order by 1`),
    );
    const out: Record<string, string> = {};
    for (const { name } of tables) {
      const [row] = rowsOf<{ n: string | number; digest: string }>(
        await tx.execute(
          sql.raw(`select count(*) as n, md5(coalesce(string_agg(r, chr(10) order by r collate "C"), '')) as digest
            from (select row_to_json(x)::text as r from "${name}" x) y`),
        ),
      );
      out[name] = `${row!.n}:${row!.digest}`;
    }
    return out;
  });
}

/** Users' rows as they are stored (sealed MFA secrets and password hashes included). */
export const storedUsers = (db: Db) => db.select().from(users).orderBy(users.email);

/** A new, empty database on the TEST_DATABASE_URL server and its URL; `drop()` removes it. */
export async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('needs TEST_DATABASE_URL');
  const name = `moat_backup_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

/** The app on a restored or copied database, with the key of the installation it came from. */
export async function appOn(database: Database, secret: Buffer) {
  const t = await buildTestApp({
    database,
    serverKey: ServerKey.inMemory(secret),
    dnsResolver: noDns as never,
    env: TEST_ENV,
  });
  // As at start-up: a key other than the one the data were sealed with is refused.
  await t.app.services.cluster.ensureKey();
  return t;
}

/**
 * What people get from an installation made from `populate`'s: the admin's session still open,
 * sign-in with the password, sign-in with MFA (the sealed secret opens), Mail Explorer's rows,
 * the held message and its original bytes, and the policy.
 */
export async function whatPeopleSee(
  t: { app: Awaited<ReturnType<typeof buildTestApp>>['app'] },
  data: { domain: string; admin: Jar; mfaSecret: string },
) {
  const get = (jar: Jar, url: string) =>
    t.app.inject({ method: 'GET', url, cookies: jar.cookies, remoteAddress: jar.ip });
  const session = await get(data.admin, API.currentUser);
  const ana = new Jar();
  const anaSignIn = await login(t.app, ana, `ana@${data.domain}`, PASSWORD);
  const bo = new Jar();
  const boFirst = await login(t.app, bo, `bo@${data.domain}`, PASSWORD);
  const boCode = await postJson(t.app, bo, AUTH_API.mfaCode, { code: totpCode(data.mfaSecret, new Date()) });
  const mail = (await get(data.admin, MAIL_EXPLORER_API.messages)).json() as {
    items: Array<{ subject: string; verdict: string; action: string; recipient: string }>;
  };
  const held = (await get(data.admin, QUARANTINE_ADMIN_ROUTES.messages)).json() as {
    items: Array<{ id: string; subject: string }>;
  };
  const eicar = held.items.find((m) => m.subject === 'Invoice with EICAR');
  const eml = eicar
    ? (await get(data.admin, QUARANTINE_ADMIN_ROUTES.messageEml.replace(':id', eicar.id))).rawPayload
    : null;
  const policy = (await get(data.admin, POLICY_API.policy)).json() as Record<string, unknown>;
  return {
    session: { status: session.statusCode, email: (session.json() as { email?: string }).email },
    passwordSignIn: { status: anaSignIn.statusCode, session: Boolean(ana.session) },
    mfaSignIn: {
      first: (boFirst.json() as { next?: string }).next,
      code: boCode.json(),
      session: Boolean(bo.session),
    },
    mail: mail.items.map((m) => `${m.subject} → ${m.recipient}: ${m.verdict}, ${m.action}`).sort(),
    held: held.items.map((m) => m.subject).sort(),
    emlSha256: eml ? createHash('sha256').update(eml).digest('hex') : null,
    policy: {
      verdicts: policy.verdicts,
      overrides: policy.overrides,
      spam_thresholds: policy.spam_thresholds,
    },
  };
}
