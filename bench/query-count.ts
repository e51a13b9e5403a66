/**
 * The SQL statements one request costs: prints each statement an identification_needed call and
 * an authenticated current_user call send to PostgreSQL (after a warm-up call of each).
 */
import os from 'node:os';
import path from 'node:path';
import { API } from '@moat/contracts/api-paths';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { systemClock } from '../apps/api/src/lib/clock.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { hashToken, newToken } from '../apps/api/src/lib/tokens.ts';
import { seedFirstTenant } from '../apps/api/src/seed.ts';
import { holdMessage } from '../apps/api/src/test/hold.ts';
import { freshPostgres, recordStatements } from './support.ts';

// Recording starts before the pool exists: its clients keep the driver's query as it was then.
const { seen } = recordStatements();
const fresh = await freshPostgres('moat_bench_qc');
const database = await fresh.open();
try {
  await database.migrate((db) =>
    seedFirstTenant(
      db,
      { adminEmail: 'admin@bench.test', adminPassword: 'bench password 1' },
      systemClock,
    ).then(() => {}),
  );
  const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: path.join(os.tmpdir(), 'moat-qc') });
  const app = await buildApp({ config, database, serverKey: ServerKey.inMemory(), logger: false });
  await app.ready();
  const raw = Buffer.from('From: a@outside.example\r\nTo: admin@bench.test\r\nSubject: x\r\n\r\nhi\r\n');
  const held = await holdMessage(app, { raw, recipient: 'admin@bench.test', verdict: 'spam' });
  const { rows } = (await database.db.execute(
    `select id, tenant_id from users where email = 'admin@bench.test'` as never,
  )) as unknown as { rows: Array<{ id: string; tenant_id: string }> };
  const token = newToken();
  await database.db.execute(
    `insert into sessions (token_hash, user_id, tenant_id, expires_at) values ('${hashToken(token)}', '${rows[0]!.id}', '${rows[0]!.tenant_id}', now() + interval '12 hours')` as never,
  );
  const calls = {
    identification_needed: () =>
      app.inject({
        method: 'POST',
        url: `/api/v1/office365_emails/identification_needed?msg=${held.message.publicId}`,
        headers: { 'x-requested-with': 'x' },
        payload: { action_name: 'email_restore' },
      }),
    current_user: () =>
      app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: { [SESSION_COOKIE]: token } }),
    ui_features_public: () => app.inject({ method: 'GET', url: API.uiFeaturesPublic }),
  };
  for (const [label, call] of Object.entries(calls)) {
    await call();
    seen.length = 0;
    const res = await call();
    console.log(`${label}: ${res.statusCode}, ${seen.length} statements`);
    for (const s of seen) console.log(`  ${s}`);
  }
  await app.close();
} finally {
  await database.close();
  await fresh.drop();
}
