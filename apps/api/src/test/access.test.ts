import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CSRF } from './app.ts';
import { buildSession, buildTenant, buildUser } from './factories.ts';

/**
 * The console's access table (issue 12): who may call each API route, as its guard says, pinned
 * here so that a new route or a changed guard is a decision made in this file. Then each guard is
 * tried for real: anyone signed out is refused every route but the public ones, a plain user every
 * admin route, whatever the input (guards run before the input is checked), a demo deployment's
 * user may read what SPEC §6 lets them read, and an admin is refused nothing.
 */
const PUBLIC = [
  'GET /api/docs',
  'GET /api/docs/static/index.html',
  'GET /api/docs/static/swagger-initializer.js',
  'GET /api/docs/json',
  'GET /api/docs/yaml',
  'GET /api/v1/generic/ui_features_public',
  'GET /api/v1/generic/recaptcha_config',
  'GET /api/v1/custom_icon_public',
  'GET /api/v1/current_user',
  'GET /api/v1/auth/captcha/challenge',
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/mfa/verify',
  'POST /api/v1/mail_verification/send',
  'POST /api/v1/mail_verification/verify',
  'POST /api/v1/auth/logout',
  'POST /api/v1/auth/forgot_password',
  'POST /api/v1/auth/reset_password',
  'POST /api/v1/auth/password_expired',
  'POST /api/v1/auth/logout_reason',
  'POST /api/v1/auth/token',
  'POST /api/v1/current_user/server_login',
  'POST /api/v1/current_user/auto_login',
  'POST /api/v1/auth/saml/start',
  'POST /api/v1/auth/saml/acs/:tenantId',
  'GET /api/v1/auth/saml/metadata/:tenantId',
  'POST /api/v1/auth/sso/complete',
  'POST /api/v1/auth/oidc/:provider/start',
  'GET /api/v1/auth/oidc/:provider/callback',
  'GET /api/v1/auth/session',
  'PUT /api/v1/mfa/setup_public',
  'POST /api/v1/mfa/verify_public',
  'GET /api/v1/:type/:msg/entity_exists',
  'POST /api/v1/:type/identification_needed',
  'POST /api/v1/:type/verify_recipient',
  'GET /api/v1/:type/user_response',
  'GET /api/v1/:type/restore/:msg/status',
  'GET /api/v1/:type/restore',
  'GET /api/v1/:type/restore_original',
  'POST /api/v1/:type/restore',
  'POST /api/v1/:type/phish_request_restore',
  'POST /api/v1/:type/restore_original',
  // Click-time protection's warning and block page (issue 36): the signed token is the key.
  'GET /api/v1/public/links/check',
  'POST /api/v1/public/links/continue',
];
/** A session still owing its login reason may give it (SPEC §4 "Maintenance rule"). */
/** A session whose one-time password is still to be replaced may replace it (one-time-password.test.ts). */
const SESSION = ['POST /api/v1/auth/login_reason', 'POST /api/v1/auth/password_change'];
/** SPEC §6 "Admin (or demo customer)": the admin pages a demo deployment's users may look at. */
const ADMIN_OR_DEMO = ['GET /api/v1/users', 'GET /api/v1/settings', 'GET /api/v1/add_ons'];
const ADMIN = [
  'GET /api/v1/restore_requests',
  'POST /api/v1/restore_requests/:id/approve',
  'POST /api/v1/restore_requests/:id/decline',
  'POST /api/v1/restore_requests/bulk',
  'GET /api/v1/quarantine/messages',
  'GET /api/v1/quarantine/messages/:id',
  'POST /api/v1/quarantine/messages/:id/release',
  'POST /api/v1/quarantine/messages/:id/retry',
  'DELETE /api/v1/quarantine/messages/:id',
  'POST /api/v1/quarantine/messages/bulk',
  'GET /api/v1/quarantine/messages/:id/eml',
  'POST /api/v1/quarantine/messages/:id/block_sender',
  'POST /api/v1/quarantine/messages/:id/feedback',
  'GET /api/v1/quarantine/retention',
  'PUT /api/v1/quarantine/retention',
  'PUT /api/v1/apps',
  'PUT /api/v1/unified_quarantine',
  'POST /api/v1/trial_status',
  'GET /api/v1/system_tasks',
  'GET /api/v1/mail_explorer',
  'GET /api/v1/mail_explorer/export',
  'GET /api/v1/exceptions',
  'GET /api/v1/exceptions/export',
  'POST /api/v1/exceptions',
  'POST /api/v1/exceptions/import',
  'DELETE /api/v1/exceptions/:id',
  'GET /api/v1/vips',
  'GET /api/v1/retraction/connection',
  'PUT /api/v1/retraction/connection',
  'POST /api/v1/retraction/connection/test',
  'GET /api/v1/retractions',
  'POST /api/v1/retractions',
  'GET /api/v1/retractions/:id',
  'POST /api/v1/retractions/preview',
  'POST /api/v1/retractions/bulk',
  'GET /api/v1/clicks',
  'GET /api/v1/click-time/settings',
  'PUT /api/v1/click-time/settings',
  'POST /api/v1/dmarc/reports',
  'GET /api/v1/dmarc/reports',
  'GET /api/v1/dmarc/reports/:id/raw',
  'GET /api/v1/dmarc/records',
  'GET /api/v1/dmarc/records.csv',
  'GET /api/v1/dmarc/intake',
  'GET /api/v1/dmarc/overview',
  'GET /api/v1/dmarc/recommendations',
  'GET /api/v1/dmarc/reverse',
  'GET /api/v1/dmarc/failure-reports',
  'GET /api/v1/dmarc/tls-reports',
  'GET /api/v1/dmarc/spf',
  'GET /api/v1/dmarc/dns-changes',
  'POST /api/v1/dmarc/dns-changes/check',
  'GET /api/v1/dmarc/alerts',
  'PUT /api/v1/dmarc/alerts/settings',
  'GET /api/v1/dmarc/dkim',
  'GET /api/v1/dkim-signing',
  'GET /api/v1/outbound/credentials',
  'POST /api/v1/outbound/credentials',
  'DELETE /api/v1/outbound/credentials/:id',
  'GET /api/v1/outbound/held',
  'POST /api/v1/outbound/held/:id/release',
  'POST /api/v1/outbound/held/:id/decline',
  'GET /api/v1/dlp/data-types',
  'PUT /api/v1/dlp/data-types/:type',
  'POST /api/v1/dlp/custom-rules',
  'PUT /api/v1/dlp/custom-rules/:id',
  'DELETE /api/v1/dlp/custom-rules/:id',
  'POST /api/v1/dlp/test',
  'POST /api/v1/dkim-signing/:domain/keys',
  'PUT /api/v1/dkim-signing/:domain/signing',
  'POST /api/v1/dkim-signing/:domain/rotate',
  'POST /api/v1/dkim-signing/:domain/rotate/finish',
  'POST /api/v1/vips',
  'PUT /api/v1/vips/:id',
  'DELETE /api/v1/vips/:id',
  'POST /api/v1/users',
  'PATCH /api/v1/users/:id',
  'POST /api/v1/users/:id/resend_invite',
  'POST /api/v1/users/:id/reset_mfa',
  'PUT /api/v1/settings',
  'PUT /api/v1/customization',
  'PUT /api/v1/customization/logo',
  'DELETE /api/v1/customization/logo',
  'GET /api/v1/onboarding',
  'POST /api/v1/onboarding/domains',
  'POST /api/v1/onboarding/domains/verify',
  'POST /api/v1/onboarding/dns_check',
  'PUT /api/v1/onboarding/next_hop',
  'PUT /api/v1/onboarding/name',
  'GET /api/v1/onboarding/checklist',
  'POST /api/v1/onboarding/test_message',
  'POST /api/v1/onboarding/complete',
  'GET /api/v1/phishing_reports',
  'GET /api/v1/phishing_reports/export',
  'POST /api/v1/phishing_reports/:id/confirm',
  'POST /api/v1/phishing_reports/:id/dismiss',
  'GET /api/v1/user_interaction/summary',
  'GET /api/v1/modified_attachments',
  'GET /api/v1/modified_attachments/export',
  'GET /api/v1/alerts/settings',
  'PUT /api/v1/alerts/settings',
  'GET /api/v1/alerts/badge',
  'GET /api/v1/analytics',
  'GET /api/v1/mail_explorer/:id/trace',
  'POST /api/v1/mail_explorer/:id/learn',
  'POST /api/v1/quarantine/messages/:id/learn',
  'GET /api/v1/quarantine/messages/:id/trace',
  'GET /api/v1/settings/sign_in',
  'PUT /api/v1/settings/sign_in',
  'POST /api/v1/settings/sign_in/saml/test',
  'POST /api/v1/settings/sign_in/oidc/test',
  'GET /api/v1/smart_banners',
  'PUT /api/v1/smart_banners',
  'GET /api/v1/smart_banners/samples',
  'POST /api/v1/smart_banners/preview',
  'GET /api/v1/user_interaction/quarantine_settings',
  'PUT /api/v1/user_interaction/quarantine_settings',
  'GET /api/v1/user_interaction/report_settings',
  'PUT /api/v1/user_interaction/report_settings',
  'POST /api/v1/add_ons/:id/activate',
  'POST /api/v1/add_ons/:id/request',
];

/**
 * Routes outside the API: probes anyone may call, and two that check their caller themselves
 * (loopback or a secret): the metrics (issue 14) and the CLI bridge. The SPA's root stands in for
 * the built web app, which the tests do not have.
 */
/** `/help`: the user guide (docs/user-guide.md), a page for anyone, like the sign-in page. */
const OUTSIDE_API = [
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'POST /internal/cli',
  'GET /',
  'GET /help',
  'GET /help/',
  // A rewritten link (click-time protection): its signed token is the key.
  'GET /l/*',
];
const SELF_GUARDED = ['GET /metrics', 'POST /internal/cli'];

/** Admin routes that also need a feature flag of the organisation (SPEC §2.4). */
const FEATURE_GATED = ['GET /api/v1/system_tasks'];

let t: Awaited<ReturnType<typeof buildTestApp>>;
const cookies: Record<'plain' | 'admin' | 'demo', Record<string, string>> = {
  plain: {},
  admin: {},
  demo: {},
};
beforeAll(async () => {
  t = await buildTestApp();
  const tenant = await buildTenant(t.db);
  const demo = await buildTenant(t.db, { deploymentMode: 'demo' });
  for (const [who, tenantId, role] of [
    ['plain', tenant.id, 'user'],
    ['admin', tenant.id, 'admin'],
    ['demo', demo.id, 'user'],
  ] as const) {
    const user = await buildUser(t.db, tenantId, { role });
    cookies[who] = { [SESSION_COOKIE]: (await buildSession(t.db, user)).token };
  }
});
afterAll(() => t.close());

const api = () => t.app.routeAccess.filter((r) => r.url.startsWith('/api/') && !r.url.includes('*'));
const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
let sent = 0;
/** One request, with the CSRF header, an empty body and made-up ids, each from its own address. */
function call(route: { method: string; url: string }, as: Record<string, string>) {
  sent += 1;
  const url = route.url
    .replace(/:type\b/, 'gateway')
    .replace(/:[a-z_]+/gi, '00000000-0000-4000-8000-000000000000');
  return t.app.inject({
    method: route.method as 'GET',
    url,
    cookies: as,
    headers: CSRF,
    remoteAddress: `10.9.${(sent >> 8) & 255}.${sent & 255}`,
    ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }),
  });
}

describe('the access table', () => {
  it('names every API route: public, session, signed-in user, admin or demo, admin', () => {
    const by = (access: string) =>
      api()
        .filter((r) => r.access === access)
        .map(key)
        .sort();
    expect(by('public')).toEqual([...PUBLIC].sort());
    expect(by('session')).toEqual([...SESSION].sort());
    expect(by('admin_or_demo')).toEqual([...ADMIN_OR_DEMO].sort());
    expect(by('admin')).toEqual([...ADMIN].sort());
    expect(by('user').length).toBeGreaterThan(30);
  });

  it('names every route outside the API, and those that guard themselves refuse a remote caller', async () => {
    const outside = t.app.routeAccess.filter((r) => !r.url.startsWith('/api/')).map(key);
    expect(outside.sort()).toEqual([...OUTSIDE_API].sort());
    for (const route of SELF_GUARDED) {
      const [method, url] = route.split(' ') as [string, string];
      // The CLI bridge reads its body before its caller (cli-bridge.test.ts tries it with one).
      expect([400, 403], route).toContain((await call({ method, url }, {})).statusCode);
    }
  });

  it('refuses every route but the public ones to anyone signed out', async () => {
    for (const route of api().filter((r) => r.access !== 'public')) {
      const res = await call(route, {});
      expect([401, 403], `${key(route)} answered ${res.statusCode}`).toContain(res.statusCode);
    }
  });

  it('refuses every admin route to a plain user before reading its input, and lets an admin in', async () => {
    for (const route of api().filter((r) => r.access === 'admin' || r.access === 'admin_or_demo')) {
      const plain = await call(route, cookies.plain);
      expect(plain.statusCode, key(route)).toBe(403);
      expect(plain.json().message, key(route)).toBe('Insufficient privileges');
      const admin = await call(route, cookies.admin);
      // A page behind a feature flag the organisation has not turned on says so, to admins too.
      if (FEATURE_GATED.includes(key(route)) && admin.statusCode === 403) {
        expect(admin.json().message).toContain('is not enabled for your organisation');
        continue;
      }
      expect([401, 403], `${key(route)} refused an admin`).not.toContain(admin.statusCode);
    }
  });

  it("lets a demo deployment's user read User Management and Settings, and change neither", async () => {
    for (const route of api().filter((r) => r.access === 'admin_or_demo')) {
      expect((await call(route, cookies.demo)).statusCode, key(route)).toBe(200);
    }
    for (const route of api().filter((r) => r.access === 'admin')) {
      expect((await call(route, cookies.demo)).statusCode, key(route)).toBe(403);
    }
  });
});
