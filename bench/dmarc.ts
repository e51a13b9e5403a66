/**
 * DMARC at scale (issue 37 "Scale"): a tenant whose reports hold a million rows a month, a year of
 * them on PostgreSQL (12 M `dmarc_records`, their `dmarc_reports`, `dmarc_daily` and intake rows),
 * and the requests the Overview and the Reports Explorer make, through HTTP on loopback to a
 * running Moat app as a signed-in admin. Each request is timed in turn with an authenticated
 * `GET /api/v1/current_user` of the same run (interleaved: floor, request, floor, request, …):
 * median and p95 per request, and their ratio to the floor's. The goal is p95 ≤ 200 ms.
 *
 * The year is made on the server (INSERT … SELECT over generate_series, the tables' indexes and
 * keys dropped meanwhile and built after) into a database kept between runs: `moat_bench_dmarc_r<rows a month>_f<N>_<hash>`,
 * at the schema of the migrations up to FIXTURE_SCHEMA and named after its size, them and the
 * fixture's version, so it is made again only when either changes. Each run copies it
 * (CREATE DATABASE … TEMPLATE), applies the later migrations to the copy (their time is reported:
 * what an upgrade costs on a year of data), measures, and drops the copy.
 *
 * BENCH_DATABASE_URL (or BENCH_PG_URL): the PostgreSQL server (default
 * postgres://postgres@127.0.0.1:5432/postgres). BENCH_DMARC_RUNS: requests per kind after the
 * warm-up (default 40). BENCH_DMARC_MONTH_ROWS: rows a month (default 1,000,000; a smaller
 * fixture is another cached database). BENCH_DMARC_CACHE=0: drop the fixture at the end too.
 * BENCH_DMARC_KEEP_COPY=1: keep the measured copy (its name is printed) for EXPLAIN;
 * BENCH_DMARC_REUSE_COPY=<that name>: measure it again as it is.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { MIGRATIONS_DIR, openPostgres } from '../apps/api/src/db/client.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { hashToken, newToken } from '../apps/api/src/lib/tokens.ts';
import { startDnsServer } from '../apps/api/src/test/dns-server.ts';
import { median, PG_SERVER_URL } from './support.ts';

/** Bump when the generated data changes: the cached fixture is then made again. */
const FIXTURE_VERSION = 1;
/** The last migration the fixture is loaded at (the DMARC tables and `dmarc_daily`). */
const FIXTURE_SCHEMA = '0036_dmarc_intake';
const RUNS = Number(process.env.BENCH_DMARC_RUNS ?? 40);
const MONTH_ROWS = Number(process.env.BENCH_DMARC_MONTH_ROWS ?? 1_000_000);
const CACHE = process.env.BENCH_DMARC_CACHE !== '0';
const KEEP_COPY = process.env.BENCH_DMARC_KEEP_COPY === '1';
/** A kept copy to measure again as it is (no copy, no drop): for working on the queries. */
const REUSE = process.env.BENCH_DMARC_REUSE_COPY?.replace(/[^a-z0-9_]/g, '');
const DAYS = 365;
/** Per day: each reporter sends one report per domain. */
const REPORTERS = 60;
/** The tenant's domains and their share of the mail, and the policy each publishes. */
const DOMAINS = [
  { domain: 'bench-corp.test', share: 0.5, p: 'reject' },
  { domain: 'bench-mail.test', share: 0.3, p: 'quarantine' },
  { domain: 'bench-shop.test', share: 0.15, p: 'none' },
  { domain: 'bench-old.test', share: 0.05, p: 'none' },
];
const IP_POOL = 50_000;
/** The pool's first addresses are the legitimate senders (mostly pass); the long tail mostly fails. */
const LEGIT = 3_000;
const LEGIT_NETWORKS = [
  '209.85.',
  '40.107.',
  '52.100.',
  '167.89.',
  '198.2.',
  '54.240.',
  '66.163.',
  '17.58.',
  '149.72.',
  '185.12.',
  '192.254.',
  '69.171.',
  '74.125.',
  '104.47.',
  '13.111.',
  '136.147.',
  '35.190.',
  '173.0.',
  '50.31.',
  '23.249.',
];

const round = (n: number) => Math.round(n * 100) / 100;
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const loadOf = () => os.loadavg().map(round);

interface Migration {
  tag: string;
  when: number;
  hash: string;
}
/** The shipped migrations as drizzle records them (sha256 of each file). */
function migrations(): Migration[] {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string; when: number }>;
  };
  return journal.entries.map((e) => ({
    tag: e.tag,
    when: e.when,
    hash: crypto
      .createHash('sha256')
      .update(fs.readFileSync(path.join(MIGRATIONS_DIR, `${e.tag}.sql`)).toString())
      .digest('hex'),
  }));
}

/** A migrations folder holding the shipped ones up to `last`: what the fixture is loaded at. */
function migrationsUpTo(last: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-dmarc-migrations-'));
  fs.mkdirSync(path.join(dir, 'meta'));
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  const end = journal.entries.findIndex((e) => e.tag === last);
  if (end < 0) throw new Error(`no migration ${last}`);
  const entries = journal.entries.slice(0, end + 1);
  for (const e of entries)
    fs.copyFileSync(path.join(MIGRATIONS_DIR, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  fs.writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }));
  return dir;
}

function urlOf(name: string) {
  const url = new URL(PG_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Drops a table's keys and indexes; the returned function builds them again (same names). */
async function withoutIndexes(c: pg.Client, table: string): Promise<() => Promise<void>> {
  const { rows: constraints } = await c.query<{ name: string; def: string; type: string }>(
    `select conname as name, pg_get_constraintdef(oid) as def, contype as type from pg_constraint
     where conrelid = $1::regclass and contype in ('p', 'f', 'u') order by contype = 'f', conname`,
    [table],
  );
  const { rows: indexes } = await c.query<{ name: string; def: string }>(
    `select i.relname as name, pg_get_indexdef(i.oid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
     where x.indrelid = $1::regclass and not exists (select 1 from pg_constraint k where k.conindid = i.oid)`,
    [table],
  );
  for (const k of [...constraints].reverse())
    await c.query(`alter table ${table} drop constraint "${k.name}"`);
  for (const i of indexes) await c.query(`drop index "${i.name}"`);
  return async () => {
    for (const i of indexes) await c.query(i.def);
    for (const k of constraints) await c.query(`alter table ${table} add constraint "${k.name}" ${k.def}`);
  };
}

/** The tenant, its domains and a year of reports, their rows, daily sums and intake. */
async function loadFixture(c: pg.Client, log: (s: string) => void) {
  await c.query(`set synchronous_commit = off`);
  await c.query(`set maintenance_work_mem = '1GB'`);
  await c.query(`set work_mem = '256MB'`);
  const {
    rows: [tenant],
  } = await c.query<{ id: string }>(`insert into tenants (name) values ('DMARC bench') returning id`);
  const tenantId = tenant!.id;
  for (const d of DOMAINS)
    await c.query(`insert into tenant_domains (tenant_id, domain) values ($1, $2)`, [tenantId, d.domain]);
  await c.query(`select setseed(0.37)`);
  await c.query(
    `create temp table bench_ips as
     select i, case
         when i < $1 then ($2::text[])[1 + i % array_length($2::text[], 1)] || (i / array_length($2::text[], 1)) || '.' || (1 + i % 7)
         when i % 20 = 0 then '2001:db8:' || to_hex(i) || '::' || to_hex(1 + i % 4093)
         else ((h >> 24) & 255) || '.' || ((h >> 16) & 255) || '.' || ((h >> 8) & 255) || '.' || (h & 255)
       end as addr, i < $1 as legit
     from (select i, (i::bigint * 2654435761) % 4294967296 as h from generate_series(0, $3 - 1) i) s`,
    [LEGIT, LEGIT_NETWORKS, IP_POOL],
  );
  await c.query(`create unique index on bench_ips (i)`);
  await c.query(`analyze bench_ips`);
  // Reports: one per reporter, domain and day; the rows of a day split among reporters as Zipf
  // (the first reporters are the big mailbox providers) and among domains by their share.
  const dayRows = (MONTH_ROWS * 12) / DAYS;
  const harmonic = Array.from({ length: REPORTERS }, (_, o) => 1 / (o + 1)).reduce((a, b) => a + b, 0);
  const raw = gzipSync(Buffer.from('<?xml version="1.0"?><feedback><report_metadata/></feedback>'));
  let started = performance.now();
  await c.query(
    `insert into dmarc_reports (tenant_id, domain, org_name, org_email, report_id, begin_at, end_at, policy,
       messages, rows, source, raw_gzip, received_at)
     select $1, d.domain, 'Reporter ' || o, 'dmarc-noreply@reporter' || o || '.example', 'bench-' || day || '-' || o || '-' || d.n,
       b.begin_at, b.begin_at + interval '1 day',
       jsonb_build_object('p', d.p, 'sp', d.p, 'adkim', 'r', 'aspf', 'r', 'pct', 100), 0,
       greatest(1, round($2 * d.share / (o + 1) / $3 * (0.8 + 0.4 * random())))::int,
       case when o % 17 = 3 then 'upload' else 'mail' end, $4,
       b.begin_at + interval '1 day' + (2 + 6 * random()) * interval '1 hour'
     from generate_series(1, $5::int) day
     cross join generate_series(0, $6::int - 1) o
     cross join (select * from unnest($7::text[], $8::float8[], $9::text[]) with ordinality as x(domain, share, p, n)) d
     cross join lateral (select date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'
       - day * interval '1 day' + case when o % 5 = 4 then interval '7 hours' else interval '0' end as begin_at) b`,
    [
      tenantId,
      dayRows,
      harmonic,
      raw,
      DAYS,
      REPORTERS,
      DOMAINS.map((d) => d.domain),
      DOMAINS.map((d) => d.share),
      DOMAINS.map((d) => d.p),
    ],
  );
  await c.query(`analyze dmarc_reports`);
  log(`reports: ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const rebuildRecords = await withoutIndexes(c, 'dmarc_records');
  const rebuildDaily = await withoutIndexes(c, 'dmarc_daily');
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const CHUNK = 30;
  for (let first = DAYS; first >= 1; first -= CHUNK) {
    started = performance.now();
    const last = Math.max(1, first - CHUNK + 1);
    const from = new Date(today - first * 86_400_000);
    const to = new Date(today - (last - 1) * 86_400_000);
    // Each row's source drawn from the pool with a long tail (the cube of a uniform draw); its
    // results from whether it is a legitimate sender; counts larger for those.
    await c.query(
      `insert into dmarc_records (report_id, tenant_id, domain, begin_at, source_ip, count, disposition, dkim, spf,
         header_from, envelope_from, envelope_to, dkim_results, spf_results, reasons)
       select report_id, tenant_id, domain, begin_at, addr, cnt,
         case when dkim = 'pass' or spf = 'pass' then 'none' else p end, dkim, spf,
         domain, envelope_from, '',
         jsonb_build_array(jsonb_build_object('domain', dkim_domain, 'selector', 's' || (i % 3), 'result', dkim)),
         jsonb_build_array(jsonb_build_object('domain', envelope_from, 'scope', 'mfrom', 'result', spf)),
         case when not legit and u3 < 0.1 then '[{"type":"forwarded","comment":""}]'::jsonb else '[]'::jsonb end
       from (
         select y.*, ip.addr, ip.legit, ip.i,
           case when (ip.legit and u1 < 0.96) or (not ip.legit and u1 < 0.08) then 'pass' else 'fail' end as dkim,
           case when (ip.legit and u2 < 0.93) or (not ip.legit and u2 < 0.05) then 'pass' else 'fail' end as spf,
           case when ip.legit then 1 + floor(power(u3, 3) * 3000) else 1 + floor(power(u3, 8) * 40) end as cnt,
           case when ip.legit then y.domain else 'bounce' || (ip.i % 97) || '.example' end as envelope_from,
           case when ip.legit then y.domain else 'mailer' || (ip.i % 89) || '.example' end as dkim_domain
         from (
           select r.id as report_id, r.tenant_id, r.domain, r.begin_at, r.policy->>'p' as p,
             floor($4 * power(random(), 3))::int as s, random() as u1, random() as u2, random() as u3
           from dmarc_reports r cross join lateral generate_series(1, r.rows) k
           where r.tenant_id = $1 and r.begin_at >= $2 and r.begin_at < $3
         ) y join bench_ips ip on ip.i = y.s
       ) z`,
      [tenantId, from, to, IP_POOL],
    );
    // The daily sums as migration 0036 makes them from the rows.
    await c.query(
      `insert into dmarc_daily (tenant_id, domain, day, source_ip, messages, passed, reports)
       select tenant_id, domain, (begin_at at time zone 'UTC')::date, source_ip, sum(count),
         coalesce(sum(count) filter (where dkim = 'pass' or spf = 'pass'), 0), count(distinct report_id)
       from dmarc_records where tenant_id = $1 and begin_at >= $2 and begin_at < $3 group by 1, 2, 3, 4`,
      [tenantId, from, to],
    );
    log(
      `days ${first}..${last} ago: ${((performance.now() - started) / 1000).toFixed(1)} s, load ${loadOf().join(' ')}`,
    );
  }
  started = performance.now();
  await c.query(
    `update dmarc_reports r set messages = s.messages
     from (select report_id, sum(count) as messages from dmarc_records group by 1) s where s.report_id = r.id`,
  );
  await rebuildRecords();
  await rebuildDaily();
  log(`report sums, indexes and keys: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // Intake: each report's file (most came by mail), some files refused, some reports sent twice.
  await c.query(
    `insert into dmarc_intake (tenant_id, received_at, source, sender, subject, file_name, kind, outcome, reason,
       report_id, inbound_id, part)
     select tenant_id, received_at, source, case when source = 'mail' then org_email else '' end,
       case when source = 'mail' then 'Report Domain: ' || domain || ' Submitter: ' || org_name || ' Report-ID: ' || report_id else '' end,
       replace(org_name, ' ', '') || '!' || domain || '!' || extract(epoch from begin_at)::bigint || '!' || extract(epoch from end_at)::bigint || '.xml.gz',
       'aggregate', 'added', '', id, case when source = 'mail' then gen_random_uuid() end, 0
     from dmarc_reports where tenant_id = $1`,
    [tenantId],
  );
  await c.query(
    `insert into dmarc_intake (tenant_id, received_at, source, sender, subject, file_name, kind, outcome, reason, report_id, inbound_id, part)
     select $1, now() - random() * interval '365 days', 'mail', 'reports@sender' || (g % 40) || '.example',
       case when g % 3 = 0 then 'Report Domain: bench-corp.test' else 'Delivery report' end,
       case when g % 2 = 0 then 'report.zip' else 'notice.txt' end,
       'unknown', 'refused', 'Not a DMARC aggregate report', null, gen_random_uuid(), 0
     from generate_series(1, 2000) g`,
    [tenantId],
  );
  await c.query(
    `insert into dmarc_intake (tenant_id, received_at, source, sender, subject, file_name, kind, outcome, reason, report_id, inbound_id, part)
     select tenant_id, received_at + interval '1 hour', 'mail', org_email, 'Report Domain: ' || domain, 'again.xml.gz',
       'aggregate', 'duplicate', 'Already taken in', id, gen_random_uuid(), 0
     from dmarc_reports where tenant_id = $1 and random() < 0.01`,
    [tenantId],
  );
  started = performance.now();
  await c.query(`vacuum (analyze) dmarc_reports, dmarc_records, dmarc_daily, dmarc_intake`);
  log(`vacuum analyze: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The cached fixture database (made now when missing), and what it holds. */
async function fixture(admin: pg.Client, log: (s: string) => void) {
  const shipped = migrations();
  const end = shipped.findIndex((m) => m.tag === FIXTURE_SCHEMA);
  const key = crypto
    .createHash('sha256')
    .update(JSON.stringify({ FIXTURE_VERSION, MONTH_ROWS, schema: shipped.slice(0, end + 1) }))
    .digest('hex')
    .slice(0, 10);
  const name = `moat_bench_dmarc_r${MONTH_ROWS}_f${FIXTURE_VERSION}_${key}`;
  // A fixture of the same size made by another version or schema is not used again.
  const { rows: stale } = await admin.query<{ datname: string }>(
    `select datname from pg_database where datname like $1 and datname <> $2`,
    [`moat\\_bench\\_dmarc\\_r${MONTH_ROWS}\\_%`, name],
  );
  for (const s of stale) {
    log(`dropping the stale fixture ${s.datname}`);
    await admin.query(`drop database if exists ${s.datname} with (force)`);
  }
  const found = await admin.query<{ info: string | null }>(
    `select shobj_description(oid, 'pg_database') as info from pg_database where datname = $1`,
    [name],
  );
  const info = found.rows[0]?.info ? (JSON.parse(found.rows[0].info) as Record<string, unknown>) : null;
  if (info) return { name, info, loaded: false };
  // Missing, or left half made by an interrupted load (the description is written last).
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const started = performance.now();
  const folder = migrationsUpTo(FIXTURE_SCHEMA);
  const pool = new pg.Pool({ connectionString: urlOf(name), max: 1 });
  try {
    await migrate(drizzle(pool), { migrationsFolder: folder });
  } finally {
    await pool.end();
    fs.rmSync(folder, { recursive: true, force: true });
  }
  await withClient(urlOf(name), (c) => loadFixture(c, log));
  const counts = await withClient(urlOf(name), async (c) => {
    const q = async (sql: string) => Number((await c.query<{ n: string }>(sql)).rows[0]!.n);
    return {
      dmarc_records: await q('select count(*) as n from dmarc_records'),
      dmarc_reports: await q('select count(*) as n from dmarc_reports'),
      dmarc_daily: await q('select count(*) as n from dmarc_daily'),
      dmarc_intake: await q('select count(*) as n from dmarc_intake'),
      distinct_sources: await q('select count(distinct source_ip) as n from dmarc_daily'),
      messages: await q('select sum(messages) as n from dmarc_daily'),
      passed: await q('select sum(passed) as n from dmarc_daily'),
      database_bytes: await q('select pg_database_size(current_database()) as n'),
    };
  });
  const made = {
    version: FIXTURE_VERSION,
    schema: FIXTURE_SCHEMA,
    load_seconds: Math.round((performance.now() - started) / 100) / 10,
    made_at: new Date().toISOString(),
    cpus: os.cpus().length,
    ...counts,
  };
  await admin.query(`comment on database ${name} is '${JSON.stringify(made).replaceAll("'", "''")}'`);
  return { name, info: made as Record<string, unknown>, loaded: true };
}

export async function benchDmarc() {
  const log = (s: string) => console.error(`[dmarc] ${s}`);
  const admin = new pg.Client({ connectionString: PG_SERVER_URL });
  await admin.connect();
  const fx = await fixture(admin, log);
  log(`fixture ${fx.name}: ${JSON.stringify(fx.info)}`);
  const copy = REUSE ?? `moat_bench_dmarc_run_${process.pid}_${Date.now()}`;
  let started = performance.now();
  if (!REUSE) await admin.query(`create database ${copy} template ${fx.name} strategy file_copy`);
  const copySeconds = (performance.now() - started) / 1000;
  log(`copied in ${copySeconds.toFixed(1)} s`);
  const database = await openPostgres(urlOf(copy));
  const dns = await startDnsServer(
    Object.fromEntries(
      DOMAINS.map((d) => [
        `_dmarc.${d.domain}`,
        { TXT: [[`v=DMARC1; p=${d.p}; rua=mailto:dmarc-reports@${d.domain}`]] },
      ]),
    ),
  );
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    started = performance.now();
    await database.migrate();
    const migrateSeconds = (performance.now() - started) / 1000;
    log(`later migrations in ${migrateSeconds.toFixed(1)} s`);
    const token = newToken();
    await withClient(urlOf(copy), async (c) => {
      const {
        rows: [tenant],
      } = await c.query<{ id: string }>(`select id from tenants where name = 'DMARC bench'`);
      const {
        rows: [user],
      } = await c.query<{ id: string }>(
        `insert into users (tenant_id, email, role, first_name, last_name)
         values ($1, 'admin@bench-corp.test', 'admin', 'Bench', 'Admin')
         on conflict (email) do update set role = 'admin' returning id`,
        [tenant!.id],
      );
      await c.query(
        `insert into sessions (token_hash, user_id, tenant_id, expires_at) values ($1, $2, $3, now() + interval '12 hours')`,
        [hashToken(token), user!.id, tenant!.id],
      );
    });
    const config = loadConfig({
      NODE_ENV: 'production',
      DATA_DIR: path.join(os.tmpdir(), 'moat-bench-dmarc'),
      DNS_SERVERS: dns.address,
    });
    app = await buildApp({ config, database, serverKey: ServerKey.inMemory(), logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const headers = { cookie: `${SESSION_COOKIE}=${token}`, 'accept-encoding': 'gzip, deflate, br' };
    const get = async (url: string) => {
      const t0 = performance.now();
      const res = await fetch(base + url, { headers });
      const body = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 300)}`);
      return { ms, body };
    };
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString();
    const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const requests: Record<string, string> = {
      'overview, 30 days': '/api/v1/dmarc/overview?days=30',
      'overview, 365 days': '/api/v1/dmarc/overview?days=365',
      'records, default (newest first, 50)': '/api/v1/dmarc/records',
      'records, page 3': '/api/v1/dmarc/records?offset=100',
      'records, one domain': '/api/v1/dmarc/records?domain=bench-mail.test',
      'records, DMARC failed': '/api/v1/dmarc/records?dmarc=fail',
      'records, address prefix (a /16 of a big sender)': '/api/v1/dmarc/records?ip=40.107.',
      'records, address prefix (a /24)': '/api/v1/dmarc/records?ip=209.85.3',
      'records, last month': `/api/v1/dmarc/records?from=${encodeURIComponent(monthStart)}&to=${encodeURIComponent(monthEnd)}`,
      'records, largest count first': '/api/v1/dmarc/records?sort=count&dir=desc',
      'records, domain + failed + last month, by count': `/api/v1/dmarc/records?domain=bench-corp.test&dmarc=fail&from=${encodeURIComponent(monthStart)}&to=${encodeURIComponent(monthEnd)}&sort=count`,
      'intake, first page': '/api/v1/dmarc/intake',
      'intake, refused': '/api/v1/dmarc/intake?outcome=refused',
    };
    const samples: Record<string, { floor: number[]; request: number[]; bytes: number }> = {};
    const loadBefore = loadOf();
    for (const [kind, url] of Object.entries(requests)) {
      const warm = await get(url); // warm-up: plans, caches
      await get('/api/v1/current_user');
      await get(url);
      const s = { floor: [] as number[], request: [] as number[], bytes: warm.body.length };
      for (let i = 0; i < RUNS; i++) {
        s.floor.push((await get('/api/v1/current_user')).ms);
        s.request.push((await get(url)).ms);
      }
      samples[kind] = s;
      const sorted = [...s.request].sort((a, b) => a - b);
      log(`${kind}: median ${round(median(s.request))} ms, p95 ${round(percentile(sorted, 95))} ms`);
    }
    const results = Object.fromEntries(
      Object.entries(samples).map(([kind, s]) => {
        const req = [...s.request].sort((a, b) => a - b);
        const floor = [...s.floor].sort((a, b) => a - b);
        return [
          kind,
          {
            url: requests[kind],
            median_ms: round(median(req)),
            p95_ms: round(percentile(req, 95)),
            floor_median_ms: round(median(floor)),
            floor_p95_ms: round(percentile(floor, 95)),
            ratio_median: round(median(req) / median(floor)),
            ratio_p95: round(percentile(req, 95) / percentile(floor, 95)),
            meets_200ms_p95: percentile(req, 95) <= 200,
            response_bytes: s.bytes,
            runs: s.request.length,
          },
        ];
      }),
    );
    const result = {
      cpus: os.cpus().length,
      postgres: (await admin.query<{ v: string }>('show server_version')).rows[0]!.v,
      fixture: { name: fx.name, loaded_now: fx.loaded, ...fx.info },
      copy_seconds: round(copySeconds),
      later_migrations_seconds: round(migrateSeconds),
      load_average_before: loadBefore,
      load_average_after: loadOf(),
      floor: 'GET /api/v1/current_user, signed in, interleaved with each request',
      requests: results,
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await app?.close();
    await dns.close();
    await database.close();
    if (KEEP_COPY || REUSE) log(`kept ${copy} (drop it with: drop database ${copy})`);
    else await admin.query(`drop database if exists ${copy} with (force)`);
    if (!CACHE) await admin.query(`drop database if exists ${fx.name} with (force)`);
    await admin.end();
  }
}
