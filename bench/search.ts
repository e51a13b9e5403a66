/**
 * Quick-search latency (GET /api/v1/search, SPEC §7) over the quarantined messages and security
 * events of one tenant on PostgreSQL, as a signed-in user would call it (through app.inject:
 * routing, session, validation, the four category queries, grouping), at several sizes in one
 * run: by default 100,000 messages + 100,000 events, then 1,000,000 + 1,000,000 (the rows are
 * added with SQL generate_series). Reports median and p95 per keyword kind at each size, next to
 * an authenticated GET /api/v1/current_user of the same run (the floor of any signed-in call),
 * and the load average around each size (the machine may be shared).
 *
 * BENCH_DATABASE_URL (or BENCH_PG_URL): the PostgreSQL server (default
 * postgres://postgres@127.0.0.1:5432/postgres); a fresh database is created on it and dropped
 * afterwards. BENCH_SEARCH_SIZES: the sizes, comma-separated (default 100000,1000000).
 * BENCH_SEARCH_WITHOUT_INDEXES=1 also times the searches with the pg_trgm indexes dropped.
 */
import os from 'node:os';
import path from 'node:path';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import pg from 'pg';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openPostgres } from '../apps/api/src/db/client.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { hashToken, newToken } from '../apps/api/src/lib/tokens.ts';

const SIZES = (process.env.BENCH_SEARCH_SIZES ?? process.env.BENCH_SEARCH_ROWS ?? '100000,1000000')
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0)
  .sort((a, b) => a - b);
const RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 40);
const SERVER_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const WORDS = [
  'invoice',
  'payment',
  'overdue',
  'password',
  'reset',
  'shared',
  'document',
  'delivery',
  'parcel',
  'account',
  'suspended',
  'verify',
  'payroll',
  'bonus',
  'meeting',
  'voicemail',
  'wire',
  'transfer',
  'contract',
  'urgent',
  'review',
  'signature',
  'refund',
  'order',
  'quote',
  'update',
  'security',
  'alert',
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    median_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    runs: samples.length,
  };
}

/** Messages `from`..`to` (numbered, spread over the last year) and one security event for each. */
export async function seedSearchRows(client: pg.Client, tenantId: string, from: number, to: number) {
  // One statement per batch, rows made by generate_series: two of the words and a number make
  // each subject; each message gets one event created when it was received.
  await client.query(
    `with m as (
       insert into quarantine_messages (tenant_id, public_id, saas_type, recipient, sender, sender_name, subject,
         received_at, verdict, reasons, state, raw, raw_sha256, size, expires_at)
       select $1, md5(random()::text || g), case when g % 3 = 0 then 'google_mail' else 'office365_emails' end,
         'user' || (g % 500) || '@bench.test', 'sender' || (g % 2000) || '@outside' || (g % 97) || '.example',
         'Sender ' || (g % 2000),
         initcap(($2::text[])[1 + g % array_length($2::text[], 1)]) || ' ' || ($2::text[])[1 + (g / 7) % array_length($2::text[], 1)] || ' #' || g,
         now() - (g % 365) * interval '1 day' - (g % 86400) * interval '1 second',
         (array['phishing', 'malware', 'spam', 'suspicious'])[1 + g % 4], '["Lookalike sender domain"]'::jsonb,
         'quarantined', '\\x00'::bytea, 'x', 1, now() + interval '30 days'
       from generate_series($3::int, $4::int) g
       returning id, tenant_id, verdict, sender, received_at)
     insert into security_events (tenant_id, message_id, engine, verdict, description, severity, created_at)
     select tenant_id, id, 'anti_phishing', verdict, 'Lookalike sender domain ' || sender, 'high', received_at
     from m`,
    [tenantId, WORDS, from, to],
  );
  await client.query('vacuum (analyze) quarantine_messages, security_events');
}

const loadOf = () => os.loadavg().map((n) => Math.round(n * 100) / 100);

export async function benchSearch() {
  const name = `moat_bench_search_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString());
  try {
    await database.migrate();
    const client = new pg.Client({ connectionString: url.toString() });
    client.on('error', () => {});
    await client.connect();
    await client.query(`set maintenance_work_mem = '256MB'`);
    const {
      rows: [tenant],
    } = await client.query<{ id: string }>(`insert into tenants (name) values ('Bench') returning id`);
    await client.query(`insert into tenant_domains (tenant_id, domain) values ($1, 'bench.test')`, [
      tenant!.id,
    ]);
    await client.query(
      `insert into saas_apps (tenant_id, name) values ($1, 'office365_emails'), ($1, 'google_mail')`,
      [tenant!.id],
    );
    const {
      rows: [user],
    } = await client.query<{ id: string }>(
      `insert into users (tenant_id, email, role, first_name, last_name)
       values ($1, 'admin@bench.test', 'admin', 'Bench', 'Admin') returning id`,
      [tenant!.id],
    );
    const token = newToken();
    await client.query(
      `insert into sessions (token_hash, user_id, tenant_id, expires_at) values ($1, $2, $3, now() + interval '12 hours')`,
      [hashToken(token), user!.id, tenant!.id],
    );
    const config = loadConfig({
      NODE_ENV: 'production',
      DATA_DIR: path.join(os.tmpdir(), 'moat-bench-search'),
    });
    const app = await buildApp({ config, database, serverKey: ServerKey.inMemory(), logger: false });
    await app.ready();
    const cookies = { [SESSION_COOKIE]: token };

    const time = async (url: string) => {
      const started = performance.now();
      const res = await app.inject({
        method: 'GET',
        url,
        cookies,
        remoteAddress: `10.9.${Math.floor(Math.random() * 250)}.1`,
      });
      const ms = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return { ms, body: res.json() as unknown };
    };
    const kindsFor = (rows: number): Record<string, (i: number) => string> => ({
      'common word (month)': (i) => WORDS[i % WORDS.length]!,
      'exact subject number': (i) => `#${(i * 7919) % rows}`,
      'sender address part': (i) => `sender${(i * 31) % 2000}@`,
      'no match': (i) => `zq${i}xv`,
    });
    const run = async (rows: number) => {
      const out: Record<string, ReturnType<typeof stats>> = {};
      for (const [kind, keyword] of Object.entries(kindsFor(rows))) {
        await time(`/api/v1/search?nosystem=1&keyword=${encodeURIComponent(keyword(0))}`); // warm
        const samples: number[] = [];
        for (let i = 1; i <= RUNS; i++) {
          samples.push(
            (
              await time(
                `/api/v1/search?nosystem=1&saas=office365_emails,google_mail&category_limit=8&date_range=month&keyword=${encodeURIComponent(keyword(i))}`,
              )
            ).ms,
          );
        }
        out[kind] = stats(samples);
      }
      return out;
    };

    // Each size adds rows to the last one, so 100k and 1M are measured in one run, one process.
    const sizes: Array<Record<string, unknown>> = [];
    let seeded = 0;
    for (const rows of SIZES) {
      const seedStarted = performance.now();
      if (rows > seeded) await seedSearchRows(client, tenant!.id, seeded + 1, rows);
      seeded = Math.max(seeded, rows);
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      const loadBefore = loadOf();
      const floor: number[] = [];
      for (let i = 0; i < RUNS; i++) floor.push((await time('/api/v1/current_user')).ms);
      const sample = (await time('/api/v1/search?nosystem=1&keyword=invoice')).body as Array<{
        results: unknown[];
      }>;
      const search = await run(rows);
      sizes.push({
        rows: { quarantine_messages: rows, security_events: rows },
        seed_seconds: Math.round(seedSeconds * 10) / 10,
        load_average_before: loadBefore,
        load_average_after: loadOf(),
        current_user_floor: stats(floor),
        search,
        sample_groups: sample.length,
        sample_results: sample.reduce((n, g) => n + g.results.length, 0),
      });
      console.error(JSON.stringify(sizes.at(-1)));
    }
    let withoutIndexes: unknown;
    if (process.env.BENCH_SEARCH_WITHOUT_INDEXES === '1') {
      // What the pg_trgm indexes buy, at the largest size (slow: every search scans).
      await client.query(
        'drop index quarantine_messages_search_trgm_idx; drop index security_events_search_trgm_idx',
      );
      withoutIndexes = await run(seeded);
    }
    await app.close();
    await client.end();

    const result = {
      cpus: os.cpus().length,
      sizes,
      ...(withoutIndexes ? { search_without_trgm_indexes_at_largest: withoutIndexes } : {}),
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } catch (error) {
    console.error(error);
    throw error;
  } finally {
    await database.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
