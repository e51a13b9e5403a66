import { API } from '@moat/contracts/api-paths';
import { CONSOLE_API } from '@moat/contracts/console';
import { CUSTOMIZATION_API } from '@moat/contracts/customization';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, featureFlags } from '../../db/schema.ts';
import { checkLogo } from '../../lib/logo.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const PLAIN_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="g"/></defs><rect width="10" height="10" fill="url(#g)"/></svg>';

async function admin() {
  const me = await signedInAs(t.app, t.db);
  const call = (method: 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, cookies: me.cookies, headers: CSRF, payload });
  const upload = (mime: string, body: Buffer | string) =>
    call('PUT', CUSTOMIZATION_API.logo, { mime, data: Buffer.from(body).toString('base64') });
  return { ...me, call, upload };
}

describe('Customization: the logo', () => {
  it('stores a PNG, serves it on the console and sign-in pages with a sandboxing policy, and restores the default; audited', async () => {
    const me = await admin();
    const res = await me.upload('image/png', PNG);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ has_custom_logo: true, logo_mime: 'image/png' });
    const served = await me.get(API.customIcon);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['content-security-policy']).toContain('sandbox');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    const cleared = await me.call('DELETE', CUSTOMIZATION_API.logo, {});
    expect(cleared.json().has_custom_logo).toBe(false);
    expect((await me.get(API.customIcon)).headers['content-type']).toContain('image/svg+xml');
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.tenantId, me.tenant.id));
    expect(audit.map((a) => a.action)).toEqual(['tenant.logo_set', 'tenant.logo_cleared']);
  });

  it('refuses an SVG that could run or reach out, a file whose bytes are not its type, an oversized one; stores nothing', async () => {
    const me = await admin();
    const bad = [
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><rect/></a></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><image href="https://tracker.test/p.png"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><iframe src="x"/></foreignObject></svg>',
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(https://x.test/a.css)</style></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><a><set attributeName="href" to="&#106;avascript:alert(1)"/><rect/></a></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(1)</html:script></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><set attributeName="onload" to="alert(1)"/></svg>',
      'just text, no drawing',
    ];
    for (const svg of bad) {
      const res = await me.upload('image/svg+xml', svg);
      expect(res.statusCode, svg).toBe(400);
    }
    expect((await me.upload('image/svg+xml', bad[0]!)).json().message).toContain('a script');
    expect((await me.upload('image/png', '<svg></svg>')).statusCode).toBe(400);
    expect((await me.upload('image/jpeg', PNG)).statusCode).toBe(400);
    expect((await me.upload('image/gif', PNG)).statusCode).toBe(400);
    expect((await me.upload('image/png', Buffer.alloc(1024 * 1024 + 10, 1))).statusCode).toBe(400);
    expect((await me.get(CUSTOMIZATION_API.customization)).json().has_custom_logo).toBe(false);
    // A plain drawing passes, its own #fragment references included.
    expect((await me.upload('image/svg+xml', PLAIN_SVG)).statusCode).toBe(200);
  });

  it('refuses a plain user and a tenant whose flag is off', async () => {
    const user = await signedInAs(t.app, t.db, { user: { role: 'user' } });
    const res = await user.send('PUT', CUSTOMIZATION_API.logo, {
      mime: 'image/png',
      data: PNG.toString('base64'),
    });
    expect(res.statusCode).toBe(403);
    const me = await admin();
    await t.db
      .insert(featureFlags)
      .values({ tenantId: me.tenant.id, name: 'enableCustomLogo', enabled: false });
    expect((await me.upload('image/png', PNG)).statusCode).toBe(403);
    expect((await me.get(CUSTOMIZATION_API.customization)).json()).toMatchObject({ can_change_logo: false });
  });

  it('checks a logo the same way for the CLI', () => {
    expect(() => checkLogo(Buffer.from('<svg onload="x()"/>'), 'image/svg+xml')).toThrow(/event handler/);
    expect(() => checkLogo(PNG, 'image/png')).not.toThrow();
  });
});

describe('Customization: the default theme', () => {
  it('sets the theme of anyone who has not chosen one, shown in the deployment config; audited', async () => {
    const me = await admin();
    const res = await me.call('PUT', CUSTOMIZATION_API.customization, { default_application_mode: 'dark' });
    expect(res.json().default_application_mode).toBe('dark');
    expect((await me.get(CONSOLE_API.deployment)).json().default_application_mode).toBe('dark');
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, me.tenant.id), eq(auditLog.action, 'tenant.application_mode')));
    expect(entry!.details).toEqual({ from: 'mixed', to: 'dark' });
    expect(
      (await me.call('PUT', CUSTOMIZATION_API.customization, { default_application_mode: 'pink' }))
        .statusCode,
    ).toBe(400);
  });
});
