import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ReportRefused } from './aggregate-report.ts';
import { maskAddress, parseFailureReport } from './failure-report.ts';
import { uploadKindOf } from './failure-tls.service.ts';
import {
  ARF_QUIRKY,
  ARF_REPORT,
  TLS_DAY1,
  TLS_DAY2,
  TLS_GOOGLE_REPORT,
  TLS_MICROSOFT_REPORT,
  TLS_RFC_REPORT,
} from './failure-tls-samples.ts';
import { GOOGLE_REPORT } from './test-reports.ts';
import { parseTlsReport } from './tls-report.ts';

const refusal = (read: () => unknown) => {
  try {
    read();
  } catch (error) {
    if (error instanceof ReportRefused) return error.message;
    throw error;
  }
  throw new Error('not refused');
};

describe('failure reports (RFC 6591)', () => {
  it('reads the RFC example: its fields, the addresses masked, the sample redacted and never its body', () => {
    const r = parseFailureReport(Buffer.from(ARF_REPORT));
    expect(r).toMatchObject({
      reporter: 'mail.example.net',
      reportedDomain: 'acme.test',
      feedbackType: 'auth-failure',
      authFailure: 'dmarc',
      sourceIp: '192.0.2.1',
      originalMailFrom: 'b***@acme.test',
      originalRcptTo: 'j***@mail.example.net',
      deliveryResult: 'reject',
      dkimDomain: 'acme.test',
      dkimSelector: 'news',
      dkimIdentity: '@acme.test',
      identityAlignment: 'none',
    });
    expect(r.arrivalAt?.toISOString()).toBe('2025-12-01T19:34:56.000Z');
    expect(r.authenticationResults).toContain('smtp.mailfrom=b***@acme.test');
    expect(r.sample).toEqual([
      { name: 'From', value: '"John Smith" <j***@acme.test>' },
      { name: 'To', value: '"Jane Doe" <j***@mail.example.net>' },
      { name: 'Subject', value: 'Discount on office supplies' },
      { name: 'Date', value: 'Mon, 01 Dec 2025 12:34:50 -0700' },
      { name: 'Message-ID', value: '<8787KJKJ3K4J3K4J3K4J3.mail@acme.test>' },
      { name: 'DKIM-Signature', value: 'd=acme.test; s=news' },
      {
        name: 'Received',
        value:
          'from smtp-out.acme.test (smtp-out.acme.test [192.0.2.1]) by mail.example.net with ESMTP id abc123 for <j***@mail.example.net>; Mon, 01 Dec 2025 12:34:56 -0700',
      },
    ]);
    const kept = JSON.stringify(r);
    expect(kept).not.toMatch(/confidential|12345678|X-Secret|john\.smith|jane\.doe|dzdVyOf/);
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes the quirks: lower-case folded fields in base64, no Reported-Domain, headers only, encoded words', () => {
    const r = parseFailureReport(Buffer.from(ARF_QUIRKY));
    expect(r).toMatchObject({
      reporter: 'yahoo.example',
      reportedDomain: 'news.acme.test',
      authFailure: 'dmarc',
      sourceIp: '198.51.100.77',
      originalMailFrom: 'n***@news.acme.test',
      deliveryResult: 'spam',
    });
    expect(r.authenticationResults).toMatch(/dmarc=fail\(p=QUARANTINE\) header\.from=news\.acme\.test$/);
    expect(r.sample.find((h) => h.name === 'Subject')?.value).toBe('Your invoice € 42');
    expect(r.sample.find((h) => h.name === 'From')?.value).toBe('Newsletter ✉ <n***@news.acme.test>');
  });

  it('hashes what the report says, not how it travelled', () => {
    const a = parseFailureReport(Buffer.from(ARF_REPORT));
    const resent = ARF_REPORT.replace('Message-ID: <433689', 'Message-ID: <999999').replace(
      'Date: Mon, 01 Dec 2025 12:34:56 -0700\r\nMessage-ID: <999',
      'Date: Tue, 02 Dec 2025 01:00:00 +0000\r\nMessage-ID: <999',
    );
    expect(parseFailureReport(Buffer.from(resent)).hash).toBe(a.hash);
    const other = ARF_REPORT.replace('Source-IP: 192.0.2.1', 'Source-IP: 192.0.2.2');
    expect(parseFailureReport(Buffer.from(other)).hash).not.toBe(a.hash);
  });

  it('refuses what is no failure report, with the reason', () => {
    expect(refusal(() => parseFailureReport(Buffer.alloc(0)))).toMatch(/empty/);
    expect(
      refusal(() => parseFailureReport(Buffer.from('From: a@b.example\r\nSubject: hi\r\n\r\nhello'))),
    ).toMatch(/not a failure report/);
    expect(
      refusal(() => parseFailureReport(Buffer.from(ARF_REPORT.replace('auth-failure', 'abuse')))),
    ).toMatch(/type "abuse"/);
    expect(
      refusal(() =>
        parseFailureReport(
          Buffer.from(
            ARF_REPORT.replace('Content-Type: message/feedback-report', 'Content-Type: text/plain'),
          ),
        ),
      ),
    ).toMatch(/no message\/feedback-report part/);
    expect(refusal(() => parseFailureReport(Buffer.alloc(11 * 1024 * 1024, 0x41)))).toMatch(
      /larger than 10 MB/,
    );
  });

  it('masks local parts and leaves the rest', () => {
    expect(maskAddress('john@example.com, <x.y+z@a.example> @acme.test')).toBe(
      'j***@example.com, <x***@a.example> @acme.test',
    );
  });
});

describe('SMTP TLS reports (RFC 8460)', () => {
  it('reads the RFC example: the policy, its sessions and each failure', () => {
    const r = parseTlsReport(Buffer.from(TLS_RFC_REPORT));
    expect(r).toMatchObject({
      orgName: 'Company-X',
      contact: 'sts-reporting@company-x.example',
      reportId: '5065427c-23d3-47ca-b6e0-946ea0e8c4be',
    });
    expect(r.begin.toISOString()).toBe(`${TLS_DAY1}T00:00:00.000Z`);
    const [policy] = r.policies;
    expect(policy).toMatchObject({
      type: 'sts',
      domain: 'acme.test',
      mxHosts: ['*.mail.acme.test'],
      successful: 5326,
      failed: 303,
    });
    expect(policy!.strings).toHaveLength(4);
    expect(policy!.failureDetails.map((d) => [d.resultType, d.failedSessions])).toEqual([
      ['certificate-expired', 100],
      ['starttls-not-supported', 200],
      ['validation-failure', 3],
    ]);
    expect(policy!.failureDetails[2]).toMatchObject({
      receivingIp: '203.0.113.58',
      failureReasonCode: 'X509_V_ERR_PROOF_OF_POSSESSION',
    });
  });

  it("reads Google's gzip and Microsoft's variants", () => {
    const google = parseTlsReport(gzipSync(TLS_GOOGLE_REPORT));
    expect(google.policies[0]).toMatchObject({ successful: 23, failed: 0, mxHosts: [], failureDetails: [] });
    const microsoft = parseTlsReport(Buffer.from(TLS_MICROSOFT_REPORT));
    expect(microsoft.policies[0]).toMatchObject({ type: 'no-policy-found', mxHosts: ['mx.acme.test'] });
    expect(microsoft.policies[0]!.failureDetails[0]).toMatchObject({
      receivingMxHostname: 'mx.acme.test',
      failedSessions: 2,
    });
  });

  it('refuses a JSON that is no TLS report, a broken one, a bomb, with the reason', () => {
    expect(refusal(() => parseTlsReport(Buffer.from('{"hello": 1}')))).toMatch(/not an SMTP TLS report/);
    expect(refusal(() => parseTlsReport(Buffer.from('[1,2]')))).toMatch(/not an SMTP TLS report/);
    expect(refusal(() => parseTlsReport(Buffer.from('{"policies": ')))).toMatch(/not JSON/);
    const negative = TLS_GOOGLE_REPORT.replace(
      '"total-successful-session-count":23',
      '"total-successful-session-count":-5',
    );
    expect(refusal(() => parseTlsReport(Buffer.from(negative)))).toMatch(
      /policies\[0\]\.summary\.total-successful-session-count/,
    );
    const badDate = TLS_GOOGLE_REPORT.replace(`${TLS_DAY2}T00:00:00Z`, 'yesterday');
    expect(refusal(() => parseTlsReport(Buffer.from(badDate)))).toMatch(/not a date-time/);
    const badType = TLS_GOOGLE_REPORT.replace('"policy-type":"sts"', '"policy-type":"magic"');
    expect(refusal(() => parseTlsReport(Buffer.from(badType)))).toMatch(/sts, tlsa and no-policy-found/);
    const bomb = gzipSync(Buffer.alloc(60 * 1024 * 1024, 0x20));
    expect(refusal(() => parseTlsReport(bomb))).toMatch(/inflates to more than 50 MB/);
  });
});

describe('what an upload is', () => {
  it('tells a TLS report, a failure report and an aggregate report apart by their content', () => {
    expect(uploadKindOf(Buffer.from(TLS_RFC_REPORT))).toBe('tls');
    expect(uploadKindOf(gzipSync(TLS_GOOGLE_REPORT))).toBe('tls');
    expect(uploadKindOf(Buffer.from(ARF_REPORT))).toBe('failure');
    expect(uploadKindOf(Buffer.from(GOOGLE_REPORT))).toBe('aggregate');
    expect(uploadKindOf(gzipSync(GOOGLE_REPORT))).toBe('aggregate');
    expect(uploadKindOf(Buffer.from('garbage'))).toBe('aggregate');
  });
});
