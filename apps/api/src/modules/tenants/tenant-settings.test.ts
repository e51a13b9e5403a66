import { resolveFeatures } from '@moat/contracts/features';
import { describe, expect, it } from 'vitest';
import { createCaches } from '../../lib/cache.ts';
import { ManualClock } from '../../test/clock.ts';
import type { RestorePolicy } from '../quarantine/policy.ts';
import { createTenantSettings, TENANT_SETTINGS_TTL_MS } from './tenant-settings.ts';
import type { TenantRow } from './tenants.repo.ts';

/** Settings over repositories that count their reads, and caches told of changes by the test. */
function setup() {
  const clock = new ManualClock();
  const caches = createCaches({ database: { listen: async () => () => true }, clock });
  const reads = { primary: 0, byId: 0, flags: 0, policies: 0 };
  let brand = 'moat';
  let samlAuth = false;
  let mode: RestorePolicy['mode'] = 'automatic';
  const tenant = () => ({ id: 't1', brand }) as TenantRow;
  /** `value`, counting one read of `kind`. */
  const read = <T>(kind: keyof typeof reads, value: T): Promise<T> => {
    reads[kind]++;
    return Promise.resolve(value);
  };
  const settings = createTenantSettings({
    caches,
    tenants: {
      primary: () => read('primary', tenant()),
      findById: (id) => read('byId', id === 't1' ? tenant() : null),
    },
    features: { flagsOf: () => read('flags', resolveFeatures([{ name: 'samlAuth', enabled: samlAuth }])) },
    restorePolicyOf: () => read('policies', { mode, identificationRequired: true }),
  });
  return {
    clock,
    caches,
    reads,
    settings,
    change: {
      brand: (b: string) => (brand = b),
      samlAuth: (on: boolean) => (samlAuth = on),
      mode: (m: RestorePolicy['mode']) => (mode = m),
    },
  };
}

describe('tenant settings cache', () => {
  it('reads each setting once, then answers from the cache', async () => {
    const { settings, reads, caches } = setup();
    await caches.start();
    for (let i = 0; i < 3; i++) {
      await settings.primaryTenant();
      await settings.tenantById('t1');
      await settings.flagsOf('t1');
      await settings.restorePolicy('t1', 'spam');
    }
    expect(reads).toEqual({ primary: 1, byId: 1, flags: 1, policies: 1 });
    // Each key on its own: another verdict is another policy.
    await settings.restorePolicy('t1', 'phishing');
    expect(reads.policies).toBe(2);
  });

  it('forgets what a write to its table changed, and only that', async () => {
    const { settings, reads, caches, change } = setup();
    await caches.start();
    await settings.primaryTenant();
    await settings.flagsOf('t1');
    await settings.restorePolicy('t1', 'spam');

    change.samlAuth(true);
    caches.changed('feature_flags');
    expect((await settings.flagsOf('t1')).samlAuth).toBe(true);
    expect(reads).toMatchObject({ primary: 1, flags: 2, policies: 1 });

    change.mode('request');
    caches.changed('restore_policies');
    expect((await settings.restorePolicy('t1', 'spam')).mode).toBe('request');

    change.brand('checkpoint');
    caches.changed('tenants');
    expect((await settings.primaryTenant())?.brand).toBe('checkpoint');
    expect(reads).toEqual({ primary: 2, byId: 0, flags: 2, policies: 2 });
  });

  it('reads again once an entry has lived its time, even without a notice', async () => {
    const { settings, reads, caches, clock, change } = setup();
    await caches.start();
    await settings.flagsOf('t1');
    change.samlAuth(true);
    clock.advance(TENANT_SETTINGS_TTL_MS - 1);
    expect((await settings.flagsOf('t1')).samlAuth).toBe(false);
    clock.advance(1);
    expect((await settings.flagsOf('t1')).samlAuth).toBe(true);
    expect(reads.flags).toBe(2);
  });

  it('hands out flags the caller may change without changing the cached ones', async () => {
    const { settings, caches } = setup();
    await caches.start();
    const first = await settings.flagsOf('t1');
    first.checkpointTheme = true;
    expect((await settings.flagsOf('t1')).checkpointTheme).toBe(false);
  });

  it('does not remember an unknown tenant', async () => {
    const { settings, reads, caches } = setup();
    await caches.start();
    expect(await settings.tenantById('nope')).toBeNull();
    expect(await settings.tenantById('nope')).toBeNull();
    expect(reads.byId).toBe(2);
  });
});
