import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../app.ts';
import { type Config, loadConfig } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Clock } from '../lib/clock.ts';
import type { Counters } from '../lib/counters.ts';
import { ServerKey } from '../lib/server-key.ts';
import type { DnsResolver } from '../mail/gateway/processor.ts';
import type { SpfResolver } from '../modules/dmarc/spf.ts';
import type { OnboardingResolver } from '../modules/onboarding/onboarding.service.ts';
import { openTestDatabase } from './database.ts';

export const TEST_BRIDGE_TOKEN = 'test-bridge-token-0123456789abcdef';

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: path.join(os.tmpdir(), 'moat-test-unused'),
    WEB_DIST_DIR: path.join(os.tmpdir(), 'moat-test-no-dist'),
    ...env,
  });
}

/** The real app on a fresh database, driven through `app.inject`. */
export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    database?: Database;
    dnsResolver?: DnsResolver;
    onboardingResolver?: OnboardingResolver;
    spfResolver?: SpfResolver;
    /** Another node of the same cluster shares its key; by default each test app has its own. */
    serverKey?: ServerKey;
    /** Counters shared with another node (default: by the database kind, as in production). */
    counters?: Counters;
  } = {},
) {
  const database = options.database ?? (await openTestDatabase());
  const serverKey = options.serverKey ?? ServerKey.inMemory();
  const app = await buildApp({
    config: testConfig(options.env),
    database,
    clock: options.clock,
    cliBridgeToken: TEST_BRIDGE_TOKEN,
    ...(options.dnsResolver ? { dnsResolver: options.dnsResolver } : {}),
    ...(options.onboardingResolver ? { onboardingResolver: options.onboardingResolver } : {}),
    ...(options.spfResolver ? { spfResolver: options.spfResolver } : {}),
    serverKey,
    ...(options.counters ? { counters: options.counters } : {}),
    logger: false,
  });
  await app.ready();
  return {
    app,
    serverKey,
    db: database.db,
    database,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** Headers a browser page of ours sends on a state-changing call. */
export const CSRF = { 'x-requested-with': 'moat' } as const;
