import type { AddOns } from '@moat/contracts/add-ons';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOnRequests, auditLog, outbox, securityTools } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { signedInAs } from '../../test/console.ts';
import { buildSession, buildUser } from '../../test/factories.ts';
import { createAuditRepo } from '../audit/audit.repo.ts';
import { createTenantsRepo } from '../tenants/tenants.repo.ts';
import { createAddOnsRepo } from './add-ons.repo.ts';
import { createAddOnsService } from './add-ons.service.ts';

/**
 * The Add-ons Store: this edition ships none of the five add-ons' modules, so each one says so
 * and offers a request to the provider (stored, audited, emailed); none pretends to switch on.
 * The switch itself is proven with a service told its edition has the DMARC module.
 */
const clock = new ManualClock('2026-11-25T09:00:00Z');
let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ clock, env: { SUPPORT_EMAIL: 'support@provider.test' } });
});
afterAll(() => t.close());

const LIST = '/api/v1/add_ons';

describe('GET /api/v1/add_ons', () => {
  it('lists the five add-ons, DMARC built in and on, none of the others, for admins (and a demo deployment)', async () => {
    const admin = await signedInAs(t.app, t.db);
    const res = await admin.get(LIST);
    expect(res.statusCode).toBe(200);
    const { items } = res.json() as AddOns;
    expect(items.map((i) => i.id)).toEqual(['dmarc', 'iraas', 'sspm', 'archiving', 'phishing_training']);
    expect(items[0]).toMatchObject({ id: 'dmarc', in_edition: true, active: true, last_request: null });
    for (const item of items.slice(1))
      expect(item).toMatchObject({ in_edition: false, active: false, last_request: null });
    // Nothing to ask for what is on already.
    expect((await admin.send('POST', `${LIST}/dmarc/request`)).statusCode).toBe(409);
    const plainUser = await buildUser(t.db, admin.tenant.id, { role: 'user' });
    const { token } = await buildSession(t.db, plainUser);
    const plain = { [SESSION_COOKIE]: token };
    expect((await t.app.inject({ method: 'GET', url: LIST, cookies: plain })).statusCode).toBe(403);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `${LIST}/sspm/request`,
          cookies: plain,
          headers: CSRF,
          payload: {},
        })
      ).statusCode,
    ).toBe(403);
    const demo = await signedInAs(t.app, t.db, {
      tenant: { deploymentMode: 'demo' },
      user: { role: 'user' },
    });
    expect((await demo.get(LIST)).statusCode).toBe(200);
    expect((await demo.send('POST', `${LIST}/sspm/request`)).statusCode).toBe(403);
  });
});

describe('POST /api/v1/add_ons/:id/activate', () => {
  it('refuses an add-on this edition does not ship with 409, turning nothing on', async () => {
    const admin = await signedInAs(t.app, t.db);
    const res = await admin.send('POST', `${LIST}/archiving/activate`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toContain('not part of this edition');
    expect(
      await t.db.select().from(securityTools).where(eq(securityTools.tenantId, admin.tenant.id)),
    ).toEqual([]);
    expect((await admin.send('POST', `${LIST}/antivirus/activate`)).statusCode).toBe(400);
  });

  it('turns on an add-on whose module the edition ships, audited', async () => {
    const admin = await signedInAs(t.app, t.db);
    const service = createAddOnsService({
      repo: createAddOnsRepo(t.db),
      tenants: createTenantsRepo(t.db),
      audit: createAuditRepo(t.db),
      mailer: t.app.services.mailer,
      clock,
      supportEmail: 'support@provider.test',
      available: ['anti_malware', 'sspm'],
    });
    const before = await service.list(admin.tenant.id);
    expect(before.items.find((i) => i.id === 'sspm')).toMatchObject({ in_edition: true, active: false });
    const after = await service.activate(admin.tenant.id, 'sspm', { type: 'user', userId: admin.user.id });
    expect(after.items.find((i) => i.id === 'sspm')).toMatchObject({ in_edition: true, active: true });
    expect(after.items.find((i) => i.id === 'iraas')).toMatchObject({ in_edition: false, active: false });
    const [tool] = await t.db.select().from(securityTools).where(eq(securityTools.tenantId, admin.tenant.id));
    expect(tool).toMatchObject({ name: 'sspm', state: 'enabled' });
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, admin.tenant.id), eq(auditLog.action, 'add_on.activate')));
    expect(entry).toMatchObject({ targetType: 'add_on', targetId: 'sspm' });
    await expect(service.activate(admin.tenant.id, 'iraas', { type: 'user' })).rejects.toMatchObject({
      code: 'conflict',
    });
  });
});

describe('POST /api/v1/add_ons/:id/request', () => {
  it('asks the provider once a day: stored, audited, emailed; the page shows it; other tenants see nothing', async () => {
    const admin = await signedInAs(t.app, t.db, { tenant: { name: 'Acme Corp' } });
    const other = await signedInAs(t.app, t.db);
    const res = await admin.send('POST', `${LIST}/phishing_training/request`, {
      message: 'We would like a trial for 50 people.',
    });
    expect(res.statusCode).toBe(200);
    const item = (res.json() as AddOns).items.find((i) => i.id === 'phishing_training');
    expect(item!.last_request).toEqual({ at: clock.now().toISOString(), by: admin.user.email });
    const [row] = await t.db.select().from(addOnRequests).where(eq(addOnRequests.tenantId, admin.tenant.id));
    expect(row).toMatchObject({ addOn: 'phishing_training', email: admin.user.email });
    const [mail] = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.kind, 'add_on_request'), eq(outbox.tenantId, admin.tenant.id)));
    expect(mail).toMatchObject({
      toAddress: 'support@provider.test',
      subject: 'Add-on request from Acme Corp: Phishing awareness training',
    });
    expect(mail!.text).toContain('We would like a trial for 50 people.');
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, admin.tenant.id), eq(auditLog.action, 'add_on.requested')));
    expect(entry).toMatchObject({ targetId: 'phishing_training', actorEmail: admin.user.email });
    expect(
      (await other.get(LIST)).json().items.every((i: { last_request: unknown }) => i.last_request === null),
    ).toBe(true);

    const again = await admin.send('POST', `${LIST}/phishing_training/request`);
    expect(again.statusCode).toBe(409);
    clock.advance(25 * 3600_000);
    expect((await admin.send('POST', `${LIST}/phishing_training/request`)).statusCode).toBe(200);
    expect(
      await t.db.select().from(addOnRequests).where(eq(addOnRequests.tenantId, admin.tenant.id)),
    ).toHaveLength(2);
  });

  it('refuses a note with a link or markup, and an unknown add-on, with 400', async () => {
    const admin = await signedInAs(t.app, t.db);
    for (const [url, body] of [
      [`${LIST}/sspm/request`, { message: 'See https://evil.example' }],
      [`${LIST}/sspm/request`, { message: '<b>now</b>' }],
      [`${LIST}/sspm/request`, { message: 'ok', extra: true }],
      [`${LIST}/nothing/request`, {}],
    ] as const) {
      expect((await admin.send('POST', url, body)).statusCode, url).toBe(400);
    }
    expect(
      await t.db.select().from(addOnRequests).where(eq(addOnRequests.tenantId, admin.tenant.id)),
    ).toEqual([]);
  });
});
