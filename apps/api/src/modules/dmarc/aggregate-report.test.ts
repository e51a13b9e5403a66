import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseAggregateReport, REPORT_LIMITS, ReportRefused } from './aggregate-report.ts';
import { GOOGLE_REPORT, MICROSOFT_REPORT } from './test-reports.ts';

const refusal = (file: Uint8Array) => {
  try {
    parseAggregateReport(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ReportRefused);
    return (error as Error).message;
  }
  throw new Error('the file was taken in');
};

describe('DMARC aggregate reports', () => {
  it('reads a zipped Google report: metadata, policy, every row with its DKIM and SPF results', () => {
    const report = parseAggregateReport(
      zipSync({ 'google.com!acme.test!1764633600!1764719999.xml': Buffer.from(GOOGLE_REPORT) }),
    );
    expect(report).toMatchObject({
      orgName: 'google.com',
      reportId: '4312398455187346520',
      begin: new Date(1764633600_000),
      end: new Date(1764719999_000),
      policy: { domain: 'acme.test', p: 'none', sp: 'none', adkim: 'r', aspf: 'r', pct: 100 },
    });
    expect(report.records).toEqual([
      expect.objectContaining({
        sourceIp: '203.0.113.25',
        count: 42,
        dkim: 'pass',
        spf: 'pass',
        headerFrom: 'acme.test',
        dkimResults: [{ domain: 'acme.test', selector: 's1', result: 'pass' }],
        spfResults: [{ domain: 'acme.test', result: 'pass' }],
      }),
      expect.objectContaining({
        sourceIp: '2001:db8::7',
        count: 3,
        dkim: 'fail',
        reasons: [{ type: 'forwarded', comment: 'looks forwarded' }],
        dkimResults: [
          { domain: 'mailer.example', selector: 'k1', result: 'pass' },
          { domain: 'acme.test', selector: 's1', result: 'fail' },
        ],
        spfResults: [{ domain: 'mailer.example', result: 'softfail' }],
      }),
    ]);
  });

  it('reads a gzipped Microsoft report in DMARCbis’s namespace, with upper-case results and empty fields', () => {
    const report = parseAggregateReport(gzipSync(MICROSOFT_REPORT));
    expect(report.policy).toEqual({
      domain: 'acme.test',
      adkim: 's',
      aspf: 'r',
      p: 'quarantine',
      sp: 'quarantine',
      pct: 100,
    });
    expect(report.records[0]).toMatchObject({
      disposition: 'quarantine',
      dkim: 'fail',
      spf: 'fail',
      envelopeFrom: 'acme.test',
      envelopeTo: 'outlook.com',
      dkimResults: [],
      spfResults: [{ domain: 'acme.test', scope: 'mfrom', result: 'fail' }],
    });
  });

  it('reads a Mimecast gzip with the CRLF its mailer puts after the gzip trailer, and still refuses a cut one', () => {
    const gz = gzipSync(GOOGLE_REPORT);
    const report = parseAggregateReport(Buffer.concat([gz, Buffer.from('\r\n')]));
    expect(report.orgName).toBe('google.com');
    expect(report.records).toHaveLength(2);
    expect(refusal(Buffer.concat([gz.subarray(0, gz.length - 12), Buffer.from('\r\n')]))).toMatch(
      /gzip file is damaged/,
    );
  });

  it('reads a report its XML declaration says is ISO-8859-1, and spells an IPv6 source one way', () => {
    const xml = GOOGLE_REPORT.replace('UTF-8', 'ISO-8859-1')
      .replace('google.com</org_name>', 'g\u00f6ogle.com</org_name>')
      .replace('2001:db8::7', '2001:DB8::7');
    const report = parseAggregateReport(Buffer.from(xml, 'latin1'));
    expect(report.orgName).toBe('g\u00f6ogle.com');
    expect(report.records.map((r) => r.sourceIp)).toEqual(['203.0.113.25', '2001:db8::7']);
  });

  it('refuses what is not a report, with a reason a person can act on', () => {
    expect(refusal(Buffer.from('hello'))).toMatch(/not a readable XML report/);
    expect(refusal(Buffer.from('<html><body>hi</body></html>'))).toMatch(/no <feedback>/);
    expect(refusal(Buffer.from(GOOGLE_REPORT.replace(/<report_id>.*<\/report_id>/, '')))).toMatch(
      /no reporter or report id/,
    );
    expect(refusal(Buffer.from(GOOGLE_REPORT.replace('203.0.113.25', 'not-an-ip')))).toMatch(
      /not an IP address/,
    );
    expect(refusal(Buffer.from(GOOGLE_REPORT.replace('<count>42', '<count>many')))).toMatch(
      /count is not a number/,
    );
    expect(refusal(new Uint8Array())).toMatch(/empty/);
    expect(refusal(Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3]))).toMatch(/gzip file is damaged/);
  });

  it('never expands an entity: a DTD (a billion laughs) is refused, and so is an undeclared entity', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><feedback><report_metadata><org_name>&lol2;</org_name></report_metadata></feedback>`;
    expect(refusal(Buffer.from(laughs))).toMatch(/declares a DTD/);
    const external = `<?xml version="1.0"?><!DOCTYPE feedback SYSTEM "file:///etc/passwd"><feedback/>`;
    expect(refusal(Buffer.from(external))).toMatch(/declares a DTD/);
    expect(refusal(Buffer.from(GOOGLE_REPORT.replace('google.com</org_name>', '&xxe;</org_name>')))).toMatch(
      /not a readable XML report/,
    );
  });

  it('refuses a zip or gzip bomb at its bound, a zip of several reports, and a file past 10 MB', () => {
    const zeros = new Uint8Array(REPORT_LIMITS.xmlBytes + 1024);
    expect(refusal(gzipSync(zeros))).toMatch(/inflates to more than 50 MB/);
    expect(refusal(zipSync({ 'bomb.xml': zeros }))).toMatch(/inflates to more than 50 MB/);
    expect(
      refusal(zipSync({ 'a.xml': Buffer.from(GOOGLE_REPORT), 'b.xml': Buffer.from(GOOGLE_REPORT) })),
    ).toMatch(/holds 2 XML files/);
    expect(refusal(new Uint8Array(REPORT_LIMITS.fileBytes + 1).fill(0x3c))).toMatch(/larger than 10 MB/);
  });

  it('reads a report of 5,000 rows (about 1 MB) row by row', () => {
    const row = (i: number) =>
      `<record><row><source_ip>192.0.2.${i % 250}</source_ip><count>${i}</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>acme.test</header_from></identifiers><auth_results><dkim><domain>acme.test</domain><result>pass</result><selector>s${i}</selector></dkim><spf><domain>bounce.acme.test</domain><result>pass</result></spf></auth_results></record>`;
    const big = GOOGLE_REPORT.replace(
      /<record>[\s\S]*<\/record>/,
      Array.from({ length: 5_000 }, (_, i) => row(i)).join('\n'),
    );
    expect(big.length).toBeGreaterThan(1_000_000);
    const report = parseAggregateReport(Buffer.from(big));
    expect(report.records).toHaveLength(5_000);
    expect(report.records[4_999]).toMatchObject({ sourceIp: '192.0.2.249', count: 4_999, spf: 'fail' });
  });
});
