import type { DnsRecordKind } from '@moat/contracts/dmarc';
import type { RestoreMode, Verdict } from '@moat/contracts/quarantine';
import { fillWording } from '@moat/contracts/wording';
import type { OutgoingMail } from './outbound.ts';
import { type MailBrand, renderMail } from './templates.ts';

/**
 * Every email Moat writes itself, one named template each. Templates are pure: they take the
 * brand and the facts of the mail (ready-made links included) and return what `mailer.send`
 * needs besides the envelope (tenant, kind, recipient). User-controlled values (names, subjects,
 * addresses, reasons) only ever reach the HTML through `renderMail`'s escaping, as text: the only
 * clickable links are the ones the caller passes as `action`/`links`.
 */
export type Notification = Pick<OutgoingMail, 'fromName' | 'subject' | 'text' | 'html'>;

type Content = Parameters<typeof renderMail>[1];

function notification(brand: MailBrand, content: Content): Notification {
  return { fromName: brand.name, ...renderMail(brand, content) };
}

const orNoSubject = (subject: string) => subject || '(no subject)';

/** The code that proves a user owns their address before setting up MFA at sign-in (SPEC §7). */
export function mailVerificationCodeEmail(brand: MailBrand, input: { code: string }): Notification {
  return notification(brand, {
    subject: `Your ${brand.name} verification code`,
    heading: 'Confirm your email address',
    paragraphs: [
      'Enter this code to confirm your email address and continue setting up multi-factor authentication.',
      'The code expires in 10 minutes and can be tried 3 times.',
    ],
    code: input.code,
    footer: `If you did not try to sign in to ${brand.name}, someone may know your password: change it now.`,
  });
}

/** Told after every password change, so a change the user did not make is noticed. */
export function passwordChangedEmail(
  brand: MailBrand,
  input: { email: string; ip: string | null; forgotPasswordUrl: string },
): Notification {
  return notification(brand, {
    subject: `Your ${brand.name} password was changed`,
    heading: 'Your password was changed',
    paragraphs: [
      `The password of ${input.email} was changed${input.ip ? ` from the address ${input.ip}` : ''}. Every other session was signed out.`,
      'If you did not do this, reset your password now and tell your administrator.',
    ],
    action: { label: 'Reset my password', url: input.forgotPasswordUrl },
  });
}

export function passwordResetEmail(
  brand: MailBrand,
  input: { email: string; resetUrl: string },
): Notification {
  return notification(brand, {
    subject: `Reset your ${brand.name} password`,
    heading: 'Reset your password',
    paragraphs: [
      `Someone asked to reset the password of ${input.email}. Use the link below to choose a new one.`,
      'The link works once and expires in 30 minutes. If you did not ask for this, ignore this email: your password stays as it is.',
    ],
    action: { label: 'Choose a new password', url: input.resetUrl },
  });
}

/** The code a recipient enters on a public page to prove the held message is theirs. */
export function recipientVerificationCodeEmail(
  brand: MailBrand,
  input: { subject: string; code: string },
): Notification {
  return notification(brand, {
    subject: `Your ${brand.name} verification code`,
    heading: 'Confirm it is you',
    paragraphs: [
      `Enter this code on the page where you asked for the message "${defang(orNoSubject(input.subject))}".`,
      'The code expires in 10 minutes and can be tried 3 times.',
    ],
    code: input.code,
    footer: `If you did not ask for this code, ignore this email. Sent by ${brand.name}.`,
  });
}

export function restoreDeclinedEmail(
  brand: MailBrand,
  input: { subject: string; sender: string; reason: string },
): Notification {
  const subject = defang(orNoSubject(input.subject));
  return notification(brand, {
    subject: `Your request was declined: ${subject}`,
    heading: 'Your restore request was declined',
    paragraphs: [
      `An administrator declined your request to restore the message "${subject}" from ${defang(input.sender)}.`,
      `Reason: ${input.reason}`,
      'If you still need it, reply to your administrator directly.',
    ],
  });
}

/** How many of the engines' reasons a held-message notice lists. */
const MAX_NOTICE_REASONS = 3;

/** Why a message was held, as a recipient reads it: "…because it looks like phishing". */
const VERDICT_WORDS: Record<Verdict, string> = {
  phishing: 'it looks like phishing',
  malware: 'it contains malware',
  spam: 'it looks like spam',
  suspicious: 'it looks suspicious',
};

/**
 * An organisation's own wording of a mail (Settings → User Interaction): a subject template and
 * an introduction put before Moat's own explanation. Both were checked to be plain words when
 * saved (contracts' `wordingProblem`); they are defanged here all the same, and reach the HTML
 * only through `renderMail`'s escaping.
 */
export interface Wording {
  /** '' : the default subject. */
  subject: string;
  /** '' : no introduction. */
  intro: string;
}

/** The subject of a quarantine notice when the organisation set none. */
export const DEFAULT_NOTICE_SUBJECT = 'A message to you was held: {subject}';
/** The subject of a digest when the organisation set none. */
export const DEFAULT_DIGEST_SUBJECT = '{count} message(s) held for you ({period})';

/** The organisation's introduction as the first paragraph, when it has one. */
const introOf = (wording: Wording | undefined) => (wording?.intro ? [defang(wording.intro)] : []);

/**
 * A message to the recipient was held, or delivered without its attachments. The held message's
 * sender, subject and file names are the attacker's words: they appear as text only; the buttons
 * lead to the portal's own pages. The report links are those the organisation offers (Settings →
 * User Interaction → Phishing Reports).
 */
export function quarantineNoticeEmail(
  brand: MailBrand,
  input: {
    verdict: Verdict;
    from: { name: string | null; address: string };
    subject: string;
    receivedAt: Date;
    reasons: string[];
    /** The names of the removed attachments when the message was delivered without them, else null. */
    strippedAttachments: string[] | null;
    mode: RestoreMode;
    links: { restoreEmail: string; restoreOriginal: string };
    /** The action page's "report as safe" link, when the organisation offers it. */
    reportSafeUrl?: string | undefined;
    /** The action page's "report as phishing" link (issue 11), when the organisation offers it. */
    reportPhishingUrl?: string | undefined;
    expiresAt: Date;
    wording?: Wording;
  },
): Notification {
  // The held message's words are the sender's: no link or host of theirs is clickable here.
  const subject = defang(orNoSubject(input.subject));
  const fromName = input.from.name ? defang(input.from.name) : null;
  const fromAddress = defang(input.from.address);
  const stripped = input.strippedAttachments?.map(defang) ?? null;
  const strip = stripped !== null;
  const restorable = input.mode !== 'none';
  const because = VERDICT_WORDS[input.verdict];
  const ownSubject = input.wording?.subject
    ? defang(fillWording(input.wording.subject, { subject: orNoSubject(input.subject) }))
    : null;
  return notification(brand, {
    subject:
      ownSubject ??
      (strip ? `An attachment was removed: ${subject}` : `A message to you was held: ${subject}`),
    heading: strip ? 'We removed an attachment from a message to you' : 'We held a message sent to you',
    paragraphs: [
      ...introOf(input.wording),
      strip
        ? `The message below was delivered to you without its attachments (${stripped!.join(', ')}), because ${because}.`
        : `The message below was not delivered to you, because ${because}.`,
      `From: ${fromName ? `${fromName} <${fromAddress}>` : fromAddress}`,
      `Subject: ${subject}`,
      `Received: ${input.receivedAt.toUTCString()}`,
      // The strongest reasons first (each engine lists its own that way); a long list reads as noise.
      `Why: ${input.reasons.slice(0, MAX_NOTICE_REASONS).map(defang).join('; ')}${
        input.reasons.length > MAX_NOTICE_REASONS
          ? ` (and ${input.reasons.length - MAX_NOTICE_REASONS} more)`
          : ''
      }`,
      restorable
        ? input.mode === 'automatic'
          ? 'If you trust it, you can restore it with the button below. You will be asked to confirm your email address.'
          : 'If you need it, you can ask your administrator to release it with the button below.'
        : 'It cannot be restored because it is dangerous. Contact your administrator if you need it.',
      // Only a message that can be restored has a link to speak of; a dangerous one says how long it is kept.
      restorable
        ? `This link works until ${input.expiresAt.toUTCString()}.`
        : `Moat keeps it, out of your reach, until ${input.expiresAt.toUTCString()}; then it is deleted.`,
    ],
    action: !restorable
      ? undefined
      : strip
        ? { label: 'Restore the original attachment', url: input.links.restoreOriginal }
        : {
            label: input.mode === 'automatic' ? 'Restore this email' : 'Request this email',
            url: input.links.restoreEmail,
          },
    links: [
      ...(input.reportPhishingUrl
        ? [{ label: 'Report this message as phishing to your administrator', url: input.reportPhishingUrl }]
        : []),
      ...(input.reportSafeUrl
        ? [{ label: 'Report this message as safe to your administrator', url: input.reportSafeUrl }]
        : []),
    ],
  });
}

export interface DigestItem {
  receivedAt: Date;
  subject: string;
  sender: string;
  verdict: Verdict;
  /** The restore link, when the tenant's policy lets the recipient restore it. */
  restore: { url: string; attachmentsOnly: boolean } | null;
}

/** The periodic list of what was held for one recipient (only the first items are listed). */
export function quarantineDigestEmail(
  brand: MailBrand,
  input: {
    periodLabel: string;
    from: Date;
    to: Date;
    total: number;
    items: DigestItem[];
    wording?: Wording;
  },
): Notification {
  const more = input.total - input.items.length;
  return notification(brand, {
    subject: defang(
      fillWording(input.wording?.subject || DEFAULT_DIGEST_SUBJECT, {
        count: String(input.total),
        period: input.periodLabel,
      }),
    ),
    heading: 'Messages held for you',
    paragraphs: [
      ...introOf(input.wording),
      `${brand.name} held ${input.total} message(s) sent to you between ${input.from.toUTCString()} and ${input.to.toUTCString()}.`,
      ...input.items.map(
        (item) =>
          `${item.receivedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC — ${defang(orNoSubject(item.subject))} — from ${defang(item.sender)} (${item.verdict})`,
      ),
      ...(more > 0 ? [`… and ${more} more.`] : []),
      'If you expected one of them and trust it, use its link below. You will be asked to confirm your email address.',
    ],
    links: input.items.flatMap((item) =>
      item.restore
        ? [
            {
              label: `${item.restore.attachmentsOnly ? 'Restore the attachments of' : 'Restore'} “${defang(orNoSubject(item.subject))}”`,
              url: item.restore.url,
            },
          ]
        : [],
    ),
  });
}

interface Person {
  firstName: string;
  lastName: string;
  email: string;
}

/** To the provider's support address: a customer asked about their licence. */
export function licenceContactEmail(
  brand: MailBrand,
  input: {
    tenantName: string;
    user: Person;
    licence: { expirationDate: string | null | undefined; isExpired: boolean };
  },
): Notification {
  const { user, licence } = input;
  return notification(brand, {
    subject: `Licence contact request from ${input.tenantName}`,
    heading: 'A customer asked about their licence',
    paragraphs: [
      `${user.firstName} ${user.lastName} <${user.email}> of "${input.tenantName}" asked to be contacted about the licence.`,
      licence.expirationDate
        ? `The licence ${licence.isExpired ? 'expired' : 'expires'} on ${licence.expirationDate}.`
        : 'The tenant has no licence end date.',
    ],
    footer: 'Sent by the licence banner of the Moat console.',
  });
}

/** The add-ons' names in the provider's words. */
const ADD_ON_NAMES: Record<string, string> = {
  dmarc: 'DMARC',
  iraas: 'Incident Response as a Service (IRaaS)',
  sspm: 'SaaS Security Posture Management (SSPM)',
  archiving: 'Archiving',
  phishing_training: 'Phishing awareness training',
};

/** To the provider's support address: a customer asks for an add-on this edition does not ship. */
export function addOnRequestEmail(
  brand: MailBrand,
  input: { tenantName: string; user: Person; addOn: string; message: string },
): Notification {
  const { user } = input;
  const name = ADD_ON_NAMES[input.addOn] ?? input.addOn;
  return notification(brand, {
    subject: `Add-on request from ${input.tenantName}: ${name}`,
    heading: 'A customer asked for an add-on',
    paragraphs: [
      `${user.firstName} ${user.lastName} <${user.email}> of "${input.tenantName}" asked for ${name}.`,
      ...(input.message ? [`Their note: ${defang(input.message)}`] : []),
    ],
    footer: 'Sent by the Add-ons Store of the Moat console.',
  });
}

/** To the provider's support address: a tenant whose trial ended asks for more days. */
export function trialExtensionRequestEmail(
  brand: MailBrand,
  input: { tenant: { id: string; name: string }; requester: Person; endedDaysAgo: number },
): Notification {
  const { tenant, requester } = input;
  return notification(brand, {
    subject: `Trial extension request from ${tenant.name}`,
    heading: 'A customer asked to extend their trial',
    paragraphs: [
      `${requester.firstName} ${requester.lastName} <${requester.email}> of "${tenant.name}" asked to extend the trial, which ended ${input.endedDaysAgo} day(s) ago.`,
      `Approve it with: npm run cli -- trial:approve --tenant ${tenant.id} [--days N]`,
    ],
    footer: 'Sent by the trial page of the Moat console.',
  });
}

/** To the requester: the provider approved (for `days` days) or declined the extension. */
export function trialExtensionDecisionEmail(
  brand: MailBrand,
  decision: { approve: true; days: number } | { approve: false },
): Notification {
  return notification(brand, {
    subject: decision.approve ? `Your ${brand.name} trial is extended` : `Your ${brand.name} trial request`,
    heading: decision.approve ? 'Your trial is extended' : 'Your trial extension was not approved',
    paragraphs: decision.approve
      ? [`Your trial now runs for ${decision.days} more day(s). Sign in to continue where you left off.`]
      : ['Your request to extend the trial was not approved. Contact your representative for other options.'],
  });
}

/**
 * File-name endings that are no top-level domain: a dotted word ending in one of them is a file
 * name ("invoice.pdf.exe", "eicar.com.txt") and stays as it is. Endings that are also domains
 * (.com, .zip, .mov, .app…) are not here: a word ending in them is treated as a host.
 */
const FILE_ENDINGS = new Set(
  (
    'txt pdf exe dll msi bat cmd ps1 vbs js jse wsf hta scr lnk iqy jar apk dmg iso img bin dat ' +
    'doc docx docm xls xlsx xlsm ppt pptx pptm odt ods odp rtf csv xml json eml msg ics vcf ' +
    'htm html jpg jpeg png gif bmp svg tif tiff webp mp3 mp4 wav avi mkv rar 7z gz tgz tar bz2 ' +
    'xz cab log ini cfg tmp bak'
  ).split(' '),
);
const DOTTED = /(?<![\p{L}\p{N}_-])(?:[\p{L}\p{N}-]+\.)+[\p{L}\p{N}-]+/gu;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * An attacker's words made unclickable before they reach a mail that a mail program may auto-link:
 * "http://evil.example/x" becomes "hxxp[://]evil[.]example/x", a bare host ("www.evil.com",
 * "login.bank.example/reset") or IPv4 address gets its dots written "[.]" (also the ideographic
 * and full-width dots a mail program reads as dots). A dotted word ending in a file name ending
 * ("invoice.pdf.exe"), a version ("v2.0.1") or a number stays readable.
 */
export function defang(text: string): string {
  return (
    text
      .replace(/[\u3002\uFF0E\uFF61]/g, '.')
      // A whole link: every dot of it, whatever its host looks like.
      .replace(/\b(?:https?|ftp|file):\/\/[^\s<>"']*/gi, (link) =>
        link
          .replace(/^(h)(tt)(ps?):\/\//i, (_m, h: string, _tt: string, p: string) => `${h}xx${p}[://]`)
          .replace(/^(ftp|file):\/\//i, '$1[://]')
          .replaceAll('.', '[.]'),
      )
      .replace(/\b(javascript|vbscript|data):/gi, '$1[:]')
      .replace(DOTTED, (word) => {
        const last = word.slice(word.lastIndexOf('.') + 1);
        // A punycode top-level label (`xn--p1ai`) is a host as much as a lettered one.
        const host =
          IPV4.test(word) ||
          /^xn--[a-z0-9-]+$/i.test(last) ||
          (/^\p{L}{2,}$/u.test(last) && !FILE_ENDINGS.has(last.toLowerCase()));
        return host ? word.replaceAll('.', '[.]') : word;
      })
  );
}

/** What a reporter is told when the organisation set no words of its own. */
export const DEFAULT_REPORT_TEXTS = {
  receipt: 'Thank you. Your administrator will review the message you reported.',
  /** As the confirmation did: every recipient's held copy removed, or the reported one. */
  confirmed: {
    all_copies:
      'An administrator confirmed it is dangerous. It was removed from every quarantine it was held in. Do not open it or any of its links if you see a copy elsewhere.',
    reported_copy:
      'An administrator confirmed it is dangerous. It was removed from your quarantine. Do not open it or any of its links if you see a copy elsewhere.',
  },
  dismissed: 'An administrator reviewed it and marked it safe.',
} as const;

/**
 * To the recipient who reported a message: what the administrator decided, in the organisation's
 * words when it set some. The reported message is named by its (defanged) subject and sender
 * only: no link of it, nor to it, is in this mail.
 */
export function reportOutcomeEmail(
  brand: MailBrand,
  input: {
    subject: string;
    sender: string;
    kind: 'reported_phishing' | 'reported_safe';
    outcome: 'confirmed' | 'dismissed';
    /** '' or absent: the default words. */
    text?: string;
    /** What the confirmation removed (the default words say it). */
    scope?: 'all_copies' | 'reported_copy';
  },
): Notification {
  const subject = defang(orNoSubject(input.subject));
  const sender = defang(input.sender);
  const confirmed = input.outcome === 'confirmed';
  return notification(brand, {
    subject: confirmed ? 'Your report was confirmed' : 'Your report was reviewed',
    heading: confirmed ? 'Thank you: the message was removed' : 'Your report was reviewed',
    paragraphs: [
      `You reported the message "${subject}" from ${sender} ${input.kind === 'reported_phishing' ? 'as phishing' : 'as safe'}.`,
      input.text
        ? defang(input.text)
        : confirmed
          ? DEFAULT_REPORT_TEXTS.confirmed[input.scope ?? 'all_copies']
          : DEFAULT_REPORT_TEXTS.dismissed,
    ],
    footer: `Sent by ${brand.name}. This email has no links to the message you reported.`,
  });
}

/** To the recipient who reported a message, on receipt (when the organisation sends one). */
export function reportReceiptEmail(
  brand: MailBrand,
  input: { subject: string; sender: string; kind: 'reported_phishing' | 'reported_safe'; text?: string },
): Notification {
  const subject = defang(orNoSubject(input.subject));
  return notification(brand, {
    subject: 'We received your report',
    heading: 'We received your report',
    paragraphs: [
      `You reported the message "${subject}" from ${defang(input.sender)} ${input.kind === 'reported_phishing' ? 'as phishing' : 'as safe'}.`,
      input.text ? defang(input.text) : DEFAULT_REPORT_TEXTS.receipt,
    ],
    footer: `Sent by ${brand.name}. This email has no links to the message you reported.`,
  });
}

/** What an alert is about, in the words of the admin's email. */
const ALERT_WORDS = {
  restore_request: { one: 'a new restore request', many: 'new restore requests', screen: 'Restore Requests' },
  report: {
    one: 'a new report from a recipient',
    many: 'new reports from recipients',
    screen: 'Phishing Reports',
  },
  malware_hold: {
    one: 'a message held for malware',
    many: 'messages held for malware',
    screen: 'Quarantined Items',
  },
  outbound_hold: {
    one: 'an outgoing message held for review',
    many: 'outgoing messages held for review',
    screen: 'DLP Data Types > Held mail',
  },
  dlp_hit: {
    one: 'an outgoing message with sensitive data',
    many: 'outgoing messages with sensitive data',
    screen: 'Events',
  },
} as const;
export type AlertKind = keyof typeof ALERT_WORDS;

/**
 * To a tenant's admins: something waits for them. At most one per kind per window: `count` is how
 * many came since the last one.
 */
export function adminAlertEmail(
  brand: MailBrand,
  input: { kind: AlertKind; count: number; consoleUrl: string; windowMinutes: number },
): Notification {
  const words = ALERT_WORDS[input.kind];
  const what = input.count === 1 ? words.one : `${input.count} ${words.many}`;
  return notification(brand, {
    subject: `${brand.name}: ${what}`,
    heading: `${what.charAt(0).toUpperCase()}${what.slice(1)}`,
    paragraphs: [
      `There ${input.count === 1 ? 'is' : 'are'} ${what} since the last alert.`,
      `Review ${input.count === 1 ? 'it' : 'them'} in ${words.screen}. Further ones within ${input.windowMinutes} minutes are counted in the next alert.`,
    ],
    action: { label: `Open ${words.screen}`, url: input.consoleUrl },
    // Outbound holds and DLP alerts are the policy's own choice, not the dashboard's.
    footer:
      input.kind === 'outbound_hold' || input.kind === 'dlp_hit'
        ? 'These alerts follow your DLP Data Types settings.'
        : 'Choose which alerts you get in User Interaction > Dashboard.',
  });
}

/** A DNS record's kind in the words of a DMARC alert. */
const DNS_RECORD_WORDS: Record<DnsRecordKind, string> = {
  spf: 'SPF record',
  dmarc: 'DMARC record',
  dkim: 'DKIM key',
  mx: 'MX records',
  mta_sts: 'MTA-STS record',
  tls_rpt: 'TLS-RPT record',
};

/** What a DMARC alert names (issue 37): a record changed, a new failing source, a pass-rate drop. */
export type DmarcAlertFacts =
  | {
      kind: 'dmarc_record_changed';
      domain: string;
      at: Date;
      record: {
        kind: DnsRecordKind;
        name: string;
        selector: string | null;
        before: string | null;
        after: string | null;
      };
    }
  | {
      kind: 'dmarc_new_failing_source';
      domain: string;
      ip: string;
      failed: number;
      messages: number;
      days: number;
    }
  | {
      kind: 'dmarc_pass_rate_drop';
      domain: string;
      recent: number;
      prior: number;
      recentMessages: number;
      priorMessages: number;
      recentDays: number;
      priorDays: number;
    };

/** The most alerts one email lists; the rest are counted. */
const DMARC_ALERTS_LISTED = 10;
/** A DNS value longer than this (a DKIM key) is cut in an email. */
const DNS_VALUE_CHARS = 300;

/** A DNS value as an alert writes it: defanged, cut when long, one line per record. */
function dnsValue(value: string | null): string {
  if (value === null) return 'none published';
  const text = value.split('\n').join(' | ');
  return defang(text.length > DNS_VALUE_CHARS ? `${text.slice(0, DNS_VALUE_CHARS)}…` : text);
}

const percent = (n: number) => `${Math.round(n * 10) / 10}%`;
const number = (n: number) => n.toLocaleString('en');

/**
 * To a tenant's admins: DMARC alerts of one kind, raised in one pass, once each. Domains, names,
 * addresses and DNS values are written defanged, as text; the only link is the console's.
 */
export function dmarcAlertEmail(
  brand: MailBrand,
  input: { alerts: DmarcAlertFacts[]; consoleUrl: string },
): Notification {
  const alerts = input.alerts.slice(0, DMARC_ALERTS_LISTED);
  const more = input.alerts.length - alerts.length;
  const first = input.alerts[0]!;
  const n = input.alerts.length;
  const domain = defang(first.domain);
  const paragraphs: string[] = [];
  let subject: string;
  let heading: string;
  let advice: string;
  if (first.kind === 'dmarc_record_changed') {
    subject = n === 1 ? `A DNS record of ${domain} changed` : `${n} DNS records of your domains changed`;
    heading = n === 1 ? 'A DNS record changed' : `${n} DNS records changed`;
    for (const a of alerts) {
      if (a.kind !== 'dmarc_record_changed') continue;
      const what = `${DNS_RECORD_WORDS[a.record.kind]}${a.record.selector ? ` (selector ${defang(a.record.selector)})` : ''}`;
      paragraphs.push(
        `The ${what} of ${defang(a.domain)} changed (seen ${utcMinute(a.at)}${a.record.name === a.domain ? '' : `, at the name ${defang(a.record.name)}`}).`,
        `Before: ${dnsValue(a.record.before)}`,
        `After: ${dnsValue(a.record.after)}`,
      );
    }
    advice = `If nobody in your organisation made ${n === 1 ? 'this change' : 'these changes'}, check who can edit your domain’s DNS: a changed record can let others send mail in your name, or stop your own mail from being delivered.`;
  } else if (first.kind === 'dmarc_new_failing_source') {
    subject =
      n === 1
        ? `A new source failing DMARC for ${domain}`
        : `${n} new sources failing DMARC for your domains`;
    heading = n === 1 ? 'A new source is failing DMARC' : `${n} new sources are failing DMARC`;
    for (const a of alerts) {
      if (a.kind !== 'dmarc_new_failing_source') continue;
      paragraphs.push(
        `The server at ${defang(a.ip)} sent ${number(a.messages)} message${a.messages === 1 ? '' : 's'} as ${defang(a.domain)} in the last ${a.days} days, and ${number(a.failed)} failed DMARC. No earlier report about ${defang(a.domain)} named this server.`,
      );
    }
    advice =
      'If it sends for you (a newsletter or ticket service), set up SPF or DKIM for it. If not, someone may be sending mail in your name: a stricter DMARC policy makes receivers refuse it.';
  } else {
    subject =
      n === 1 ? `The DMARC pass rate of ${domain} dropped` : `The DMARC pass rate of ${n} domains dropped`;
    heading = n === 1 ? 'The DMARC pass rate dropped' : `The DMARC pass rate of ${n} domains dropped`;
    for (const a of alerts) {
      if (a.kind !== 'dmarc_pass_rate_drop') continue;
      paragraphs.push(
        `${defang(a.domain)} passed DMARC for ${percent(a.recent)} of its mail in the last ${a.recentDays} days (${number(a.recentMessages)} messages reported), against ${percent(a.prior)} in the ${a.priorDays} days before (${number(a.priorMessages)} messages).`,
      );
    }
    advice =
      'A service that sends for you may have lost its SPF or DKIM set-up, or someone started sending in your name. The Reports Explorer shows which sources fail.';
  }
  if (more > 0) paragraphs.push(`And ${more} more, listed in the console.`);
  paragraphs.push(advice);
  return notification(brand, {
    subject: `${brand.name}: ${subject}`,
    heading,
    paragraphs,
    action: { label: 'Open the DNS Change-Log', url: input.consoleUrl },
    footer: `You get each alert once. Turn these emails off in DMARC > DNS Change-Log. This email has no links to the servers or records it names. Sent by ${brand.name}.`,
  });
}

/**
 * To a tenant's admins: people opened a site (or went on past its warning) that has been blocked
 * since. The site is written out defanged, never as a link; the button opens Events.
 */
export function clickThroughAlertEmail(
  brand: MailBrand,
  input: { blocked: string; people: string[]; consoleUrl: string },
): Notification {
  const n = input.people.length;
  const who = n === 1 ? '1 person' : `${n} people`;
  // A host is defanged as a link would be (every dot), then written without the scheme.
  const site = input.blocked.includes('://')
    ? defang(input.blocked)
    : defang(`https://${input.blocked}`).replace(/^hxxps\[:\/\/\]/, '');
  const named = input.people.slice(0, 20).join(', ') + (n > 20 ? ` and ${n - 20} more` : '');
  return notification(brand, {
    subject: `${brand.name}: ${who} clicked through to a site that is now blocked`,
    heading: `${who} clicked through to a blocked site`,
    paragraphs: [
      `${site} was blocked. Before that, ${who} opened it from a checked link, or went on past its warning: ${named}.`,
      `Check what ${n === 1 ? 'that person' : 'they'} entered there: reset their passwords and sessions if the site asked for credentials. The clicks are listed in Events.`,
    ],
    action: { label: 'Open Events', url: input.consoleUrl },
    footer: `Sent by ${brand.name} to the organisation's admins. This email has no link to the blocked site.`,
  });
}

/**
 * An admin's invitation from User Management: a link to choose a password, valid for days. The
 * inviting admin's address is of the organisation's own domains: shown as it is.
 */
export function userInviteEmail(
  brand: MailBrand,
  input: { email: string; invitedBy: string; organisation: string; url: string; validDays: number },
): Notification {
  return notification(brand, {
    subject: `You are invited to ${brand.name}`,
    heading: `Join ${input.organisation} on ${brand.name}`,
    paragraphs: [
      `${input.invitedBy} invited ${input.email} to ${brand.name}, where ${input.organisation} reviews its email security.`,
      `Choose your password with the link below. It works once and expires in ${input.validDays} days.`,
    ],
    action: { label: 'Choose my password', url: input.url },
    footer: `If you did not expect this invitation, ignore it: no account is opened until a password is chosen.`,
  });
}

/** Told when an admin turned the user's MFA off (a lost authenticator). */
export function mfaResetEmail(
  brand: MailBrand,
  input: { email: string; resetBy: string; stillRequired: boolean },
): Notification {
  return notification(brand, {
    subject: `Your ${brand.name} multi-factor authentication was reset`,
    heading: 'Your multi-factor authentication was reset',
    paragraphs: [
      `${input.resetBy}, an administrator, turned off multi-factor authentication for ${input.email}. Your open sessions were signed out.`,
      input.stillRequired
        ? 'Your organisation requires it: you will set it up again with your authenticator app at your next sign-in.'
        : 'Set it up again from My account after you sign in.',
      'If you did not ask for this, tell your administrator now.',
    ],
  });
}

/** A moment as the sign-in notices and answers write it: `2025-06-01 14:05 UTC`. */
export function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * Told once when an account sees many wrong passwords from everywhere: new browsers now pass a
 * stronger security check, the user's own browser signs in as usual.
 */
export function accountAttackedEmail(
  brand: MailBrand,
  input: { email: string; failures: number; ip: string | null; forgotPasswordUrl: string },
): Notification {
  return notification(brand, {
    subject: `Many failed sign-ins to your ${brand.name} account`,
    heading: 'Someone is trying to sign in to your account',
    paragraphs: [
      `${input.failures} wrong passwords were tried for ${input.email}${input.ip ? `, the latest from the address ${input.ip}` : ''}.`,
      `Your account is not locked: a browser you signed in with before signs in as usual, and any other browser must now pass a stronger security check first.`,
      'If this was not you, make sure your password is long and used nowhere else; change it if in doubt.',
    ],
    action: { label: 'Change my password', url: input.forgotPasswordUrl },
    footer: `You get this once for a series of failed sign-ins. ${brand.name} never asks for your password by email.`,
  });
}

/**
 * Told when wrong sign-in codes (authenticator or emailed) paused the code step: whoever typed
 * them knew the password.
 */
export function mfaLockedEmail(
  brand: MailBrand,
  input: { email: string; failures: number; until: Date; forgotPasswordUrl: string },
): Notification {
  return notification(brand, {
    subject: `Sign-in codes for your ${brand.name} account are paused`,
    heading: 'Too many wrong sign-in codes',
    paragraphs: [
      `${input.failures} wrong sign-in codes were entered for ${input.email}. Sign-in codes are refused until ${utcMinute(input.until)}; each further wrong code after that pauses them longer.`,
      'Whoever entered them knows your password. If it was not you, reset your password now: that also ends the pause.',
    ],
    action: { label: 'Reset my password', url: input.forgotPasswordUrl },
    footer: `You get this once for each pause. ${brand.name} never asks for your password or a code by email.`,
  });
}

/**
 * To the sender of outbound mail that DLP held (issue 38): what was found, by kind only (never
 * the data), and that an administrator decides. No link: the sender has nothing to click.
 */
export function outboundHeldEmail(
  brand: MailBrand,
  input: { subject: string; recipients: string[]; found: string[]; unusual?: boolean },
): Notification {
  const subject = defang(orNoSubject(input.subject));
  const to = input.recipients.slice(0, 5).map(defang).join(', ') + (input.recipients.length > 5 ? ', …' : '');
  const why = [
    ...(input.unusual ? ['your address sent unusually much mail in the last hour'] : []),
    ...(input.found.length > 0 ? [`it appears to contain: ${input.found.join(', ')}`] : []),
  ].join(', and ');
  return notification(brand, {
    subject: `Your message is held for review: ${subject}`,
    heading: 'Your message has not been sent yet',
    paragraphs: [
      `Your message "${subject}" to ${to} is held for review because ${why}.`,
      'An administrator of your organisation will send it on or decline it; you will be told if it is declined.',
      input.unusual
        ? 'If you did not send this much mail, someone may be using your account: change your password and tell your administrator.'
        : 'If you sent it by mistake, tell your administrator.',
    ],
  });
}

/** To the sender of held outbound mail an administrator declined: it was not sent. */
export function outboundDeclinedEmail(
  brand: MailBrand,
  input: { subject: string; recipients: string[]; found: string[] },
): Notification {
  const subject = defang(orNoSubject(input.subject));
  const to = input.recipients.slice(0, 5).map(defang).join(', ') + (input.recipients.length > 5 ? ', …' : '');
  return notification(brand, {
    subject: `Your message was not sent: ${subject}`,
    heading: 'Your message was not sent',
    paragraphs: [
      input.found.length > 0
        ? `An administrator declined your message "${subject}" to ${to}: it appears to contain ${input.found.join(', ')}, which your organisation does not allow to leave by email.`
        : `An administrator declined your message "${subject}" to ${to}, held because your address sent unusually much mail.`,
      'Nobody outside your organisation received it. Ask your administrator how to share this information safely.',
    ],
  });
}
