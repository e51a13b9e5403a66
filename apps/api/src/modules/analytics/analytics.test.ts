import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityEvents } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildMailLogEntry, buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, login } from '../../test/sign-in.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Jar;
let otherAdmin: Jar;
let plainUser: Jar;
const password = 'admin password 1';
/** A day of November 2025, at an hour (UTC). */
const at = (d: number, h = 12) => new Date(Date.UTC(2025, 10, d, h));
const iso = (date: Date) => encodeURIComponent(date.toISOString());
const zeroVerdicts = { clean: 0, phishing: 0, malware: 0, spam: 0, suspicious: 0 };
const zeroActions = {
  delivered: 0,
  delivered_banner: 0,
  attachments_removed: 0,
  quarantined: 0,
  quarantined_silent: 0,
  failed: 0,
};

beforeAll(async () => {
  t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' } });
  const tenant = await buildTenant(t.db);
  const other = await buildTenant(t.db);
  const hash = await hashPassword(password);
  await buildUser(t.db, tenant.id, { email: `admin@${tenant.domain}`, role: 'admin', passwordHash: hash });
  await buildUser(t.db, tenant.id, { email: `user@${tenant.domain}`, role: 'user', passwordHash: hash });
  await buildUser(t.db, other.id, { email: `admin@${other.domain}`, role: 'admin', passwordHash: hash });
  admin = new Jar();
  otherAdmin = new Jar();
  plainUser = new Jar();
  await login(t.app, admin, `admin@${tenant.domain}`, password);
  await login(t.app, otherAdmin, `admin@${other.domain}`, password);
  await login(t.app, plainUser, `user@${tenant.domain}`, password);

  const mail = (overrides: Parameters<typeof buildMailLogEntry>[2]) =>
    buildMailLogEntry(t.db, tenant.id, overrides);
  const allPass = { spf: 'pass', dkim: 'pass', dmarc: 'pass' };
  await mail({ receivedAt: at(10, 9), recipient: 'ana@acme.test', sender: 'news@shop.example', ...allPass });
  await mail({
    receivedAt: at(10, 15),
    recipient: 'Bob@acme.test',
    sender: 'bad@spam.example',
    verdict: 'spam',
    action: 'quarantined',
    spf: 'fail',
    dkim: 'none',
    dmarc: 'fail',
  });
  await mail({
    receivedAt: at(11, 8),
    recipient: 'bob@acme.test',
    sender: 'evil@phish.example',
    verdict: 'phishing',
    action: 'quarantined',
    spf: 'pass',
    dkim: 'fail',
    dmarc: 'fail',
  });
  await mail({
    receivedAt: at(11, 9),
    recipient: 'ana@acme.test',
    sender: 'Evil@Phish.example',
    verdict: 'malware',
    action: 'quarantined_silent',
    spf: 'softfail',
    dkim: 'pass',
    dmarc: 'pass',
  });
  // Clean but never delivered: blocked (held unscanned), yet not a targeted recipient.
  await mail({
    receivedAt: at(12, 23),
    recipient: 'carl@acme.test',
    sender: 'x@shop.example',
    action: 'failed',
    spf: 'pass',
    dkim: 'pass',
    dmarc: 'none',
  });
  // Outside the range, and another tenant's mail inside it.
  await mail({ receivedAt: at(13, 0), verdict: 'spam', action: 'quarantined', sender: 'late@spam.example' });
  await buildMailLogEntry(t.db, other.id, { receivedAt: at(11), verdict: 'spam', action: 'quarantined' });

  const event = (tenantId: string, engine: string, createdAt: Date) => ({
    tenantId,
    engine,
    verdict: 'malware',
    description: 'test',
    severity: 'high',
    createdAt,
  });
  await t.db
    .insert(securityEvents)
    .values([
      event(tenant.id, 'clamav', at(10)),
      event(tenant.id, 'clamav', at(12)),
      event(tenant.id, 'anti_phishing', at(11)),
      event(tenant.id, 'clamav', at(14)),
      event(other.id, 'clamav', at(11)),
    ]);
});
afterAll(() => t.close());

const get = (jar: Jar, url: string) => t.app.inject({ method: 'GET', url, cookies: jar.cookies });
const RANGE = `/api/v1/analytics?from=${iso(at(10, 0))}&to=${iso(at(13, 0))}`;

describe('GET /api/v1/analytics', () => {
  it('counts the range per UTC day by verdict and action, zeros included, with the top lists, engines and pass rates', async () => {
    const res = await get(admin, RANGE);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      from: '2025-11-10T00:00:00.000Z',
      to: '2025-11-13T00:00:00.000Z',
      bucket: 'day',
      totals: {
        messages: 5,
        verdict: { ...zeroVerdicts, clean: 2, spam: 1, phishing: 1, malware: 1 },
        action: { ...zeroActions, delivered: 1, quarantined: 2, quarantined_silent: 1, failed: 1 },
      },
      volume: [
        {
          start: '2025-11-10T00:00:00.000Z',
          verdict: { ...zeroVerdicts, clean: 1, spam: 1 },
          action: { ...zeroActions, delivered: 1, quarantined: 1 },
        },
        {
          start: '2025-11-11T00:00:00.000Z',
          verdict: { ...zeroVerdicts, phishing: 1, malware: 1 },
          action: { ...zeroActions, quarantined: 1, quarantined_silent: 1 },
        },
        {
          start: '2025-11-12T00:00:00.000Z',
          verdict: { ...zeroVerdicts, clean: 1 },
          action: { ...zeroActions, failed: 1 },
        },
      ],
      top_recipients: [
        { address: 'bob@acme.test', count: 2 },
        { address: 'ana@acme.test', count: 1 },
      ],
      top_senders: [
        { address: 'evil@phish.example', count: 2 },
        { address: 'bad@spam.example', count: 1 },
        { address: 'x@shop.example', count: 1 },
      ],
      top_sender_domains: [
        { domain: 'phish.example', count: 2 },
        { domain: 'shop.example', count: 1 },
        { domain: 'spam.example', count: 1 },
      ],
      engines: [
        { engine: 'clamav', count: 2 },
        { engine: 'anti_phishing', count: 1 },
      ],
      auth: { spf: { pass: 3, total: 5 }, dkim: { pass: 3, total: 5 }, dmarc: { pass: 2, total: 5 } },
      summary: {
        from: '2025-11-10T00:00:00.000Z',
        to: '2025-11-13T00:00:00.000Z',
        messages: 5,
        not_clean: 3,
        verdict: { ...zeroVerdicts, clean: 2, spam: 1, phishing: 1, malware: 1 },
        held: 4,
        delivered_banner: 0,
        attachments_removed: 0,
      },
    });
  });

  it('counts per hour for a range of two days or less', async () => {
    const res = await get(admin, `/api/v1/analytics?from=${iso(at(10, 8))}&to=${iso(at(10, 16))}`);
    const body = JSON.parse(res.body);
    expect(body.bucket).toBe('hour');
    expect(body.volume.map((b: { start: string }) => b.start.slice(11, 13))).toEqual([
      '08',
      '09',
      '10',
      '11',
      '12',
      '13',
      '14',
      '15',
    ]);
    expect(
      body.volume.map((b: { verdict: { clean: number; spam: number } }) => [b.verdict.clean, b.verdict.spam]),
    ).toEqual([
      [0, 0],
      [1, 0],
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 1],
    ]);
  });

  it('covers the last 30 days up to now without a range', async () => {
    const now = Date.now();
    const tenant = await buildTenant(t.db);
    await buildUser(t.db, tenant.id, {
      email: `admin@${tenant.domain}`,
      role: 'admin',
      passwordHash: await hashPassword(password),
    });
    const jar = new Jar();
    await login(t.app, jar, `admin@${tenant.domain}`, password);
    await buildMailLogEntry(t.db, tenant.id, { receivedAt: new Date(now - 2 * 24 * 3600_000) });
    await buildMailLogEntry(t.db, tenant.id, { receivedAt: new Date(now - 31 * 24 * 3600_000) });
    const body = JSON.parse((await get(jar, '/api/v1/analytics')).body);
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(30 * 24 * 3600_000);
    expect(body.bucket).toBe('day');
    expect(body.totals.messages).toBe(1);
    expect(
      body.volume.reduce((sum: number, b: { verdict: { clean: number } }) => sum + b.verdict.clean, 0),
    ).toBe(1);
  });

  it("shows another tenant's admin only that tenant's mail and events", async () => {
    const body = JSON.parse((await get(otherAdmin, RANGE)).body);
    expect(body.totals.messages).toBe(1);
    expect(body.totals.verdict.spam).toBe(1);
    expect(body.top_senders).toEqual([{ address: 'sender@outside.test', count: 1 }]);
    expect(body.engines).toEqual([{ engine: 'clamav', count: 1 }]);
  });

  it('answers 400 for a range that ends before it starts, is longer than 366 days, or a bad date', async () => {
    const longAgo = new Date(Date.UTC(2024, 10, 1));
    for (const query of [
      `from=${iso(at(12))}&to=${iso(at(11))}`,
      `from=${iso(longAgo)}&to=${iso(at(11))}`,
      `to=${iso(longAgo)}&from=${iso(new Date(longAgo.getTime() - 367 * 24 * 3600_000))}`,
      'from=yesterday',
    ]) {
      const res = await get(admin, `/api/v1/analytics?${query}`);
      expect(res.statusCode, query).toBe(400);
    }
    // Exactly 366 days is allowed.
    const to = at(11);
    const from = new Date(to.getTime() - 366 * 24 * 3600_000);
    expect((await get(admin, `/api/v1/analytics?from=${iso(from)}&to=${iso(to)}`)).statusCode).toBe(200);
  });

  it('is for admins only', async () => {
    expect((await get(plainUser, RANGE)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: RANGE })).statusCode).toBe(403);
  });
});

describe('the Overview and the Analytics dashboard', () => {
  it('count the same mail the same way over the same 30 days', async () => {
    // Whole seconds, as the ISO answers carry them; near today (the session cookie's expiry is real time).
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const clock = new ManualClock(now);
    const day = 24 * 3600_000;
    const app = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' }, clock });
    try {
      const tenant = await buildTenant(app.db);
      await buildUser(app.db, tenant.id, {
        email: `admin@${tenant.domain}`,
        role: 'admin',
        passwordHash: await hashPassword(password),
      });
      const jar = new Jar();
      await login(app.app, jar, `admin@${tenant.domain}`, password);
      const ago = (days: number) => new Date(now.getTime() - days * day);
      const mail = (days: number, verdict: string, action: string) =>
        buildMailLogEntry(app.db, tenant.id, { receivedAt: ago(days), verdict, action });
      await mail(1, 'clean', 'delivered');
      await mail(2, 'spam', 'delivered_banner');
      await mail(3, 'spam', 'quarantined');
      await mail(4, 'phishing', 'quarantined');
      await mail(5, 'malware', 'quarantined_silent');
      await mail(6, 'suspicious', 'attachments_removed');
      await mail(7, 'clean', 'failed');
      await mail(29.9, 'suspicious', 'delivered_banner');
      // Older than the 30 days: counted by neither.
      await mail(30.1, 'phishing', 'quarantined');
      await buildMailLogEntry(app.db, (await buildTenant(app.db)).id, {
        receivedAt: ago(1),
        verdict: 'spam',
      });

      const overview = (
        await app.app.inject({ method: 'GET', url: '/api/v1/dashboard/overview', cookies: jar.cookies })
      ).json();
      const analytics = (
        await app.app.inject({ method: 'GET', url: '/api/v1/analytics', cookies: jar.cookies })
      ).json();
      expect(overview.mail_30d).toEqual(analytics.summary);
      expect(overview.mail_30d).toEqual({
        from: ago(30).toISOString(),
        to: now.toISOString(),
        messages: 8,
        not_clean: 6,
        verdict: { clean: 2, spam: 2, phishing: 1, malware: 1, suspicious: 2 },
        held: 4,
        delivered_banner: 2,
        attachments_removed: 1,
      });
      // The dashboard's own totals say the same as its summary.
      expect(analytics.totals.messages).toBe(analytics.summary.messages);
      expect(analytics.totals.verdict).toEqual(analytics.summary.verdict);
      expect(
        analytics.totals.action.quarantined +
          analytics.totals.action.quarantined_silent +
          analytics.totals.action.failed,
      ).toBe(analytics.summary.held);
    } finally {
      await app.close();
    }
  });
});
