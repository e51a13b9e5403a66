import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../db/client.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant } from '../../test/factories.ts';
import type { AggregateReport, ReportRecord } from './aggregate-report.ts';
import { createDmarcRepo, type RecordsFilter } from './dmarc.repo.ts';

/**
 * The Overview and the Explorer read sums (`dmarc_domain_days`, `dmarc_daily`) and bounds instead
 * of every row (migration 0039): what they answer must be what summing the rows themselves gives,
 * for any filter and range, part-days included, and the failing sources exactly the top ones.
 */
let t: Awaited<ReturnType<typeof buildTestApp>>;
let tenantId: string;
let repo: ReturnType<typeof createDmarcRepo>;
const DAY = 86_400_000;
/** Ten UTC days over the end of a month, the first at midnight. */
const START = Date.UTC(2026, 10, 25);

/** A small deterministic generator (the same rows every run). */
function generator(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

function row(sourceIp: string, count: number, dkim: 'pass' | 'fail', spf: 'pass' | 'fail'): ReportRecord {
  return {
    sourceIp,
    count,
    disposition: dkim === 'pass' || spf === 'pass' ? 'none' : 'reject',
    dkim,
    spf,
    reasons: [],
    headerFrom: 'x.test',
    envelopeFrom: 'x.test',
    envelopeTo: '',
    dkimResults: [],
    spfResults: [],
  };
}

function report(
  domain: string,
  org: string,
  begin: number,
  p: string,
  records: ReportRecord[],
): AggregateReport {
  return {
    orgName: org,
    email: `dmarc@${org}`,
    reportId: `${org}-${domain}-${begin}`,
    begin: new Date(begin),
    end: new Date(begin + DAY - 1000),
    policy: { domain, adkim: 'r', aspf: 'r', p, sp: p, pct: 100 },
    records,
  };
}

beforeAll(async () => {
  t = await buildTestApp();
  tenantId = (await buildTenant(t.db, { domain: 'big.test' })).id;
  repo = createDmarcRepo(t.db);
  const random = generator(37);
  const intake = {
    source: 'upload' as const,
    kind: 'aggregate' as const,
    outcome: 'added' as const,
    part: 0,
  };
  const take = (r: AggregateReport) =>
    repo.insertReport(tenantId, r, 'upload', new Uint8Array([1]), '', new Date(START + 20 * DAY), intake);
  for (let day = 0; day < 10; day++) {
    const midnight = START + day * DAY;
    // big.test: 3 reporters, one of them starting its day at 07:00; 60 rows each from a pool of
    // 120 sources with a long tail (the first pass, the rest mostly fail).
    for (const [o, offset] of [
      [0, 0],
      [1, 0],
      [2, 7 * 3_600_000],
    ] as const) {
      const records = Array.from({ length: 60 }, () => {
        const i = Math.floor(120 * random() ** 2);
        const legit = i < 10;
        return row(
          `198.51.${Math.floor(i / 50)}.${i % 50}`,
          legit ? 1 + Math.floor(random() * 500) : 1 + Math.floor(random() ** 3 * 40),
          legit || random() < 0.1 ? 'pass' : 'fail',
          legit && random() < 0.9 ? 'pass' : 'fail',
        );
      });
      await take(
        report('big.test', `reporter${o}.example`, midnight + offset, day < 5 ? 'none' : 'reject', records),
      );
    }
    // even.test: 30 new sources a day, each failing once: no source beats the others, so the
    // first candidates do not settle the top and more are read.
    await take(
      report(
        'even.test',
        'reporter0.example',
        midnight,
        'none',
        Array.from({ length: 30 }, (_, i) => row(`2001:db8:${day}::${i.toString(16)}`, 1, 'fail', 'fail')),
      ),
    );
  }
  // A report without rows still counts as a report.
  await take(report('empty.test', 'reporter0.example', START + 3 * DAY, 'quarantine', []));
  // year.test: a report a week for fourteen months (a year's Overview reads quarters, migration
  // 0041). Each quarter, 40 senders of its own fail most (8 a week, then 3 a week the quarter
  // after): every quarter's worst, none of them failing most over a year. 3 senders fail 7 a week
  // all along: never among a quarter's worst, yet the year's top. And a tail failing now and then.
  for (let week = 0; week < 61; week++) {
    const begin = Date.UTC(2025, 9, 6) + week * 7 * DAY;
    const date = new Date(begin);
    const quarter = date.getUTCFullYear() * 4 + Math.floor(date.getUTCMonth() / 3);
    const spiky = (q: number, count: number) =>
      Array.from({ length: 40 }, (_, i) => row(`198.18.${q % 100}.${i}`, count, 'fail', 'fail'));
    const steady = [0, 1, 2].flatMap((i) => [
      row(`192.0.2.${i}`, 7, 'fail', 'fail'),
      row(`192.0.2.${i}`, 20 + Math.floor(random() * 30), 'pass', random() < 0.5 ? 'pass' : 'fail'),
    ]);
    const tail = Array.from({ length: 12 }, () =>
      row(
        `2001:db8:ff::${Math.floor(400 * random()).toString(16)}`,
        1 + Math.floor(random() * 30),
        'fail',
        'fail',
      ),
    );
    await take(
      report('year.test', 'reporter0.example', begin, 'reject', [
        ...spiky(quarter, 8),
        ...spiky(quarter - 1, 3),
        ...steady,
        ...tail,
      ]),
    );
  }
});
afterAll(async () => {
  await t.close();
});

/** The totals summed from the rows themselves. */
async function direct(filter: Omit<RecordsFilter, 'tenantId' | 'sort' | 'dir' | 'limit' | 'offset'>) {
  const where = [sql`tenant_id = ${tenantId}`];
  if (filter.domain) where.push(sql`domain = ${filter.domain}`);
  if (filter.ip) where.push(sql`source_ip like ${`${filter.ip}%`}`);
  if (filter.dmarc === 'pass') where.push(sql`(dkim = 'pass' or spf = 'pass')`);
  if (filter.dmarc === 'fail') where.push(sql`not (dkim = 'pass' or spf = 'pass')`);
  if (filter.from) where.push(sql`begin_at >= ${filter.from.toISOString()}::timestamptz`);
  if (filter.to) where.push(sql`begin_at < ${filter.to.toISOString()}::timestamptz`);
  const [r] = rowsOf(
    await t.db.execute(
      sql`select count(*) as total, coalesce(sum(count), 0) as messages,
            coalesce(sum(count) filter (where dkim = 'pass' or spf = 'pass'), 0) as passed
          from dmarc_records where ${sql.join(where, sql` and `)}`,
    ),
  );
  return { total: Number(r!.total), messages: Number(r!.messages), passed: Number(r!.passed) };
}

describe('DMARC at scale: sums instead of rows', () => {
  it('gives the Explorer the same totals as the rows, for every filter and range', async () => {
    const at = (days: number, hours = 0) => new Date(START + days * DAY + hours * 3_600_000);
    const ranges: Array<{ from?: Date; to?: Date }> = [
      {},
      { from: at(2) },
      { to: at(6) },
      { from: at(2), to: at(6) },
      { from: at(2, 5), to: at(6, 9) },
      { from: at(2, 7), to: at(2, 8) },
      { from: at(2, 6), to: at(3, 7) },
      { from: at(4, 23), to: at(5, 1) },
      { from: at(0, 7), to: at(0, 7) },
      { from: at(-30), to: at(30) },
      { from: at(9, 12) },
      { to: at(0, 3) },
    ];
    let checked = 0;
    for (const range of ranges)
      for (const domain of [undefined, 'big.test', 'even.test', 'BIG.test', 'none.test'])
        for (const dmarc of [undefined, 'pass', 'fail'] as const)
          for (const ip of [undefined, '198.51.0.', '198.51.1.4', '2001:db8:3:']) {
            const filter = { ...range, domain, dmarc, ip };
            const found = await repo.records({
              tenantId,
              ...filter,
              sort: 'begin',
              dir: 'desc',
              limit: 1,
              offset: 0,
            });
            const expected = await direct({ ...filter, domain: domain?.toLowerCase() });
            expect({ filter, total: found.total, messages: found.messages, passed: found.passed }).toEqual({
              filter,
              ...expected,
            });
            checked += expected.total > 0 ? 1 : 0;
          }
    expect(checked).toBeGreaterThan(100);
  });

  it('pages through every sort without a row twice or missing', async () => {
    const all = await direct({ domain: 'big.test' });
    for (const sort of ['begin', 'count', 'source_ip'] as const)
      for (const dir of ['asc', 'desc'] as const) {
        const seen: string[] = [];
        const values: Array<number | string> = [];
        for (let offset = 0; offset < all.total; offset += 200) {
          const page = await repo.records({ tenantId, domain: 'big.test', sort, dir, limit: 200, offset });
          for (const item of page.items) {
            seen.push(item.record.id);
            values.push(
              sort === 'begin'
                ? item.record.beginAt.getTime()
                : sort === 'count'
                  ? item.record.count
                  : item.record.sourceIp,
            );
          }
        }
        expect(new Set(seen).size).toBe(all.total);
        const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(values).toEqual(dir === 'asc' ? sorted : sorted.reverse());
      }
  });

  it('gives the Overview the days, reports, latest policy and top failing sources the rows give', async () => {
    for (const [from, top] of [
      ['2026-11-25', 10],
      ['2026-11-28', 5],
      ['2026-11-30', 10],
      ['2026-12-01', 10],
      ['2026-12-03', 4],
      ['2026-11-01', 3],
      // A year (the Overview's 365 days) and more: the candidates come from quarters.
      ['2025-12-05', 10],
      ['2025-12-05', 3],
      ['2025-10-01', 5],
      ['2026-02-17', 2],
      ['2025-11-20', 1],
    ] as const) {
      const found = await repo.overview(tenantId, from, top);
      const days = rowsOf(
        await t.db.execute(
          sql`select domain, (begin_at at time zone 'UTC')::date::text as day, sum(count) as messages,
                coalesce(sum(count) filter (where dkim = 'pass' or spf = 'pass'), 0) as passed
              from dmarc_records where tenant_id = ${tenantId} and begin_at >= ${`${from}T00:00:00Z`}::timestamptz
              group by 1, 2 order by 1, 2`,
        ),
      ).map((r) => ({
        domain: String(r.domain),
        day: String(r.day),
        messages: Number(r.messages),
        passed: Number(r.passed),
      }));
      expect(found.days).toEqual(days);
      const failing = rowsOf(
        await t.db.execute(
          sql`select domain, source_ip, failed, reports from (
                select domain, source_ip, sum(count) filter (where not (dkim = 'pass' or spf = 'pass')) as failed,
                  count(distinct report_id) as reports,
                  row_number() over (partition by domain order by sum(count) filter (where not (dkim = 'pass' or spf = 'pass')) desc nulls last, source_ip) as place
                from dmarc_records where tenant_id = ${tenantId} and begin_at >= ${`${from}T00:00:00Z`}::timestamptz
                group by domain, source_ip) ranked
              where place <= ${top} and failed > 0 order by domain, place`,
        ),
      ).map((r) => ({
        domain: String(r.domain),
        sourceIp: String(r.source_ip),
        messages: Number(r.failed),
        reports: Number(r.reports),
      }));
      expect(found.failing).toEqual(failing);
      // The senders failing a little every week, never among a quarter's worst, are found.
      if (from === '2025-12-05' && top === 10)
        expect(found.failing.filter((f) => f.sourceIp.startsWith('192.0.2.'))).toHaveLength(3);
      expect(found.failing.filter((f) => f.domain === 'even.test')).toHaveLength(
        Math.min(top, failing.filter((f) => f.domain === 'even.test').length),
      );
      const reports = rowsOf(
        await t.db.execute(
          sql`select domain, count(*) as reports, (array_agg(policy->>'p' order by end_at desc))[1] as policy
              from dmarc_reports where tenant_id = ${tenantId} and begin_at >= ${`${from}T00:00:00Z`}::timestamptz
              group by domain order by domain`,
        ),
      ).map((r) => ({ domain: String(r.domain), reports: Number(r.reports), policy: String(r.policy) }));
      expect([...found.reports].sort((a, b) => (a.domain < b.domain ? -1 : 1))).toEqual(reports);
    }
    const quarters = rowsOf(
      await t.db.execute(
        sql`select q.domain, q.quarter::text as quarter, q.source_ip, q.messages, q.passed, q.reports,
              r.messages as rows_messages, r.passed as rows_passed, r.reports as rows_reports
            from dmarc_source_quarters q full join (
              select domain, date_trunc('quarter', begin_at at time zone 'UTC')::date as quarter, source_ip,
                sum(count) as messages, coalesce(sum(count) filter (where dkim = 'pass' or spf = 'pass'), 0) as passed,
                count(distinct report_id) as reports
              from dmarc_records where tenant_id = ${tenantId} group by 1, 2, 3) r
            using (domain, quarter, source_ip)
            where q.tenant_id = ${tenantId} or q.tenant_id is null`,
      ),
    );
    expect(quarters.length).toBeGreaterThan(1_000);
    for (const q of quarters)
      expect([q.messages, q.passed, q.reports].map(Number)).toEqual(
        [q.rows_messages, q.rows_passed, q.rows_reports].map(Number),
      );
    const year = await repo.overview(tenantId, '2026-01-01', 10);
    expect(year.reports.find((r) => r.domain === 'big.test')).toMatchObject({
      reports: 30,
      policy: 'reject',
    });
    expect(year.reports.find((r) => r.domain === 'empty.test')).toMatchObject({
      reports: 1,
      policy: 'quarantine',
    });
  });
});
