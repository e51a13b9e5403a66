import os from 'node:os';
import { PUBLIC_FEATURE_NAMES } from '@moat/contracts/features';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../cli/commands.ts';
import { cliActor } from '../../lib/actor.ts';
import { systemClock } from '../../lib/clock.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant } from '../../test/factories.ts';
import { createFeaturesRepo } from '../features/features.repo.ts';
import { createTenantsRepo } from '../tenants/tenants.repo.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(() => t.close());

describe('GET /api/v1/generic/ui_features_public', () => {
  it('answers the defaults before any tenant exists', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/generic/ui_features_public' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      checkpointTheme: false,
      sonicwallTheme: false,
      samlAuth: false,
      office365Auth: false,
      googleAuth: false,
      clearSessionOnAppStart: false,
      troubleshooting: false,
    });
  });

  it("lists only the public flags, with the primary tenant's stored values", async () => {
    const tenant = await buildTenant(t.db);
    await t.app.services.tenants.setFeatures(
      tenant.id,
      { samlAuth: true, enableMFA: false, blockMaintenanceLogin: true },
      cliActor,
    );
    const body = (await t.app.inject({ method: 'GET', url: '/api/v1/generic/ui_features_public' })).json();
    expect(Object.keys(body).sort()).toEqual([...PUBLIC_FEATURE_NAMES].sort());
    expect(body.samlAuth).toBe(true);
    expect(body).not.toHaveProperty('enableMFA');
    expect(body).not.toHaveProperty('blockMaintenanceLogin');
  });

  it('turns the checkpoint theme on for a checkpoint-branded tenant', async () => {
    await buildTenant(t.db, { brand: 'checkpoint' });
    const body = (await t.app.inject({ method: 'GET', url: '/api/v1/generic/ui_features_public' })).json();
    expect(body.checkpointTheme).toBe(true);
    expect(body.sonicwallTheme).toBe(false);
  });
});

describe('GET /api/v1/generic/recaptcha_config', () => {
  it('answers the self-hosted ALTCHA challenge by default', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/generic/recaptcha_config' });
    expect(res.json()).toEqual({ provider: 'altcha', key: '/api/v1/auth/captcha/challenge' });
  });

  it('answers the reCAPTCHA site key when one is configured', async () => {
    const other = await buildTestApp({
      env: { RECAPTCHA_SITE_KEY: 'site-key-123', RECAPTCHA_SECRET_KEY: 'secret' },
    });
    const res = await other.app.inject({ method: 'GET', url: '/api/v1/generic/recaptcha_config' });
    expect(res.json()).toEqual({ provider: 'recaptcha', key: 'site-key-123' });
    await other.close();
  });
});

describe('GET /api/v1/custom_icon_public', () => {
  it("answers the brand's default logo as a sandboxed SVG", async () => {
    await buildTenant(t.db, { brand: 'sonicwall' });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/custom_icon_public' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain('Cloud Email Security');
  });

  it("answers the tenant's own logo once one is set", async () => {
    const tenant = await buildTenant(t.db);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    await createTenantsRepo(t.db).setLogo(tenant.id, png, 'image/png');
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/custom_icon_public' });
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.equals(png)).toBe(true);
  });
});

describe('the primary tenant and its flags, cached on every page load', () => {
  const features = () => t.app.inject({ method: 'GET', url: '/api/v1/generic/ui_features_public' });

  it('answers a flag and a brand changed by a direct write on the next request', async () => {
    const tenant = await buildTenant(t.db);
    expect((await features()).json()).toMatchObject({ samlAuth: false, sonicwallTheme: false });
    // Written outside the app's services: the database announces it, the node forgets it.
    await createFeaturesRepo(t.db).set(tenant.id, { samlAuth: true });
    expect((await features()).json()).toMatchObject({ samlAuth: true, sonicwallTheme: false });
    await createTenantsRepo(t.db).update(tenant.id, { brand: 'sonicwall' });
    expect((await features()).json()).toMatchObject({ samlAuth: true, sonicwallTheme: true });
  });

  it('answers a flag set through the CLI', async () => {
    const tenant = await buildTenant(t.db);
    expect((await features()).json().troubleshooting).toBe(false);
    const res = await runCommand(['features:set', '--tenant', tenant.id, 'troubleshooting=on'], {
      db: t.db,
      config: { publicUrl: 'https://moat.test' },
      clock: systemClock,
      cwd: os.tmpdir(),
    });
    expect(res.exitCode).toBe(0);
    // The CLI writes in a transaction: its notice comes at commit (on PostgreSQL, asynchronously).
    await vi.waitFor(async () => expect((await features()).json().troubleshooting).toBe(true), {
      timeout: 2_000,
      interval: 20,
    });
  });

  it("answers the primary tenant's new logo on the next request", async () => {
    const tenant = await buildTenant(t.db);
    const icon = () => t.app.inject({ method: 'GET', url: '/api/v1/custom_icon_public' });
    expect((await icon()).headers['content-type']).toMatch(/^image\/svg\+xml/);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    await createTenantsRepo(t.db).setLogo(tenant.id, png, 'image/png');
    const res = await icon();
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.equals(png)).toBe(true);
  });
});
