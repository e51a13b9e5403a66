import { describe, expect, it } from 'vitest';
import {
  adminAlertEmail,
  defang,
  licenceContactEmail,
  mailVerificationCodeEmail,
  type Notification,
  passwordChangedEmail,
  passwordResetEmail,
  quarantineDigestEmail,
  quarantineNoticeEmail,
  recipientVerificationCodeEmail,
  reportOutcomeEmail,
  restoreDeclinedEmail,
  trialExtensionDecisionEmail,
  trialExtensionRequestEmail,
} from './notifications.ts';
import { mailBrand } from './templates.ts';

const brand = mailBrand({ brand: 'checkpoint', brandName: null });
const PORTAL = 'https://portal.example.com';

/** What an attacker puts in every field they control (a subject, a display name, a file name…). */
const EVIL = `"><script>alert(1)</script><a href="https://evil.example/login">Verify</a> https://evil.example/x`;
const EVIL_ESCAPED =
  '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;a href=&quot;https://evil.example/login&quot;&gt;';

/** The attacker's words as a mail about their message shows them: defanged, then escaped. */
const SHOWN =
  '"><script>alert(1)</script><a href="hxxps[://]evil[.]example/login">Verify</a> hxxps[://]evil[.]example/x';
const SHOWN_ESCAPED =
  '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;a href=&quot;hxxps[://]evil[.]example/login&quot;&gt;';

/** The targets of every clickable link in the HTML part, as a mail client reads them. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
}

/** No markup of the attacker's survives in the HTML part: their words are text, never tags or links. */
function expectInert(mail: Notification, escaped = EVIL_ESCAPED) {
  expect(mail.html).not.toContain('<script');
  expect(mail.html).not.toContain('evil.example/login">');
  expect(hrefs(mail.html).some((h) => h.includes('evil.example'))).toBe(false);
  expect(mail.html).toContain(escaped);
}

/** Nothing of the sender's is left for a mail program to turn into a link. */
function expectDefanged(mail: Notification) {
  expectInert(mail, SHOWN_ESCAPED);
  for (const part of [mail.subject, mail.text]) {
    expect(part).not.toContain('evil.example');
    expect(part).not.toContain('https://evil');
  }
}

function expectBranded(mail: Notification) {
  expect(mail.fromName).toBe('Email Security');
  expect(mail.html).toContain('>Email Security</td>');
  expect(mail.html).toContain('#e1066b');
}

describe('mailVerificationCodeEmail', () => {
  it('shows the code in both parts and names the brand', () => {
    const mail = mailVerificationCodeEmail(brand, { code: '482913' });
    expect(mail.subject).toBe('Your Email Security verification code');
    expectBranded(mail);
    expect(mail.text).toContain('\n482913\n');
    expect(mail.html).toContain('>482913</p>');
    expect(mail.text).toContain('If you did not try to sign in to Email Security, someone may know');
    expect(hrefs(mail.html)).toEqual([]);
  });
});

describe('passwordChangedEmail', () => {
  it('names the account and the address, and links to the forgotten-password page only', () => {
    const url = `${PORTAL}/#/auth/forgot-password`;
    const mail = passwordChangedEmail(brand, {
      email: 'ann@example.com',
      ip: '203.0.113.9',
      forgotPasswordUrl: url,
    });
    expect(mail.subject).toBe('Your Email Security password was changed');
    expectBranded(mail);
    expect(mail.text).toContain(
      'The password of ann@example.com was changed from the address 203.0.113.9. Every other session was signed out.',
    );
    expect(mail.text).toContain(`Reset my password: ${url}`);
    expect(hrefs(mail.html)).toEqual([url]);
  });

  it('leaves the address out when it is unknown', () => {
    const mail = passwordChangedEmail(brand, {
      email: 'ann@example.com',
      ip: null,
      forgotPasswordUrl: PORTAL,
    });
    expect(mail.text).toContain('The password of ann@example.com was changed. Every other session');
  });
});

describe('passwordResetEmail', () => {
  it('carries the reset link as the one button, escaped in the HTML part', () => {
    const url = `${PORTAL}/#/auth/reset-password?token=abc_DEF-123&x=1`;
    const mail = passwordResetEmail(brand, { email: 'ann@example.com', resetUrl: url });
    expect(mail.subject).toBe('Reset your Email Security password');
    expectBranded(mail);
    expect(mail.text).toContain('Someone asked to reset the password of ann@example.com.');
    expect(mail.text).toContain(`Choose a new password: ${url}`);
    expect(mail.html).toContain('token=abc_DEF-123&amp;x=1');
    expect(hrefs(mail.html)).toEqual([url]);
  });
});

describe('recipientVerificationCodeEmail', () => {
  it("quotes the held message's subject as text only", () => {
    const mail = recipientVerificationCodeEmail(brand, { subject: EVIL, code: '123456' });
    expect(mail.subject).toBe('Your Email Security verification code');
    expectBranded(mail);
    expect(mail.text).toContain(`Enter this code on the page where you asked for the message "${SHOWN}".`);
    expect(mail.text).toContain('\n123456\n');
    expectDefanged(mail);
    expect(hrefs(mail.html)).toEqual([]);
  });

  it('says "(no subject)" for a message without one', () => {
    expect(recipientVerificationCodeEmail(brand, { subject: '', code: '1' }).text).toContain(
      'asked for the message "(no subject)".',
    );
  });
});

describe('restoreDeclinedEmail', () => {
  it("gives the administrator's reason and the sender as text", () => {
    const mail = restoreDeclinedEmail(brand, { subject: EVIL, sender: 'x@evil.example', reason: EVIL });
    expect(mail.subject).toBe(`Your request was declined: ${SHOWN}`);
    expect(mail.html).toContain(`<title>Your request was declined: ${SHOWN_ESCAPED}`);
    expectBranded(mail);
    // The administrator's own words stay as written (escaped); the sender's are defanged.
    expect(mail.text).toContain(`Reason: ${EVIL}`);
    expect(mail.text).toContain(`the message "${SHOWN}" from x@evil[.]example.`);
    expectInert(mail, SHOWN_ESCAPED);
    expect(hrefs(mail.html)).toEqual([]);
  });
});

describe('quarantineNoticeEmail', () => {
  const links = {
    restoreEmail: `${PORTAL}/#/email-actions/restore-email?type=office365_emails&msg=P1&mode=request`,
    restoreOriginal: `${PORTAL}/#/email-actions/restore-original?type=office365_emails&msg=P1&mode=request`,
  };
  const reportSafeUrl = `${PORTAL}/#/email-actions/action?type=office365_emails&id=A1`;
  const base = {
    verdict: 'phishing' as const,
    from: { name: EVIL, address: 'ceo@evil.example' },
    subject: EVIL,
    receivedAt: new Date('2025-03-01T10:00:00Z'),
    reasons: [EVIL],
    strippedAttachments: null,
    mode: 'request' as const,
    links,
    reportSafeUrl,
    expiresAt: new Date('2025-03-31T10:00:00Z'),
  };

  it("holds: lists the attacker's facts as text; only the portal's two links are clickable", () => {
    const mail = quarantineNoticeEmail(brand, base);
    expect(mail.subject).toBe(`A message to you was held: ${SHOWN}`);
    expectBranded(mail);
    expect(mail.text).toContain(
      'The message below was not delivered to you, because it looks like phishing.',
    );
    expect(mail.text).toContain(`From: ${SHOWN} <ceo@evil[.]example>`);
    expect(mail.text).toContain(`Subject: ${SHOWN}`);
    expect(mail.text).toContain(`Why: ${SHOWN}`);
    expect(mail.text).toContain('Received: Sat, 01 Mar 2025 10:00:00 GMT');
    expect(mail.text).toContain('This link works until Mon, 31 Mar 2025 10:00:00 GMT.');
    expect(mail.text).toContain(`Request this email: ${links.restoreEmail}`);
    expect(mail.text).toContain(`Report this message as safe to your administrator: ${reportSafeUrl}`);
    expectDefanged(mail);
    expect(hrefs(mail.html)).toEqual([links.restoreEmail, reportSafeUrl]);
  });

  it('offers the restore button itself in automatic mode', () => {
    const mail = quarantineNoticeEmail(brand, { ...base, mode: 'automatic' });
    expect(mail.text).toContain(`Restore this email: ${links.restoreEmail}`);
    expect(mail.text).toContain('If you trust it, you can restore it with the button below.');
  });

  it('strips: names the removed files and links to the original', () => {
    const mail = quarantineNoticeEmail(brand, {
      ...base,
      from: { name: null, address: 'ceo@evil.example' },
      strippedAttachments: ['invoice.pdf.exe', 'eicar.com.txt', 'pay.evil.example', EVIL],
    });
    expect(mail.subject).toBe(`An attachment was removed: ${SHOWN}`);
    // File names stay readable; one that reads as a host does not stay clickable.
    expect(mail.text).toContain(
      `delivered to you without its attachments (invoice.pdf.exe, eicar.com.txt, pay[.]evil[.]example, ${SHOWN}), because it looks like phishing.`,
    );
    expect(mail.text).toContain('From: ceo@evil[.]example\n');
    expectDefanged(mail);
    expect(hrefs(mail.html)).toEqual([links.restoreOriginal, reportSafeUrl]);
  });

  it('malware: no restore link at all, only the report link', () => {
    const mail = quarantineNoticeEmail(brand, { ...base, verdict: 'malware', mode: 'none' });
    expect(mail.text).toContain('because it contains malware.');
    expect(mail.text).toContain('It cannot be restored because it is dangerous.');
    expect(mail.text).not.toContain(links.restoreEmail);
    // No word of a restore link or button it does not have, and no "click here".
    expect(mail.text).not.toMatch(/this link|button|click here/i);
    expect(mail.html).not.toMatch(/restore (this|the)|click here/i);
    expect(mail.text).toContain(
      'Moat keeps it, out of your reach, until Mon, 31 Mar 2025 10:00:00 GMT; then it is deleted.',
    );
    expect(hrefs(mail.html)).toEqual([reportSafeUrl]);
  });
});

describe('quarantineDigestEmail', () => {
  const item = {
    receivedAt: new Date('2025-03-01T10:07:00Z'),
    subject: EVIL,
    sender: 'x@evil.example',
    verdict: 'spam' as const,
    restore: { url: `${PORTAL}/#/email-actions/restore-email?msg=1`, attachmentsOnly: false },
  };

  it('lists each message as text, with a restore link only where the policy allows one', () => {
    const mail = quarantineDigestEmail(brand, {
      periodLabel: '2025-03-01',
      from: new Date('2025-03-01T00:00:00Z'),
      to: new Date('2025-03-02T00:00:00Z'),
      total: 5,
      items: [
        item,
        {
          ...item,
          subject: '',
          restore: { url: `${PORTAL}/#/email-actions/restore-original?msg=2`, attachmentsOnly: true },
        },
        { ...item, subject: 'locked', verdict: 'phishing', restore: null },
      ],
    });
    expect(mail.subject).toBe('5 message(s) held for you (2025-03-01)');
    expectBranded(mail);
    expect(mail.text).toContain(
      'Email Security held 5 message(s) sent to you between Sat, 01 Mar 2025 00:00:00 GMT',
    );
    expect(mail.text).toContain(`2025-03-01 10:07 UTC — ${SHOWN} — from x@evil[.]example (spam)`);
    expect(mail.text).toContain('2025-03-01 10:07 UTC — (no subject) — from x@evil[.]example (spam)');
    expect(mail.text).toContain('… and 2 more.');
    expect(mail.text).toContain(`Restore “${SHOWN}”: ${PORTAL}/#/email-actions/restore-email?msg=1`);
    expect(mail.text).toContain(
      `Restore the attachments of “(no subject)”: ${PORTAL}/#/email-actions/restore-original?msg=2`,
    );
    expectDefanged(mail);
    expect(hrefs(mail.html)).toEqual([
      `${PORTAL}/#/email-actions/restore-email?msg=1`,
      `${PORTAL}/#/email-actions/restore-original?msg=2`,
    ]);
  });

  it('says nothing of more messages when all are listed', () => {
    const mail = quarantineDigestEmail(brand, {
      periodLabel: 'week of 2025-03-03',
      from: new Date('2025-03-03T00:00:00Z'),
      to: new Date('2025-03-10T00:00:00Z'),
      total: 1,
      items: [item],
    });
    expect(mail.subject).toBe('1 message(s) held for you (week of 2025-03-03)');
    expect(mail.text).not.toContain('more.');
  });
});

describe('licenceContactEmail', () => {
  const user = { firstName: EVIL, lastName: 'Doe', email: 'ann@example.com' };

  it("tells support who asked and when the licence ends, the customer's words as text", () => {
    const mail = licenceContactEmail(brand, {
      tenantName: EVIL,
      user,
      licence: { expirationDate: '2025-04-01', isExpired: true },
    });
    expect(mail.subject).toBe(`Licence contact request from ${EVIL}`);
    expectBranded(mail);
    expect(mail.text).toContain(`${EVIL} Doe <ann@example.com> of "${EVIL}" asked to be contacted`);
    expect(mail.text).toContain('The licence expired on 2025-04-01.');
    expect(mail.text).toContain('Sent by the licence banner of the Moat console.');
    expectInert(mail);
    expect(hrefs(mail.html)).toEqual([]);
  });

  it('says when there is no end date, and "expires" for a running licence', () => {
    const none = licenceContactEmail(brand, {
      tenantName: 'Acme',
      user,
      licence: { expirationDate: null, isExpired: false },
    });
    expect(none.text).toContain('The tenant has no licence end date.');
    const running = licenceContactEmail(brand, {
      tenantName: 'Acme',
      user,
      licence: { expirationDate: '2030-01-01', isExpired: false },
    });
    expect(running.text).toContain('The licence expires on 2030-01-01.');
  });
});

describe('trialExtensionRequestEmail', () => {
  it('gives support the command that approves it', () => {
    const mail = trialExtensionRequestEmail(brand, {
      tenant: { id: 't-1', name: EVIL },
      requester: { firstName: 'Ann', lastName: EVIL, email: 'ann@example.com' },
      endedDaysAgo: 3,
    });
    expect(mail.subject).toBe(`Trial extension request from ${EVIL}`);
    expectBranded(mail);
    expect(mail.text).toContain(
      `Ann ${EVIL} <ann@example.com> of "${EVIL}" asked to extend the trial, which ended 3 day(s) ago.`,
    );
    expect(mail.text).toContain('Approve it with: npm run cli -- trial:approve --tenant t-1 [--days N]');
    expectInert(mail);
    expect(hrefs(mail.html)).toEqual([]);
  });
});

describe('trialExtensionDecisionEmail', () => {
  it('approved: says for how many days', () => {
    const mail = trialExtensionDecisionEmail(brand, { approve: true, days: 14 });
    expect(mail.subject).toBe('Your Email Security trial is extended');
    expectBranded(mail);
    expect(mail.text).toContain('Your trial now runs for 14 more day(s).');
  });

  it('declined: says so', () => {
    const mail = trialExtensionDecisionEmail(brand, { approve: false });
    expect(mail.subject).toBe('Your Email Security trial request');
    expect(mail.text).toContain('Your trial extension was not approved');
  });
});

describe('the brand', () => {
  it("escapes a tenant's own brand name in the header", () => {
    const custom = mailBrand({ brand: 'moat', brandName: '<b>Acme & Co</b>' });
    const mail = trialExtensionDecisionEmail(custom, { approve: false });
    expect(mail.fromName).toBe('<b>Acme & Co</b>');
    expect(mail.html).toContain('>&lt;b&gt;Acme &amp; Co&lt;/b&gt;</td>');
    expect(mail.html).not.toContain('<b>Acme');
  });
});

describe('reportOutcomeEmail', () => {
  it('tells the reporter the outcome without a clickable copy of anything the attacker wrote', () => {
    for (const outcome of ['confirmed', 'dismissed'] as const) {
      const mail = reportOutcomeEmail(brand, {
        subject: EVIL,
        sender: 'payroll@evil.example',
        kind: 'reported_phishing',
        outcome,
      });
      expectBranded(mail);
      expect(hrefs(mail.html)).toEqual([]);
      expect(mail.html).not.toContain('<script');
      expect(mail.text).not.toMatch(/https?:\/\//);
      expect(mail.text).not.toContain('evil.example');
      expect(mail.text).toContain('hxxps[://]evil[.]example');
    }
    expect(
      reportOutcomeEmail(brand, {
        subject: 'Hi',
        sender: 'a@b.example',
        kind: 'reported_safe',
        outcome: 'dismissed',
      }).text,
    ).toContain('marked it safe');
  });
});

describe('adminAlertEmail', () => {
  it('names the count and links only to the console', () => {
    const mail = adminAlertEmail(brand, {
      kind: 'malware_hold',
      count: 3,
      consoleUrl: `${PORTAL}/#/user-interaction/quarantine-item`,
      windowMinutes: 10,
    });
    expectBranded(mail);
    expect(mail.subject).toBe('Email Security: 3 messages held for malware');
    expect(hrefs(mail.html)).toEqual([`${PORTAL}/#/user-interaction/quarantine-item`]);
    expect(
      adminAlertEmail(brand, { kind: 'report', count: 1, consoleUrl: PORTAL, windowMinutes: 10 }).subject,
    ).toBe('Email Security: a new report from a recipient');
  });
});

describe('quarantineNoticeEmail report links', () => {
  it('offers reporting as phishing next to reporting as safe', () => {
    const mail = quarantineNoticeEmail(brand, {
      verdict: 'phishing',
      from: { name: null, address: 'a@b.example' },
      subject: 'Hi',
      receivedAt: new Date(0),
      reasons: [],
      strippedAttachments: null,
      mode: 'request',
      links: { restoreEmail: `${PORTAL}/r`, restoreOriginal: `${PORTAL}/o` },
      reportSafeUrl: `${PORTAL}/safe`,
      reportPhishingUrl: `${PORTAL}/phish`,
      expiresAt: new Date(0),
    });
    expect(hrefs(mail.html)).toEqual([`${PORTAL}/r`, `${PORTAL}/phish`, `${PORTAL}/safe`]);
  });
});

describe('defang', () => {
  it('leaves no host a mail program would turn into a link, whatever dots it is written with', () => {
    for (const [text, expected] of [
      ['login.evil-bank.com/x', 'login[.]evil-bank[.]com/x'],
      ['www.evil.com', 'www[.]evil[.]com'],
      ['x.y.attacker.net', 'x[.]y[.]attacker[.]net'],
      ['evil。com', 'evil[.]com'],
      ['https://a.b/c', 'hxxps[://]a[.]b/c'],
      ['see 192.0.2.7/login', 'see 192[.]0[.]2[.]7/login'],
      ['invoice.zip', 'invoice[.]zip'],
      ['javascript:alert(1)', 'javascript[:]alert(1)'],
      ['login.evil.xn--p1ai', 'login[.]evil[.]xn--p1ai'],
      // What is plainly no host stays readable.
      ['invoice.pdf.exe', 'invoice.pdf.exe'],
      ['eicar.com.txt', 'eicar.com.txt'],
      ['version 2.0.1, e.g. 3.5', 'version 2.0.1, e.g. 3.5'],
    ] as const) {
      expect(defang(text)).toBe(expected);
    }
  });
});
