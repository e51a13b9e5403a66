import { CONSOLE_API } from '@moat/contracts/console';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, tenants, trialExtensionRequests } from '../../db/schema.ts';
import { cliActor } from '../../lib/actor.ts';
import { buildTestApp } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';

const DAY = 86_400_000;
let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ env: { SUPPORT_EMAIL: 'support@provider.test' } });
});
afterAll(() => t.close());

const ended = () => ({
  deploymentMode: 'poc' as const,
  trialStartDate: new Date(Date.now() - 40 * DAY),
  trialExpirationDays: 30,
});
const body = (email: string) => ({
  requester_email_address: email,
  requester_first_name: 'Ada',
  requester_last_name: 'Admin',
});

describe('POST /api/v1/trial_status', () => {
  it('stores one request for an expired poc trial, tells the provider, and shows waiting for approval', async () => {
    const me = await signedInAs(t.app, t.db, { tenant: ended() });
    const res = await me.send('POST', CONSOLE_API.trialStatus, body(me.user.email));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true });
    expect((await me.get(CONSOLE_API.deployment)).json()).toMatchObject({
      trialExpired: true,
      waitingForApproval: true,
    });
    // A second click makes no second request and no second email.
    expect((await me.send('POST', CONSOLE_API.trialStatus, body(me.user.email))).json().success).toBe(true);
    const requests = await t.db
      .select()
      .from(trialExtensionRequests)
      .where(eq(trialExtensionRequests.tenantId, me.tenant.id));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ status: 'requested', requesterEmail: me.user.email });
    const mails = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.tenantId, me.tenant.id), eq(outbox.kind, 'trial_extension_request')));
    expect(mails).toHaveLength(1);
    expect(mails[0]?.toAddress).toBe('support@provider.test');
    expect(mails[0]?.text).toContain(`trial:approve --tenant ${me.tenant.id}`);
  });

  it('answers success false while the trial still runs, and for other modes', async () => {
    for (const tenant of [{ deploymentMode: 'poc' }, { deploymentMode: 'paid' }] as const) {
      const me = await signedInAs(t.app, t.db, { tenant });
      const res = await me.send('POST', CONSOLE_API.trialStatus, body(me.user.email));
      expect(res.json()).toEqual({
        success: false,
        info: 'The trial has not expired, so it cannot be extended yet.',
      });
    }
  });

  it("refuses a non-admin with 'Insufficient privileges' and a bad body with 400, storing nothing", async () => {
    const user = await signedInAs(t.app, t.db, { tenant: ended(), user: { role: 'user' } });
    const res = await user.send('POST', CONSOLE_API.trialStatus, body(user.user.email));
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Insufficient privileges');
    const admin = await signedInAs(t.app, t.db, { tenant: ended() });
    const bad = await admin.send('POST', CONSOLE_API.trialStatus, {
      requester_email_address: 'not-an-email',
    });
    expect(bad.statusCode).toBe(400);
    for (const tenantId of [user.tenant.id, admin.tenant.id]) {
      expect(
        await t.db.select().from(trialExtensionRequests).where(eq(trialExtensionRequests.tenantId, tenantId)),
      ).toHaveLength(0);
    }
  });
});

describe('the provider decides (trial:approve / trial:decline)', () => {
  it('approving restarts the trial for the given days, ends the waiting and tells the requester', async () => {
    const me = await signedInAs(t.app, t.db, { tenant: ended() });
    await me.send('POST', CONSOLE_API.trialStatus, body('ada@customer.test'));
    const [tenant] = await t.db.select().from(tenants).where(eq(tenants.id, me.tenant.id));
    await t.app.services.trial.decide(tenant!, { approve: true, days: 14 }, cliActor);
    expect((await me.get(CONSOLE_API.deployment)).json()).toMatchObject({
      trialExpired: false,
      waitingForApproval: false,
      pocExpiresInDays: 14,
    });
    const [mail] = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, 'ada@customer.test'), eq(outbox.kind, 'trial_extension_decision')));
    expect(mail?.subject).toContain('extended');
    await expect(t.app.services.trial.decide(tenant!, { approve: true, days: 14 }, cliActor)).rejects.toThrow(
      /no open trial extension request/,
    );
  });

  it('declining ends the waiting and leaves the trial expired', async () => {
    const me = await signedInAs(t.app, t.db, { tenant: ended() });
    await me.send('POST', CONSOLE_API.trialStatus, body(me.user.email));
    const [tenant] = await t.db.select().from(tenants).where(eq(tenants.id, me.tenant.id));
    await t.app.services.trial.decide(tenant!, { approve: false }, cliActor);
    expect((await me.get(CONSOLE_API.deployment)).json()).toMatchObject({
      trialExpired: true,
      waitingForApproval: false,
    });
  });
});
