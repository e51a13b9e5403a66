import net from 'node:net';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { eq, sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, openPostgres, rowsOf } from '../../db/client.ts';
import { authThrottle, users } from '../../db/schema.ts';
import { cliActor } from '../../lib/actor.ts';
import { createCountersRepo } from '../../lib/counters.repo.ts';
import {
  type AheadOptions,
  type Counters,
  memoryCounters,
  postgresCounters,
  redisCounters,
} from '../../lib/counters.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { signedInAs } from '../../test/console.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { holdMessage } from '../../test/hold.ts';
import { codeIn, Jar, lastMail, solveCaptcha } from '../../test/sign-in.ts';
import { createQuarantineRepo } from '../quarantine/quarantine.repo.ts';

const clock = new ManualClock();
/** Two nodes of one cluster: one database, one key, shared counters. */
let a: Awaited<ReturnType<typeof buildTestApp>>;
let b: Awaited<ReturnType<typeof buildTestApp>>;
let counters: Counters;

beforeAll(async () => {
  a = await buildTestApp({ clock, env: { CAPTCHA_DIFFICULTY: '10' } });
  // Without REDIS_URL nodes on one PostgreSQL share counters there (PGlite is PostgreSQL too).
  counters = postgresCounters(createCountersRepo(a.db), clock);
  await a.app.close();
  a = await buildTestApp({ clock, database: a.database, counters, env: { CAPTCHA_DIFFICULTY: '10' } });
  b = await buildTestApp({
    clock,
    database: a.database,
    serverKey: a.serverKey,
    counters,
    env: { CAPTCHA_DIFFICULTY: '10' },
  });
  await a.app.services.cluster.ensureKey();
  await b.app.services.cluster.ensureKey();
});
afterAll(async () => {
  await b.app.close();
  await a.close();
});

describe('two nodes sharing one database', () => {
  it('end on both nodes a session signed out on one, and lock on both an account locked on one', async () => {
    const me = await signedInAs(a.app, a.db);
    const onB = () => b.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: me.cookies });
    // B has read (and keeps) the session.
    expect((await onB()).statusCode).toBe(200);
    expect((await onB()).statusCode).toBe(200);

    const other = await signedInAs(a.app, a.db);
    const otherOnB = () =>
      b.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: other.cookies });
    expect((await otherOnB()).json().locked_status).toEqual({ should_lock: false });
    await a.db.update(users).set({ locked: true }).where(eq(users.id, other.user.id));
    await vi.waitFor(
      async () => expect((await otherOnB()).json().locked_status).toEqual({ should_lock: true }),
      { timeout: 2_000, interval: 10 },
    );

    const out = await me.send('POST', AUTH_API.logout);
    expect(out.statusCode).toBe(200);
    // The node that signed it out refuses it at once; the other within the notice's delay.
    expect((await me.get('/api/v1/current_user')).statusCode).toBe(403);
    await vi.waitFor(async () => expect((await onB()).statusCode).toBe(403), {
      timeout: 2_000,
      interval: 10,
    });
  });

  it('accept on one node a captcha fetched from the other', async () => {
    const email = 'nobody@cluster.test';
    const token = await solveCaptcha(a.app);
    const res = await b.app.inject({
      method: 'POST',
      url: AUTH_API.login,
      headers: CSRF,
      remoteAddress: '203.0.113.9',
      payload: { email, current_password: 'wrong-password', recaptcha_token: token },
    });
    // The captcha passed (a failed captcha is another error); the credentials did not.
    expect(res.json().code).toBe('invalid_credentials');
  });

  it('check on one node an emailed code sent by the other', async () => {
    const tenant = await buildTenant(a.db);
    const recipient = `ana@${tenant.domain}`;
    const { message } = await holdMessage(a.app, {
      raw: Buffer.from(`From: x@outside.test\r\nTo: ${recipient}\r\nSubject: Held\r\n\r\nHi\r\n`),
      recipient,
      verdict: 'spam',
    });
    const q = new URLSearchParams({ msg: message.publicId, email: recipient });
    const jar = new Jar();
    // One browser asks on one node and checks on the other: its cookie goes with it.
    const sent = jar.take(
      await a.app.inject({
        method: 'POST',
        url: `/api/v1/office365_emails/verify_recipient?${q}`,
        headers: CSRF,
        remoteAddress: jar.ip,
        payload: { action_name: 'email_restore' },
      }),
    );
    expect(sent.json()).toMatchObject({ status: 'ok' });
    const code = codeIn((await lastMail(a.db, recipient, 'recipient_verification')).text);
    q.set('code', code);
    const checked = await b.app.inject({
      method: 'GET',
      url: `/api/v1/office365_emails/restore?${q}`,
      cookies: jar.cookies,
      remoteAddress: jar.ip,
    });
    expect(checked.json()).toMatchObject({ status: 'restored' });
  });

  it('limit 40 wrong logins split over both nodes as one: the route limit and the lock of that address on the account hold across nodes', async () => {
    const tenant = await buildTenant(a.db);
    const email = `lock@${tenant.domain}`;
    await buildUser(a.db, tenant.id, { email, passwordHash: await hashPassword('right-password-1') });
    const statuses: number[] = [];
    const codes: string[] = [];
    // 40 attempts from one address, alternating nodes, in parallel pairs.
    for (let i = 0; i < 20; i++) {
      const attempts = await Promise.all(
        [a, b].map(async (node) =>
          node.app.inject({
            method: 'POST',
            url: AUTH_API.login,
            headers: CSRF,
            remoteAddress: '203.0.113.40',
            payload: {
              email,
              current_password: 'wrong-password',
              recaptcha_token: await solveCaptcha(node.app),
            },
          }),
        ),
      );
      for (const res of attempts) {
        statuses.push(res.statusCode);
        codes.push(res.json().code);
      }
    }
    // POST /auth/login allows 30 a minute per address: the other 10 are refused on either node.
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    expect(codes.filter((c) => c === 'invalid_credentials').length).toBe(30);
    // The account's failures from that address were counted together, in turn: five free, the
    // sixth made the address wait, the other 24 were refused on either node without being tried.
    const [pair] = await a.db
      .select()
      .from(authThrottle)
      .where(eq(authThrottle.key, `account-address:${email}|203.0.113.40`));
    expect(pair?.failures).toBe(6);
    // The owner, at another address, is not locked out on either node.
    for (const node of [a, b]) {
      const res = await node.app.inject({
        method: 'POST',
        url: AUTH_API.login,
        headers: CSRF,
        remoteAddress: '203.0.113.41',
        payload: {
          email,
          current_password: 'right-password-1',
          recaptcha_token: await solveCaptcha(node.app),
        },
      });
      expect(res.json()).toMatchObject({ next: 'done' });
    }
  });

  it('count SMTP connections per client address over both nodes', async () => {
    const doors = [a, b].map((node, i) =>
      testSmtpIn(
        { db: node.db, clock, log: node.app.log, counters, nodeId: `node-${i}` },
        { maxConnectionsPerIp: 3 },
      ),
    );
    const ports = await Promise.all(doors.map((d) => d.listen(0, '127.0.0.1')));
    const open = (port: number) =>
      new Promise<{ line: string; socket: net.Socket }>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('data', (chunk) => resolve({ line: chunk.toString(), socket }));
        socket.once('error', reject);
      });
    try {
      const first = await Promise.all([open(ports[0]!), open(ports[1]!), open(ports[0]!)]);
      expect(first.every((c) => c.line.startsWith('220'))).toBe(true);
      // The fourth connection, on either node, is one too many for this address.
      const fourth = await open(ports[1]!);
      expect(fourth.line).toMatch(/^421 /);
      fourth.socket.destroy();
      first[0]!.socket.end('QUIT\r\n');
      await new Promise((r) => first[0]!.socket.once('close', r));
      await new Promise((r) => setTimeout(r, 100));
      const again = await open(ports[1]!);
      expect(again.line).toMatch(/^220 /);
      for (const c of [...first, again]) c.socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
      // A node that died with three connections of this address open: its share lapses.
      await counters.share('smtp-conn:127.0.0.1', 'dead-node', 3, 3 * 60_000);
      const refused = await open(ports[0]!);
      expect(refused.line).toMatch(/^421 /);
      refused.socket.destroy();
      clock.advance(3 * 60_000 + 1);
      const later = await open(ports[0]!);
      expect(later.line).toMatch(/^220 /);
      later.socket.destroy();
    } finally {
      await Promise.all(doors.map((d) => d.close()));
    }
    // A clean stop leaves nothing counted.
    expect(await counters.share('smtp-conn:127.0.0.1', 'probe', 0, 1_000)).toBe(0);
  });
});

describe('two nodes with their own connections, caching what rarely changes', () => {
  /**
   * A node with connections of its own to the same database, as another server would have: on
   * PostgreSQL only the database's notices tell it of the other node's writes. (PGlite belongs to
   * one process: there the nodes share it, and its notices.)
   */
  let c: Awaited<ReturnType<typeof buildTestApp>>;
  let own: Database | null = null;
  beforeAll(async () => {
    if (a.database.kind === 'postgres') {
      const [row] = rowsOf<{ name: string }>(await a.db.execute(sql`select current_database() as name`));
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${row!.name}`;
      own = await openPostgres(url.toString());
    }
    c = await buildTestApp({ clock, database: own ?? a.database, serverKey: a.serverKey, counters });
  });
  afterAll(async () => {
    await c.app.close();
    await own?.close();
  });
  const within = { timeout: 2_000, interval: 20 };

  it('see on one node the flags and brand the other changed, within a bounded wait', async () => {
    await buildTenant(a.db);
    const primary = (await a.app.services.publicConfig.primaryTenant())!;
    const features = async () =>
      (await c.app.inject({ method: 'GET', url: '/api/v1/generic/ui_features_public' })).json();
    const before = await features();
    await a.app.services.tenants.setFeatures(primary.id, { samlAuth: !before.samlAuth }, cliActor);
    await vi.waitFor(async () => expect((await features()).samlAuth).toBe(!before.samlAuth), within);
    const brand = primary.brand;
    await a.app.services.tenants.update(primary.id, { brand: 'checkpoint' }, cliActor);
    await vi.waitFor(async () => expect((await features()).checkpointTheme).toBe(true), within);
    await a.app.services.tenants.update(primary.id, { brand }, cliActor);
    await vi.waitFor(
      async () => expect((await features()).checkpointTheme).toBe(brand === 'checkpoint'),
      within,
    );
  });

  it('see on one node a restore policy and a message the other changed, within a bounded wait', async () => {
    const tenant = await buildTenant(a.db);
    const recipient = `pol@${tenant.domain}`;
    const { message } = await holdMessage(a.app, {
      raw: Buffer.from(`From: x@outside.test\r\nTo: ${recipient}\r\nSubject: Held\r\n\r\nHi\r\n`),
      recipient,
      verdict: 'spam',
    });
    const needed = async () =>
      (
        await c.app.inject({
          method: 'POST',
          url: `/api/v1/office365_emails/identification_needed?msg=${message.publicId}`,
          headers: CSRF,
          payload: { action_name: 'email_restore' },
        })
      ).json().status;
    expect(await needed()).toBe(true);
    await createQuarantineRepo(a.db).setRestorePolicy(tenant.id, 'spam', {
      mode: 'automatic',
      identificationRequired: false,
    });
    await vi.waitFor(async () => expect(await needed()).toBe(false), within);
    await createQuarantineRepo(a.db).setRestorePolicy(tenant.id, 'spam', {
      mode: 'automatic',
      identificationRequired: true,
    });
    await vi.waitFor(async () => expect(await needed()).toBe(true), within);
    // The message itself, deleted through the other node's admin path: its link is dead here too.
    await a.app.services.quarantineAdmin.remove(tenant.id, message.id, cliActor);
    await vi.waitFor(async () => expect(await needed()).toBeUndefined(), within);
  });
});

describe('shared counters', () => {
  const kinds: Array<[string, () => Counters]> = [
    ['memory', () => memoryCounters(clock)],
    ['postgres', () => postgresCounters(createCountersRepo(a.db), clock)],
    [
      'redis',
      () =>
        redisCounters(
          new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
          `moat-test:${Date.now()}:`,
        ),
    ],
  ];
  for (const [kind, make] of kinds) {
    it(`${kind}: counts hits in a window and restarts after it; gauges go up and down`, async () => {
      const c = make();
      try {
        const key = `k${Math.random()}`;
        expect((await c.hit(key, 60_000)).count).toBe(1);
        expect((await c.hit(key, 60_000)).count).toBe(2);
        const third = await c.hit(key, 60_000);
        expect(third.count).toBe(3);
        expect(third.ttlMs).toBeGreaterThan(0);
        expect(third.ttlMs).toBeLessThanOrEqual(60_000);
        // Several keys in one round trip, each counted as hit() would.
        const other = `o${Math.random()}`;
        const many = await c.hitMany([
          { key, windowMs: 60_000 },
          { key: other, windowMs: 30_000 },
        ]);
        expect(many.map((m) => m.count)).toEqual([4, 1]);
        expect(many[1]!.ttlMs).toBeLessThanOrEqual(30_000);
        const gauge = `g${Math.random()}`;
        expect(await c.add(gauge, 1, 60_000)).toBe(1);
        expect(await c.add(gauge, 1, 60_000)).toBe(2);
        expect(await c.add(gauge, -1, 60_000)).toBe(1);
        expect(await c.add(gauge, -5, 60_000)).toBe(0);
        const shared = `s${Math.random()}`;
        expect(await c.share(shared, 'node-1', 2, 60_000)).toBe(2);
        expect(await c.share(shared, 'node-2', 1, 60_000)).toBe(3);
        expect(await c.share(shared, 'node-1', -2, 60_000)).toBe(1);
        await c.renewShares([shared], 'node-2', 60_000);
        if (kind !== 'redis') {
          // Redis keeps real time; the others follow the injected clock.
          clock.advance(60_001);
          expect((await c.hit(key, 60_000)).count).toBe(1);
          expect((await c.hitMany([{ key: other, windowMs: 30_000 }]))[0]!.count).toBe(1);
          await c.sweep();
        }
      } finally {
        await c.close();
      }
    });
  }
});

describe('shared counters counting ahead', () => {
  const stores: Array<[string, (options: AheadOptions) => Counters]> = [
    ['postgres', (options) => postgresCounters(createCountersRepo(a.db), clock, options)],
    [
      'redis',
      (options) =>
        redisCounters(new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), redisPrefix, {
          ...options,
          clock,
        }),
    ],
  ];
  const redisPrefix = `moat-test-ahead:${Date.now()}:`;
  for (const [kind, make] of stores) {
    it(`${kind}: far from a limit a node counts ahead; near it, and without one, in the store at once`, async () => {
      // Two nodes and a reader on one store; no timed flush, so each step is explicit.
      const [nodeA, nodeB, reader, observer] = [
        make({ flushMs: 60_000 }),
        make({ flushMs: 60_000 }),
        make({}),
        make({}),
      ];
      try {
        const key = `ahead${Math.random()}`;
        for (const expected of [1, 2, 3, 4]) expect((await nodeA.hit(key, 60_000, 10)).count).toBe(expected);
        expect(await reader.hits(key)).toBe(0);
        await nodeA.flush();
        expect(await reader.hits(key)).toBe(4);
        // B has not heard of A's hits: up to half the limit it counts its own, then asks the store.
        for (const expected of [1, 2, 3, 4, 5])
          expect((await nodeB.hit(key, 60_000, 10)).count).toBe(expected);
        expect((await nodeB.hit(key, 60_000, 10)).count).toBe(10);
        // A's figure is stale until its next answer from the store.
        expect((await nodeA.hit(key, 60_000, 10)).count).toBe(5);
        expect((await nodeA.hit(key, 60_000, 10)).count).toBe(12);
        expect(await reader.hits(key)).toBe(12);

        // No limit: counted in the store before the answer. Several keys: only those that must go.
        const exact = `exact${Math.random()}`;
        const ahead = `later${Math.random()}`;
        const [first, second] = await nodeA.hitMany([
          { key: exact, windowMs: 60_000 },
          { key: ahead, windowMs: 60_000, limit: 30 },
        ]);
        expect([first!.count, second!.count]).toEqual([1, 1]);
        expect([await reader.hits(exact), await reader.hits(ahead)]).toEqual([1, 0]);
        // Under a twentieth of a limit a key's hits stay on the node (a crowd of one-off callers
        // costs the store nothing); from there on they are shared at each flush.
        const crowd = `crowd${Math.random()}`;
        for (let i = 1; i <= 149; i++) await nodeB.hit(crowd, 60_000, 3_000);
        await nodeB.flush();
        expect(await reader.hits(crowd)).toBe(0);
        expect((await nodeB.hit(crowd, 60_000, 3_000)).count).toBe(150);
        await nodeB.flush();
        expect(await reader.hits(crowd)).toBe(150);
        // Hits counted ahead reach the store on close too, and on their own after flushMs.
        await nodeA.close();
        expect(await reader.hits(ahead)).toBe(1);
        const timed = `timed${Math.random()}`;
        await reader.hit(timed, 60_000, 30);
        expect(await observer.hits(timed)).toBe(0);
        await vi.waitFor(async () => expect(await observer.hits(timed)).toBe(1), { timeout: 2_000 });
      } finally {
        await Promise.all([nodeA.close(), nodeB.close(), reader.close(), observer.close()]);
      }
    });
  }
});
