/**
 * The SQL statements one request costs: prints each statement an identification_needed call and
 * an authenticated current_user call send to PostgreSQL (after a warm-up call of each).
 */
import os from 'node:os';
import path from 'node:path';
import { API } from '@moat/contracts/api-paths';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { freshPostgres, recordStatements, seededApp } from './support.ts';

// Recording starts before the pool exists: its clients keep the driver's query as it was then.
const { seen } = recordStatements();
const fresh = await freshPostgres('moat_bench_qc');
const database = await fresh.open();
try {
  const { app, links, token } = await seededApp(database, path.join(os.tmpdir(), 'moat-qc'), 1);
  const calls = {
    identification_needed: () =>
      app.inject({
        method: 'POST',
        url: `/api/v1/office365_emails/identification_needed?msg=${links[0]}`,
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
