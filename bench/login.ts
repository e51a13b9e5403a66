/**
 * Logins per second through the whole sign-in path (captcha check, throttle, argon2id verify,
 * session, audit) against the bare argon2id verify rate of the same machine, in one run.
 * In-process through app.inject on the embedded database, each login from its own client
 * address (the per-address rate limit would otherwise stop a single client), captchas solved
 * beforehand (that is the browser's work, not the server's).
 */
import os from 'node:os';
import path from 'node:path';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openPglite, openPostgres } from '../apps/api/src/db/client.ts';
import { systemClock } from '../apps/api/src/lib/clock.ts';
import { hashPassword, verifyPassword } from '../apps/api/src/lib/passwords.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { seedFirstTenant } from '../apps/api/src/seed.ts';

const LOGINS = Number(process.env.BENCH_LOGINS ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);

async function parallel(
  count: number,
  concurrency: number,
  job: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

export async function benchLogin() {
  const password = 'benchmark password';
  // BENCH_DATABASE_URL: run against that PostgreSQL instead of the embedded PGlite.
  const database = process.env.BENCH_DATABASE_URL
    ? await openPostgres(process.env.BENCH_DATABASE_URL)
    : await openPglite(null);
  await database.migrate((db) =>
    seedFirstTenant(db, { adminEmail: 'bench@bench.test', adminPassword: password }, systemClock).then(
      () => {},
    ),
  );
  const config = loadConfig({
    NODE_ENV: 'production',
    CAPTCHA_DIFFICULTY: '1',
    DATA_DIR: path.join(os.tmpdir(), 'moat-bench-login'),
  });
  const app = await buildApp({ config, database, serverKey: ServerKey.inMemory(), logger: false });
  await app.ready();

  const tokens: string[] = [];
  for (let i = 0; i < LOGINS; i++) {
    const challenge = (
      await app.inject({
        method: 'GET',
        url: '/api/v1/auth/captcha/challenge',
        remoteAddress: `10.200.${(i >> 8) & 255}.${i & 255}`,
      })
    ).json();
    const solution = await solveChallenge({ challenge, deriveKey });
    tokens.push(Buffer.from(JSON.stringify({ challenge, solution })).toString('base64'));
  }

  const hash = await hashPassword(password);
  const verifySeconds = await parallel(LOGINS, CONCURRENCY, async () => {
    if (!(await verifyPassword(hash, password))) throw new Error('verify failed');
  });

  let failures = 0;
  const loginSeconds = await parallel(LOGINS, CONCURRENCY, async (i) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      remoteAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      headers: { 'x-requested-with': 'bench' },
      payload: { email: 'bench@bench.test', current_password: password, recaptcha_token: tokens[i] },
    });
    if (res.statusCode !== 200) failures++;
  });
  await app.close();
  await database.close();

  const result = {
    database: database.kind,
    logins: LOGINS,
    concurrency: CONCURRENCY,
    failures,
    argon2idVerifyPerSecond: Number((LOGINS / verifySeconds).toFixed(1)),
    loginsPerSecond: Number((LOGINS / loginSeconds).toFixed(1)),
    ratio: Number((verifySeconds / loginSeconds).toFixed(2)),
  };
  console.log(`| measure (${LOGINS} each, ${CONCURRENCY} at a time, same run, ${database.kind}) | per second |
|---|---|
| argon2id verify alone (m=19 MiB, t=2, p=1) | ${result.argon2idVerifyPerSecond} |
| full login: POST /api/v1/auth/login, session opened | ${result.loginsPerSecond} (${Math.round(result.ratio * 100)} % of the hash rate) |`);
  if (failures) console.log(`${failures} logins failed`);
  return result;
}
