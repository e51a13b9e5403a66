import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API } from '@moat/contracts/api-paths';
import { CONSOLE_API } from '@moat/contracts/console';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLog,
  featureFlags,
  licenceContactRequests,
  licenceSeats,
  outbox,
  users,
} from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { calendarDaysBetween, deploymentConfigOf } from './deployment.service.ts';

const DAY = 86_400_000;
let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ env: { SUPPORT_EMAIL: 'support@provider.test' } });
});
afterAll(() => t.close());

describe('deploymentConfigOf (SPEC §3 "Deployment config", §4 "Licence state")', () => {
  const now = new Date('2026-11-21T10:00:00Z');
  const base = {
    id: 'x',
    name: 'Acme',
    brand: 'moat',
    brandName: null,
    deploymentMode: 'poc',
    portalLicenseState: null,
    isMsp: false,
    isManagedService: false,
    isAvananMsp: false,
    isCpMsp: false,
    mspBrandId: null,
    parentTenantId: null,
    associationDate: null,
    demoExpirationDate: null,
    paidStartDate: null,
    paidExpirationDate: null,
    trialStartDate: new Date('2026-11-01T09:00:00Z'),
    trialExpirationDays: 30,
    waitingForApproval: false,
    unifiedQuarantineManuallyDisabled: false,
    amplitudeKey: null,
    customerConfigs: {
      training: { is_active: false, msp_allowed: true },
      dmarc: { is_active: false, msp_allowed: true },
      archiving: { is_active: false, msp_allowed: true },
      sspm: { is_active: false, msp_allowed: true },
    },
    retentionDays: 30,
    supportAccessEnabled: false,
    mfaRequired: false,
    passwordMaxAgeDays: null,
    logo: null,
    logoMime: null,
    createdAt: now,
    updatedAt: now,
  };
  const at = (overrides: Partial<typeof base> | Record<string, unknown>) =>
    deploymentConfigOf({ ...base, ...overrides } as never, now, 'support@provider.test');

  it('counts whole calendar days, negative once past', () => {
    expect(calendarDaysBetween(now, new Date('2026-11-21T23:59:00Z'))).toBe(0);
    expect(calendarDaysBetween(now, new Date('2026-11-22T00:00:00Z'))).toBe(1);
    expect(calendarDaysBetween(now, new Date('2026-11-20T23:00:00Z'))).toBe(-1);
  });

  it('gives a poc trial its days left, and calls it expired only below 0', () => {
    expect(at({}).pocExpiresInDays).toBe(10);
    expect(at({}).trialExpired).toBe(false);
    expect(at({ trialStartDate: new Date(now.getTime() - 30 * DAY) }).pocExpiresInDays).toBe(0);
    expect(at({ trialStartDate: new Date(now.getTime() - 30 * DAY) }).trialExpired).toBe(false);
    const ended = at({ trialStartDate: new Date(now.getTime() - 31 * DAY) });
    expect(ended).toMatchObject({ pocExpiresInDays: -1, trialExpired: true });
    expect(at({ deploymentMode: 'paid' })).toMatchObject({ pocExpiresInDays: null, trialExpired: false });
  });

  it('marks a paid licence about to expire within 30 days and expired once past, never for MSP', () => {
    const paid = { deploymentMode: 'paid', paidStartDate: new Date('2025-11-21T00:00:00Z') };
    const soon = at({ ...paid, paidExpirationDate: new Date(now.getTime() + 30 * DAY) });
    expect(soon.licence).toEqual({
      isAboutToExpire: true,
      isExpired: false,
      licenseExpirationDate: '2026-12-21',
    });
    expect(soon.paidExpirationInDays).toBe(30);
    expect(soon.paidDurationInDays).toBe(395);
    expect(
      at({ ...paid, paidExpirationDate: new Date(now.getTime() + 31 * DAY) }).licence.isAboutToExpire,
    ).toBe(false);
    expect(at({ ...paid, paidExpirationDate: now }).licence).toMatchObject({
      isAboutToExpire: true,
      isExpired: false,
    });
    expect(at({ ...paid, paidExpirationDate: new Date(now.getTime() - DAY) }).licence).toMatchObject({
      isAboutToExpire: false,
      isExpired: true,
    });
    expect(
      at({ ...paid, isMsp: true, paidExpirationDate: new Date(now.getTime() - DAY) }).licence,
    ).toMatchObject({ isAboutToExpire: false, isExpired: false });
  });
});

describe('GET /api/v1/deployment, /generic/ui_features, /apps, /licence_seats', () => {
  it('answers 403 "not authenticated" without a session', async () => {
    for (const url of [
      CONSOLE_API.deployment,
      CONSOLE_API.uiFeatures,
      CONSOLE_API.apps,
      CONSOLE_API.licenceSeats,
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(403);
      expect(res.json().message).toBe('not authenticated');
    }
  });

  it("answers the signed-in user's own tenant: mode, MSP, flags, apps and seats", async () => {
    const me = await signedInAs(t.app, t.db, {
      tenant: { deploymentMode: 'demo', isMsp: true, brand: 'sonicwall', name: 'Acme MSP' },
      apps: ['office365_emails'],
      tools: ['archiving'],
    });
    await signedInAs(t.app, t.db, { apps: ['google_mail'] });
    await t.db.insert(featureFlags).values({ tenantId: me.tenant.id, name: 'enableDMARC', enabled: true });
    await t.db.insert(licenceSeats).values({ tenantId: me.tenant.id, saas: 'office365_emails', seats: 250 });

    const deployment = (await me.get(CONSOLE_API.deployment)).json();
    expect(deployment).toMatchObject({
      tenant_name: 'Acme MSP',
      deploymentMode: 'demo',
      is_msp: true,
      brand: 'sonicwall',
      brandName: 'SonicWall',
      support_email: 'support@provider.test',
      portalLicenseState: null,
    });
    const flags = (await me.get(CONSOLE_API.uiFeatures)).json();
    expect(flags).toMatchObject({ enableDMARC: true, sonicwallTheme: true, enableMFA: true });
    expect((await me.get(CONSOLE_API.apps)).json()).toEqual({
      apps: [{ name: 'office365_emails', state: 'enabled' }],
      tools: [{ name: 'archiving', state: 'enabled' }],
    });
    expect((await me.get(CONSOLE_API.licenceSeats)).json()).toEqual({
      data: [{ saas: 'office365_emails', security_tool: null, seats: 250 }],
    });
  });
});

describe('a portal the provider locked (SPEC §4 "Locked account")', () => {
  it('says should_lock for every user of it and closes the console calls', async () => {
    const me = await signedInAs(t.app, t.db, { tenant: { portalLicenseState: 'locked' } });
    expect((await me.get(API.currentUser)).json().locked_status).toEqual({ should_lock: true });
    expect((await me.get(CONSOLE_API.deployment)).statusCode).toBe(403);
    const other = await signedInAs(t.app, t.db);
    expect((await other.get(API.currentUser)).json().locked_status).toEqual({ should_lock: false });
  });
});

describe('PUT /api/v1/current_user/preferences', () => {
  const stored = async (userId: string) =>
    (await t.db.select({ preferences: users.preferences }).from(users).where(eq(users.id, userId)))[0]
      ?.preferences;

  it('saves the theme into the preferences and answers the updated user', async () => {
    const me = await signedInAs(t.app, t.db);
    const res = await me.send('PUT', CONSOLE_API.preferences, { applicationMode: 'dark' });
    expect(res.statusCode).toBe(200);
    expect(res.json().user_preferences).toEqual({ applicationMode: 'dark' });
    expect((await me.get(API.currentUser)).json().user_preferences).toEqual({ applicationMode: 'dark' });
    expect((await me.send('PUT', CONSOLE_API.preferences, {})).json().user_preferences).toEqual({
      applicationMode: 'dark',
    });
  });

  it('refuses an unknown theme, and unknown keys with 400 naming them, as other settings do; changing nothing', async () => {
    const me = await signedInAs(t.app, t.db);
    for (const body of [
      { applicationMode: 'neon' },
      { applicationMode: 1 },
      { nested: { a: 1 } },
      { keep: 'me' },
      { applicationMode: 'dark', tracker: 'x' },
      { __proto__: 'x', constructor: 'y' },
    ]) {
      const res = await me.send('PUT', CONSOLE_API.preferences, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('validation_error');
    }
    const unknown = await me.send('PUT', CONSOLE_API.preferences, { applicationMode: 'dark', tracker: 'x' });
    expect(JSON.stringify(unknown.json().details)).toContain('tracker');
    expect((await me.get(API.currentUser)).json().user_preferences).toEqual({});
    expect(await stored(me.user.id)).toEqual({});
    expect((await me.get(`${CONSOLE_API.search}?keyword=a%00b`)).statusCode).toBe(400);
  });

  it('keeps only the known preferences of what was stored before: never answered, dropped at the next save', async () => {
    const me = await signedInAs(t.app, t.db, {
      user: { preferences: { keep: 'me', applicationMode: 'mixed', big: 'x'.repeat(200) } },
    });
    expect((await me.get(API.currentUser)).json().user_preferences).toEqual({ applicationMode: 'mixed' });
    const res = await me.send('PUT', CONSOLE_API.preferences, { applicationMode: 'dark' });
    expect(res.json().user_preferences).toEqual({ applicationMode: 'dark' });
    expect(await stored(me.user.id)).toEqual({ applicationMode: 'dark' });
  });

  it('answers no stored value a known key may not have', async () => {
    const me = await signedInAs(t.app, t.db, { user: { preferences: { applicationMode: 'neon' } } });
    expect((await me.get(API.currentUser)).json().user_preferences).toEqual({});
  });
});

describe('GET /api/v1/custom_icon', () => {
  it("answers the user's tenant logo, or the brand's default, only with a session", async () => {
    expect((await t.app.inject({ method: 'GET', url: API.customIcon })).statusCode).toBe(403);
    const me = await signedInAs(t.app, t.db, {
      tenant: { logo: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), logoMime: 'image/svg+xml' },
    });
    const res = await me.get(API.customIcon);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('image/svg+xml');
    expect(res.body).toBe('<svg xmlns="http://www.w3.org/2000/svg"/>');
  });
});

describe('GET /api/v1/learning_mode', () => {
  it('reports the share of the learning period that has passed', async () => {
    const me = await signedInAs(t.app, t.db, { tenant: { createdAt: new Date(Date.now() - 7 * DAY) } });
    const res = (await me.get(CONSOLE_API.learningMode)).json();
    expect(res.progress_number).toBe(50);
    expect(res.modal_popup_title).toBe('Learning mode');
    const old = await signedInAs(t.app, t.db, { tenant: { createdAt: new Date(Date.now() - 30 * DAY) } });
    expect((await old.get(CONSOLE_API.learningMode)).json().progress_number).toBe(100);
  });
});

describe('POST /api/v1/licence_contact', () => {
  it('stores the request, tells the provider by email and audits it', async () => {
    const me = await signedInAs(t.app, t.db, {
      tenant: { deploymentMode: 'paid', paidExpirationDate: new Date(Date.now() + 5 * DAY) },
    });
    const res = await me.send('POST', CONSOLE_API.licenceContact);
    expect(res.statusCode).toBe(200);
    expect(res.json().success).toBe(true);
    const rows = await t.db
      .select()
      .from(licenceContactRequests)
      .where(eq(licenceContactRequests.tenantId, me.tenant.id));
    expect(rows).toHaveLength(1);
    const [mail] = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.tenantId, me.tenant.id), eq(outbox.kind, 'licence_contact')));
    expect(mail?.toAddress).toBe('support@provider.test');
    expect(mail?.text).toContain(me.user.email);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.tenantId, me.tenant.id));
    expect(audit.map((a) => a.action)).toContain('licence.contact_requested');
  });

  it('refuses a call without the CSRF header and stores nothing', async () => {
    const me = await signedInAs(t.app, t.db);
    const res = await t.app.inject({
      method: 'POST',
      url: CONSOLE_API.licenceContact,
      cookies: me.cookies,
      payload: {},
    });
    expect(res.statusCode).toBe(403);
    const rows = await t.db
      .select()
      .from(licenceContactRequests)
      .where(eq(licenceContactRequests.tenantId, me.tenant.id));
    expect(rows).toHaveLength(0);
  });
});

describe('GET /api/v1/version', () => {
  it("answers the served web build's id from version.json and follows it when it changes", async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dist-'));
    const app = await buildTestApp({ env: { WEB_DIST_DIR: dist } });
    try {
      const me = await signedInAs(app.app, app.db);
      expect((await me.get(CONSOLE_API.version)).json().version_info.ui2_version).toBe('unknown');
      fs.writeFileSync(path.join(dist, 'version.json'), JSON.stringify({ ui2_version: 'build-1' }));
      const first = await me.get(CONSOLE_API.version);
      expect(first.json().version_info).toMatchObject({ ui2_version: 'build-1' });
      expect(first.json().version_info.flask_version).toMatch(/^\d+\.\d+\.\d+/);
      expect(first.headers['cache-control']).toBe('no-store');
      fs.writeFileSync(path.join(dist, 'version.json'), JSON.stringify({ ui2_version: 'build-2' }));
      const later = new Date(Date.now() + 5_000);
      fs.utimesSync(path.join(dist, 'version.json'), later, later);
      expect((await me.get(CONSOLE_API.version)).json().version_info.ui2_version).toBe('build-2');
    } finally {
      await app.close();
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});

describe('GET /api/v1/environment_components and /incidents', () => {
  it('lists the running services with versions read from them', async () => {
    const me = await signedInAs(t.app, t.db);
    const res = (await me.get(CONSOLE_API.environmentComponents)).json();
    const names = res.services.map((s: { name: string }) => s.name);
    expect(names).toContain('Moat API');
    expect(names).toContain('Node.js');
    const db = res.services.find((s: { name: string }) => s.name.startsWith('PostgreSQL'));
    expect(db.version).toMatch(/^\d+/);
    expect(res.services.find((s: { name: string }) => s.name === 'Outbound mail relay')).toMatchObject({
      status: 'off',
    });
  });

  it('shows an incident while it is open and not after it is resolved', async () => {
    const me = await signedInAs(t.app, t.db);
    const opened = await t.app.services.serviceStatus.openIncident({
      title: 'Delayed event processing',
      severity: 'warning',
      navItem: 'security-events',
    });
    expect((await me.get(CONSOLE_API.incidents)).json()).toContainEqual(
      expect.objectContaining({ id: opened.id, nav_item: 'security-events', severity: 'warning' }),
    );
    await t.app.services.serviceStatus.resolveIncident(opened.id);
    expect((await me.get(CONSOLE_API.incidents)).json().map((i: { id: string }) => i.id)).not.toContain(
      opened.id,
    );
    await expect(t.app.services.serviceStatus.resolveIncident(opened.id)).rejects.toThrow(/No open incident/);
  });
});

describe('PUT /api/v1/unified_quarantine', () => {
  it('lets an admin turn the Microsoft unified quarantine off and on again, and audits it', async () => {
    const me = await signedInAs(t.app, t.db);
    const off = await me.send('PUT', CONSOLE_API.unifiedQuarantine, { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().unifiedQuarantineManuallyDisabled).toBe(true);
    expect((await me.get(CONSOLE_API.deployment)).json().unifiedQuarantineManuallyDisabled).toBe(true);
    const on = await me.send('PUT', CONSOLE_API.unifiedQuarantine, { enabled: true });
    expect(on.json().unifiedQuarantineManuallyDisabled).toBe(false);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.tenantId, me.tenant.id));
    expect(audit.filter((a) => a.action === 'tenant.unified_quarantine')).toHaveLength(2);
  });

  it("refuses a user with 'Insufficient privileges' and a bad body with 400, changing nothing", async () => {
    const user = await signedInAs(t.app, t.db, { user: { role: 'user' } });
    const res = await user.send('PUT', CONSOLE_API.unifiedQuarantine, { enabled: false });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Insufficient privileges');
    const admin = await signedInAs(t.app, t.db);
    expect((await admin.send('PUT', CONSOLE_API.unifiedQuarantine, { enabled: 'no' })).statusCode).toBe(400);
    for (const who of [user, admin]) {
      expect((await who.get(CONSOLE_API.deployment)).json().unifiedQuarantineManuallyDisabled).toBe(false);
    }
  });
});

describe('PUT /api/v1/apps (SaaS Applications and Security Engines)', () => {
  it("lets an admin turn this edition's apps and engines off and on, answering the new states, audited", async () => {
    const me = await signedInAs(t.app, t.db, { apps: ['smtp_emails'], tools: ['anti_spam', 'ap_avanan'] });
    const off = await me.send('PUT', CONSOLE_API.apps, {
      apps: [{ name: 'smtp_emails', state: 'disabled' }],
      tools: [{ name: 'anti_spam', state: 'disabled' }],
    });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({
      apps: [{ name: 'smtp_emails', state: 'disabled' }],
      tools: [
        { name: 'anti_spam', state: 'disabled' },
        { name: 'ap_avanan', state: 'enabled' },
      ],
    });
    const on = await me.send('PUT', CONSOLE_API.apps, { tools: [{ name: 'anti_spam', state: 'enabled' }] });
    expect(on.json().tools).toContainEqual({ name: 'anti_spam', state: 'enabled' });
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, me.tenant.id), eq(auditLog.action, 'tenant.apps_update')));
    expect(audit.map((a) => a.details)).toEqual(
      expect.arrayContaining([{ smtp_emails: 'disabled', anti_spam: 'disabled' }, { anti_spam: 'enabled' }]),
    );
    expect(audit.every((a) => a.actorUserId === me.user.id)).toBe(true);
  });

  it('refuses a plain user (403), an app this edition cannot run, an unknown state or an empty change (400), changing nothing', async () => {
    const user = await signedInAs(t.app, t.db, { user: { role: 'user' }, apps: ['smtp_emails'] });
    const refused = await user.send('PUT', CONSOLE_API.apps, {
      apps: [{ name: 'smtp_emails', state: 'disabled' }],
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('Insufficient privileges');
    const admin = await signedInAs(t.app, t.db, { apps: ['smtp_emails'] });
    for (const body of [
      { apps: [{ name: 'slack', state: 'enabled' }] },
      { tools: [{ name: 'archiving', state: 'enabled' }] },
      { apps: [{ name: 'smtp_emails', state: 'pending' }] },
      { apps: [] },
      {},
      { apps: [{ name: 'smtp_emails', state: 'disabled' }], extra: 1 },
    ]) {
      const res = await admin.send('PUT', CONSOLE_API.apps, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    for (const who of [user, admin]) {
      expect((await who.get(CONSOLE_API.apps)).json().apps).toEqual([
        { name: 'smtp_emails', state: 'enabled' },
      ]);
    }
  });
});
