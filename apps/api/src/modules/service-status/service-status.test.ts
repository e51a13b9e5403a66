import { CONSOLE_API } from '@moat/contracts/console';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureFlags, inboundMessages, outbox, systemTaskRuns } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { createServiceStatusRepo } from './service-status.repo.ts';
import { recordedTasks } from './service-status.service.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

let queuedAt = Date.now() - 60 * 60_000;
async function mail(tenantId: string, status: string, lastError: string | null = null) {
  // One second apart: "the latest error" must not hang on two inserts falling in one clock tick.
  queuedAt += 1000;
  await t.db.insert(outbox).values({
    createdAt: new Date(queuedAt),
    tenantId,
    kind: 'test',
    fromName: 'Moat',
    toAddress: 'bob@outside.test',
    subject: 'x',
    text: 'x',
    html: '',
    status,
    lastError,
  });
}

describe('GET /api/v1/service_status', () => {
  it("shows components, queue depths of the gateway and of the tenant's outbox, and the relay's last error to admins only", async () => {
    const admin = await signedInAs(t.app, t.db);
    const user = await signedInAs(t.app, t.db, { user: { role: 'user' } });
    await mail(admin.tenant.id, 'queued');
    await mail(admin.tenant.id, 'queued', '421 4.7.0 try again later');
    await mail(admin.tenant.id, 'bounced', '550 5.1.1 <bob@outside.test> unknown');
    await mail(user.tenant.id, 'queued');
    await t.db.insert(inboundMessages).values({
      receivedAt: new Date(),
      clientIp: '192.0.2.1',
      mailFrom: 'a@b.test',
      rcptTo: ['x@y.test'],
      raw: Buffer.from('x'),
      size: 1,
      status: 'failed',
    });
    const res = await admin.get(CONSOLE_API.serviceStatus);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.queues).toMatchObject({ outbox_waiting: 2, outbox_failed_24h: 1 });
    expect(body.queues.inbound_failed).toBeGreaterThanOrEqual(1);
    expect(body.queues.oldest_waiting_at).not.toBeNull();
    expect(body.relay).toMatchObject({
      configured: false,
      last_error: '550 5.1.1 <bob@outside.test> unknown',
    });
    expect(body.services.map((s: { name: string }) => s.name)).toContain('Outbound mail relay');
    expect(body.engines.map((e: { name: string }) => e.name)).toEqual([
      'anti_malware',
      'anti_phishing',
      'clamav',
      'moat_spam',
      'rspamd',
      'spamassassin',
      'dnsbl',
    ]);
    expect(body.engines.find((e: { name: string }) => e.name === 'dnsbl')).toMatchObject({
      status: 'off',
      detail: 'DNSBL_ZONES and URIBL_ZONES are not set',
    });
    const asUser = (await user.get(CONSOLE_API.serviceStatus)).json();
    expect(asUser.queues.outbox_waiting).toBe(1);
    expect(asUser.relay.last_error).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: CONSOLE_API.serviceStatus })).statusCode).toBe(403);
  });
});

describe('System Tasks', () => {
  it('records each run of a task under its lock: who, when, how it ended and what it did', async () => {
    const run = recordedTasks({
      repo: createServiceStatusRepo(t.db),
      tryLock: async (_key, task) => {
        await task();
        return true;
      },
      clock: t.app.clock,
      node: 'node-a',
    });
    await run('job:sweep:quarantine-purge', async () => 12);
    await expect(
      run('job:digest', async () => {
        throw new Error('relay down');
      }),
    ).rejects.toThrow('relay down');
    const admin = await signedInAs(t.app, t.db);
    await t.db
      .insert(featureFlags)
      .values({ tenantId: admin.tenant.id, name: 'enableSystemTask', enabled: true });
    const res = await admin.get(CONSOLE_API.systemTasks);
    expect(res.statusCode).toBe(200);
    const tasks = Object.fromEntries(res.json().tasks.map((task: { name: string }) => [task.name, task]));
    expect(tasks['quarantine-purge']).toMatchObject({
      every_minutes: 10,
      running: false,
      runs_24h: 1,
      failures_24h: 0,
      last_run: { node: 'node-a', outcome: 'ok', detail: '12 done' },
    });
    expect(tasks.digest).toMatchObject({
      failures_24h: 1,
      last_run: { outcome: 'failed', detail: 'relay down' },
    });
    expect(tasks.counters).toMatchObject({ runs_24h: 0, last_run: null });
    const rows = await t.db.select().from(systemTaskRuns);
    expect(rows.every((r) => r.finishedAt)).toBe(true);
  });

  it('is for admins of a tenant with enableSystemTask only', async () => {
    const admin = await signedInAs(t.app, t.db);
    expect((await admin.get(CONSOLE_API.systemTasks)).statusCode).toBe(403);
    const user = await signedInAs(t.app, t.db, { user: { role: 'user' } });
    await t.db
      .insert(featureFlags)
      .values({ tenantId: user.tenant.id, name: 'enableSystemTask', enabled: true });
    expect((await user.get(CONSOLE_API.systemTasks)).statusCode).toBe(403);
  });
});
