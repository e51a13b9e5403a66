/* Failure reports (RFC 6591) and SMTP TLS reports (RFC 8460) as reporters write them, for the tests. */

const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/** RFC 6591 appendix B's example, about acme.test: a sample with its body (never kept). */
export const ARF_REPORT = crlf(`From: dmarc-noreply@mail.example.net
To: dmarc-reports@acme.test
Subject: FW: Discount on office supplies
Date: Mon, 01 Dec 2025 12:34:56 -0700
Message-ID: <433689.81121.example@mail.example.net>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
     boundary="part1_13d.2e68ed54_boundary"

--part1_13d.2e68ed54_boundary
Content-Type: text/plain; charset="US-ASCII"
Content-Transfer-Encoding: 7bit

This is an authentication failure report for an email message received from IP
192.0.2.1 on Mon, 01 Dec 2025 12:34:56 -0700.

--part1_13d.2e68ed54_boundary
Content-Type: message/feedback-report

Feedback-Type: auth-failure
User-Agent: SomeGenerator/1.0
Version: 1
Original-Mail-From: <bounces+john.smith@acme.test>
Original-Rcpt-To: <jane.doe@mail.example.net>
Arrival-Date: Mon, 01 Dec 2025 12:34:56 -0700
Source-IP: 192.0.2.1
Authentication-Results: mail.example.net; dkim=fail
  header.d=acme.test header.i=@acme.test; spf=fail smtp.mailfrom=bounces+john.smith@acme.test;
  dmarc=fail header.from=acme.test
Reported-Domain: acme.test
Delivery-Result: reject
Auth-Failure: dmarc
Identity-Alignment: none
DKIM-Domain: acme.test
DKIM-Identity: @acme.test
DKIM-Selector: news

--part1_13d.2e68ed54_boundary
Content-Type: message/rfc822
Content-Disposition: inline

Received: from smtp-out.acme.test (smtp-out.acme.test [192.0.2.1])
  by mail.example.net with ESMTP id abc123 for <jane.doe@mail.example.net>;
  Mon, 01 Dec 2025 12:34:56 -0700
DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=acme.test; s=news;
  h=from:to:subject:date; bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=;
  b=dzdVyOfAKCdLXdJOc9G2q8LoXSlEniSbav+yuU4zGeeruD00lszZVoG4ZHRNiYzR
From: "John Smith" <john.smith@acme.test>
To: "Jane Doe" <jane.doe@mail.example.net>
Subject: Discount on office supplies
Date: Mon, 01 Dec 2025 12:34:50 -0700
Message-ID: <8787KJKJ3K4J3K4J3K4J3.mail@acme.test>
X-Secret: not kept

Dear Jane, the confidential price list is attached. Account 12345678.
--part1_13d.2e68ed54_boundary--
`);

const fields = crlf(`feedback-type: auth-failure
user-agent: Yahoo!-Mail-Feedback/2.0
version: 1
original-mail-from: <newsletter@news.acme.test>
original-rcpt-to: <someone@yahoo.example>
arrival-date: Tue, 02 Dec 2025 08:00:01 +0000
source-ip: 198.51.100.77
authentication-results: mta1.yahoo.example; dkim=none;
 spf=softfail smtp.mailfrom=news.acme.test; dmarc=fail(p=QUARANTINE) header.from=news.acme.test
auth-failure: dmarc
delivery-result: spam
`);

/**
 * A reporter's quirks (Yahoo's and others'): lower-case fields, folded values, the fields part in
 * base64, no Reported-Domain (the sample's From says it: a subdomain), headers only as
 * text/rfc822-headers, an encoded-word subject.
 */
export const ARF_QUIRKY = crlf(`From: Yahoo Mail <feedback@yahoo.example>
To: dmarc-reports@acme.test
Subject: DMARC failure report
Date: Tue, 02 Dec 2025 08:05:00 +0000
MIME-Version: 1.0
Content-Type: multipart/report;
\treport-type="feedback-report";
\tboundary="----=_Part_1"

------=_Part_1
Content-Type: text/plain; charset=utf-8

An email sent from your domain failed DMARC.
------=_Part_1
Content-Type: message/feedback-report
Content-Transfer-Encoding: base64

${Buffer.from(fields)
  .toString('base64')
  .replace(/(.{76})/g, '$1\n')}
------=_Part_1
Content-Type: text/rfc822-headers

Received: from unknown (HELO spoofer.example) (198.51.100.77)
  by mta1.yahoo.example with SMTP; Tue, 02 Dec 2025 08:00:01 +0000
From: =?UTF-8?B?TmV3c2xldHRlciDinIk=?= <newsletter@news.acme.test>
To: someone@yahoo.example
Subject: =?UTF-8?Q?Your_invoice_=E2=82=AC_42?=
Date: Tue, 02 Dec 2025 08:00:00 +0000
Message-ID: <spoof-1@spoofer.example>
------=_Part_1--
`);

/** The TLS reports' days: two days and one day ago (UTC), so they stay in any list's period. */
export const TLS_DAY1 = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
export const TLS_DAY2 = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/** RFC 8460 §4.3's example, about acme.test. */
export const TLS_RFC_REPORT = JSON.stringify({
  'organization-name': 'Company-X',
  'date-range': { 'start-datetime': `${TLS_DAY1}T00:00:00Z`, 'end-datetime': `${TLS_DAY1}T23:59:59Z` },
  'contact-info': 'sts-reporting@company-x.example',
  'report-id': '5065427c-23d3-47ca-b6e0-946ea0e8c4be',
  policies: [
    {
      policy: {
        'policy-type': 'sts',
        'policy-string': ['version: STSv1', 'mode: testing', 'mx: *.mail.acme.test', 'max_age: 86400'],
        'policy-domain': 'acme.test',
        'mx-host': '*.mail.acme.test',
      },
      summary: { 'total-successful-session-count': 5326, 'total-failure-session-count': 303 },
      'failure-details': [
        {
          'result-type': 'certificate-expired',
          'sending-mta-ip': '2001:db8:abcd:0012::1',
          'receiving-mx-hostname': 'mx1.mail.acme.test',
          'failed-session-count': 100,
        },
        {
          'result-type': 'starttls-not-supported',
          'sending-mta-ip': '2001:db8:abcd:0013::1',
          'receiving-mx-hostname': 'mx2.mail.acme.test',
          'receiving-ip': '203.0.113.56',
          'failed-session-count': 200,
          'additional-information':
            'https://reports.company-x.example/report_info?id=5065427c-23d3#StarttlsNotSupported',
        },
        {
          'result-type': 'validation-failure',
          'sending-mta-ip': '198.51.100.62',
          'receiving-ip': '203.0.113.58',
          'receiving-mx-hostname': 'mx-backup.mail.acme.test',
          'failed-session-count': 3,
          'failure-reason-code': 'X509_V_ERR_PROOF_OF_POSSESSION',
        },
      ],
    },
  ],
});

/** As Google sends it (gzip, `application/tlsrpt+gzip`): one STS policy, no failures, no mx-host. */
export const TLS_GOOGLE_REPORT = JSON.stringify({
  'organization-name': 'Google Inc.',
  'date-range': { 'start-datetime': `${TLS_DAY2}T00:00:00Z`, 'end-datetime': `${TLS_DAY2}T23:59:59Z` },
  'contact-info': 'smtp-tls-reporting@google.com',
  'report-id': `${TLS_DAY2}T00:00:00Z_acme.test`,
  policies: [
    {
      policy: {
        'policy-type': 'sts',
        'policy-string': ['version: STSv1', 'mode: enforce', 'mx: mx.acme.test', 'max_age: 604800'],
        'policy-domain': 'acme.test',
      },
      summary: { 'total-successful-session-count': 23, 'total-failure-session-count': 0 },
    },
  ],
});

/** As Microsoft sends it: no policy found, mx-host as a list, a failure with only a HELO name. */
export const TLS_MICROSOFT_REPORT = JSON.stringify({
  'organization-name': 'Microsoft Corporation',
  'date-range': {
    'start-datetime': `${TLS_DAY2}T00:00:00+00:00`,
    'end-datetime': `${TLS_DAY2}T23:59:59+00:00`,
  },
  'contact-info': 'tlsrpt-noreply@microsoft.com',
  'report-id': '133776384000000000+acme.test',
  policies: [
    {
      policy: { 'policy-type': 'no-policy-found', 'policy-domain': 'acme.test', 'mx-host': ['mx.acme.test'] },
      summary: { 'total-successful-session-count': 110, 'total-failure-session-count': 2 },
      'failure-details': [
        {
          'result-type': 'certificate-host-mismatch',
          'sending-mta-ip': '40.107.22.51',
          'receiving-mx-helo': 'mx.acme.test',
          'receiving-ip': '203.0.113.10',
          'failed-session-count': 2,
        },
      ],
    },
  ],
});
