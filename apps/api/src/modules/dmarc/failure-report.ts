import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { REPORT_LIMITS, ReportRefused } from './aggregate-report.ts';

/*
 * DMARC failure reports (issue 37): ARF (RFC 5965) with the authentication-failure fields of
 * RFC 6591 — a `multipart/report; report-type=feedback-report` message whose second part is the
 * `message/feedback-report` fields and whose third part is a sample of the failing message
 * (`message/rfc822` or `text/rfc822-headers`). Read with the quirks reporters have: lower-case or
 * folded fields, base64 parts, missing optional fields, the report nested in a forwarded message.
 *
 * Redacted always: of the sample only the headers that say who sent it and how it was
 * authenticated are kept (From, To, Subject, Date, Message-ID, DKIM-Signature's d= and s=,
 * Authentication-Results, the Received chain), every address in them with its local part masked
 * (`j***@example.com`); never the body. Nothing else of the message is kept.
 */

/** A header name and its value, unfolded. */
type Header = [name: string, value: string];

export interface FailureReport {
  /** Who sent the report: its From domain (or its User-Agent when it has no From). */
  reporter: string;
  /** The domain the report is about (Reported-Domain, else the sample's From domain), lower case. */
  reportedDomain: string;
  feedbackType: string;
  /** dmarc, spf, dkim, adsp (several: comma-joined). */
  authFailure: string;
  arrivalAt: Date | null;
  sourceIp: string;
  /** Masked: `b***@example.com`. */
  originalMailFrom: string;
  originalRcptTo: string;
  deliveryResult: string;
  dkimDomain: string;
  dkimSelector: string;
  dkimIdentity: string;
  spfDns: string;
  identityAlignment: string;
  authenticationResults: string;
  userAgent: string;
  /** The sample's kept headers, redacted. */
  sample: SampleHeader[];
  /** A stable hash of what the report says: the same report twice has the same one. */
  hash: string;
}

export interface SampleHeader {
  name: string;
  value: string;
}

const refuse = (why: string): never => {
  throw new ReportRefused(why);
};

/** At most this many parts, nested this deep: a report has three. */
const MAX_PARTS = 50;
const MAX_DEPTH = 4;
/** A header value is read up to this many characters. */
const HEADER_CHARS = 4_000;
/** At most this many Received headers of the sample are kept (the chain, newest first). */
const MAX_RECEIVED = 20;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are dropped
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
const clip = (text: string, chars: number = REPORT_LIMITS.fieldChars) =>
  text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim().slice(0, chars);

/** An address's local part masked: its first character and `***`. An address with none: as it is. */
export function maskAddress(address: string): string {
  return address.replace(
    // Not `=`: in `smtp.mailfrom=a@b` or `header.i=@b` it ends a key, not an address's start.
    /(?<![A-Za-z0-9!#$%&'*+/?^_`{|}~.-])([A-Za-z0-9!#$%&'*+/?^_`{|}~.-]+)@([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)/g,
    (_all, local: string, domain: string) => `${local[0]}***@${domain}`,
  );
}

/** RFC 2047 encoded words decoded (UTF-8, Latin-1 and the other charsets TextDecoder knows). */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (all, charset: string, encoding: string, text: string) => {
      try {
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(text, 'base64')
            : Buffer.from(
                text
                  .replace(/_/g, ' ')
                  .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
                    String.fromCharCode(Number.parseInt(hex, 16)),
                  ),
                'latin1',
              );
        return new TextDecoder(charset.replace(/\*.*$/, '').trim()).decode(bytes);
      } catch {
        return all;
      }
    });
}

/** A block of headers (RFC 5322): unfolded, in order; the rest is its body. */
function splitHead(text: string): { headers: Header[]; body: string } {
  const match = /\r?\n\r?\n/.exec(text);
  const head = match ? text.slice(0, match.index) : text;
  const body = match ? text.slice(match.index + match[0].length) : '';
  const headers: Header[] = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && headers.length > 0) {
      // A folded header grows to HEADER_CHARS at most: what a person reads of it, and all the parser needs.
      const last = headers[headers.length - 1]!;
      if (last[1].length < HEADER_CHARS) last[1] = `${last[1]} ${line.trim()}`.slice(0, HEADER_CHARS);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue;
    headers.push([
      name,
      line
        .slice(colon + 1)
        .trim()
        .slice(0, HEADER_CHARS),
    ]);
    if (headers.length > 2_000) break;
  }
  return { headers, body };
}

const first = (headers: Header[], name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1] ?? '';
const all = (headers: Header[], name: string) =>
  headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);

/** A Content-Type's type (lower case) and its parameters. */
function contentType(value: string): { type: string; params: Record<string, string> } {
  const [type = '', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    params[part.slice(0, eq).trim().toLowerCase()] = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { type: type.trim().toLowerCase(), params };
}

/** A part's body decoded from its transfer encoding, as text. */
function decodeBody(headers: Header[], body: string): string {
  const encoding = first(headers, 'content-transfer-encoding').toLowerCase();
  if (encoding === 'base64')
    return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable')
    return Buffer.from(
      body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  return body;
}

interface Part {
  headers: Header[];
  type: string;
  params: Record<string, string>;
  body: string;
}

/** The parts of a multipart body by its boundary (the preamble and epilogue dropped). */
function partsOf(body: string, boundary: string): Part[] {
  const delimiter = `--${boundary}`;
  const parts: Part[] = [];
  const lines = body.split(/\r?\n/);
  let current: string[] | null = null;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === delimiter || trimmed === `${delimiter}--`) {
      if (current) parts.push(partOf(current.join('\r\n')));
      if (parts.length > MAX_PARTS) refuse(`The report has more than ${MAX_PARTS} parts`);
      current = trimmed === delimiter ? [] : null;
      if (!current) break;
      continue;
    }
    current?.push(line);
  }
  // A last part without its closing delimiter (a truncated message): taken as it is.
  if (current && current.length > 0) parts.push(partOf(current.join('\r\n')));
  return parts;
}

function partOf(text: string): Part {
  const { headers, body } = splitHead(text);
  const { type, params } = contentType(first(headers, 'content-type') || 'text/plain');
  return { headers, type, params, body };
}

/** The multipart/report feedback-report of a message: itself, or nested (a forwarded report). */
function findReport(part: Part, depth: number): Part[] | null {
  if (!part.type.startsWith('multipart/') || depth > MAX_DEPTH) return null;
  const boundary = part.params.boundary;
  if (!boundary) return null;
  const parts = partsOf(part.body, boundary);
  if (part.type === 'multipart/report' && /feedback-report/i.test(part.params['report-type'] ?? ''))
    return parts;
  if (part.type === 'multipart/report' && parts.some((p) => p.type === 'message/feedback-report'))
    return parts;
  for (const p of parts) {
    if (p.type.startsWith('multipart/')) {
      const found = findReport(p, depth + 1);
      if (found) return found;
    } else if (p.type === 'message/rfc822' && depth < MAX_DEPTH) {
      const inner = partOf(decodeBody(p.headers, p.body));
      const found = findReport(inner, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

const domainOf = (address: string) => {
  const at = address.lastIndexOf('@');
  return at < 0
    ? ''
    : address
        .slice(at + 1)
        .replace(/[>\s].*$/, '')
        .toLowerCase();
};

/** The first address in a header value (`Name <a@b>` or `a@b`), lower case. */
function addressIn(value: string): string {
  // No `@` inside either side: each try fails at once, so a header of 30,000 `@` is read in linear time.
  const angle = /<([^<>\s@]+@[^<>\s@]+)>/.exec(value);
  if (angle) return angle[1]!.toLowerCase();
  const bare = /([^\s<>"',;:@]+@[A-Za-z0-9.-]+)/.exec(value);
  return bare ? bare[1]!.toLowerCase() : '';
}

const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;

/** A date header, or null when it is not one. */
function dateOf(value: string): Date | null {
  if (!value) return null;
  // A trailing comment (`(PST)`) cut where its parenthesis opens: no regular expression to backtrack.
  const open = value.lastIndexOf('(');
  const bare = open >= 0 && value.trimEnd().endsWith(')') ? value.slice(0, open) : value;
  const date = new Date(bare.trim().slice(0, 200));
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The tags of a DKIM-Signature that say who signed: d= and s=. */
function dkimTags(value: string): string {
  const tags = Object.fromEntries(
    value.split(';').map((t) => {
      const eq = t.indexOf('=');
      return [t.slice(0, eq).trim().toLowerCase(), clip(t.slice(eq + 1).replace(/\s+/g, ''), 255)];
    }),
  );
  return [tags.d ? `d=${tags.d}` : '', tags.s ? `s=${tags.s}` : ''].filter(Boolean).join('; ');
}

/** The sample's headers a person needs, redacted. */
function redactSample(headers: Header[]): SampleHeader[] {
  const kept: SampleHeader[] = [];
  const keep = (name: string, value: string, mask = true) => {
    const text = clip(decodeWords(value));
    if (text) kept.push({ name, value: mask ? maskAddress(text) : text });
  };
  for (const name of ['From', 'To', 'Subject', 'Date', 'Message-ID']) {
    const value = first(headers, name.toLowerCase());
    if (value) keep(name, value, name === 'From' || name === 'To');
  }
  for (const value of all(headers, 'dkim-signature')) {
    const tags = dkimTags(value);
    if (tags) kept.push({ name: 'DKIM-Signature', value: tags });
  }
  for (const value of all(headers, 'authentication-results')) keep('Authentication-Results', value);
  for (const value of all(headers, 'received').slice(0, MAX_RECEIVED)) keep('Received', value);
  return kept;
}

/**
 * A failure report in a message (the whole `.eml`, as it came), or ReportRefused saying why not.
 * Only its fields and the sample's redacted headers come out of it.
 */
export function parseFailureReport(raw: Uint8Array): FailureReport {
  if (raw.length === 0) refuse('The file is empty');
  if (raw.length > REPORT_LIMITS.fileBytes)
    refuse(`The message is larger than ${REPORT_LIMITS.fileBytes / 1024 / 1024} MB; no report is that large`);
  const text = Buffer.from(raw).toString('utf8');
  const top = partOf(text);
  if (top.headers.length === 0) refuse('The file is not a mail message (it has no headers)');
  const parts = findReport(top, 0);
  if (!parts)
    refuse(
      'The message is not a failure report: a failure report is multipart/report with report-type=feedback-report (RFC 6591)',
    );
  const feedbackPart = parts!.find((p) => p.type === 'message/feedback-report');
  if (!feedbackPart) refuse('The failure report has no message/feedback-report part');
  // The fields are a block of headers; some reporters leave a blank line before them.
  const fieldsText = decodeBody(feedbackPart!.headers, feedbackPart!.body).replace(/^\s*\r?\n/, '');
  const fields = splitHead(`${fieldsText}\r\n\r\n`).headers;
  if (fields.length === 0)
    refuse('The failure report has no fields (its message/feedback-report part is empty)');
  const field = (name: string) => clip(first(fields, name));
  const feedbackType = field('feedback-type').toLowerCase();
  if (feedbackType && feedbackType !== 'auth-failure')
    refuse(
      `The report is a feedback report of type "${feedbackType.slice(0, 40)}" (a complaint or abuse report), not a DMARC failure report (auth-failure)`,
    );

  const samplePart = parts!.find((p) =>
    [
      'message/rfc822',
      'text/rfc822-headers',
      'message/rfc822-headers',
      'message/global',
      'message/global-headers',
    ].includes(p.type),
  );
  const sampleHeaders = samplePart ? splitHead(decodeBody(samplePart.headers, samplePart.body)).headers : [];
  const sampleFrom = addressIn(decodeWords(first(sampleHeaders, 'from')));

  const reported =
    field('reported-domain')
      .toLowerCase()
      .replace(/\.$/, '')
      .split(/[\s,]+/)[0] ?? '';
  const reportedDomain = DOMAIN.test(reported)
    ? reported
    : domainOf(sampleFrom) ||
      field('dkim-domain').toLowerCase() ||
      domainOf(addressIn(field('original-mail-from')));
  if (!reportedDomain || !DOMAIN.test(reportedDomain))
    refuse('The failure report names no domain (no Reported-Domain, and its sample has no From)');

  const sourceIp = field('source-ip').replace(/^\[|\]$/g, '');
  const arrival = field('arrival-date') || field('received-date');
  const authFailure = [
    ...new Set(all(fields, 'auth-failure').flatMap((v) => v.toLowerCase().split(/[\s,]+/))),
  ]
    .filter(Boolean)
    .join(', ')
    .slice(0, 100);
  const reportFrom = addressIn(first(top.headers, 'from'));
  const userAgent = field('user-agent');
  const reporter = clip(domainOf(reportFrom) || userAgent || 'unknown', 255);
  const sample = redactSample(sampleHeaders);
  const report: Omit<FailureReport, 'hash'> = {
    reporter,
    reportedDomain,
    feedbackType: feedbackType || 'auth-failure',
    authFailure,
    arrivalAt: dateOf(arrival) ?? dateOf(first(sampleHeaders, 'date')),
    sourceIp: isIP(sourceIp) ? sourceIp.toLowerCase() : '',
    originalMailFrom: maskAddress(field('original-mail-from').replace(/^<|>$/g, '')),
    originalRcptTo: all(fields, 'original-rcpt-to')
      .map((v) => maskAddress(clip(v).replace(/^<|>$/g, '')))
      .join(', ')
      .slice(0, REPORT_LIMITS.fieldChars),
    deliveryResult: field('delivery-result').toLowerCase(),
    dkimDomain: field('dkim-domain').toLowerCase(),
    dkimSelector: field('dkim-selector'),
    dkimIdentity: maskAddress(field('dkim-identity')),
    spfDns: maskAddress(field('spf-dns')),
    identityAlignment: field('identity-alignment').toLowerCase(),
    authenticationResults: maskAddress(field('authentication-results')),
    userAgent,
    sample,
  };
  // What the report says, not how it travelled: the same report resent (a new Message-ID or
  // Date of its own) hashes the same.
  const hash = createHash('sha256')
    .update(
      JSON.stringify([
        fields.map(([n, v]) => [n.toLowerCase(), v.replace(/\s+/g, ' ')]).sort(),
        sampleHeaders.map(([n, v]) => [n.toLowerCase(), v.replace(/\s+/g, ' ')]),
      ]),
    )
    .digest('hex');
  return { ...report, hash };
}

/** Whether a file looks like a mail message (headers first), not XML, JSON or an archive. */
export function looksLikeMessage(file: Uint8Array): boolean {
  const head = Buffer.from(file.subarray(0, 4096)).toString('latin1');
  return (
    /^(?:[\x21-\x39\x3b-\x7e]+:[^\r\n]*\r?\n(?:[ \t][^\r\n]*\r?\n)*)+/.test(head) &&
    /^content-type:/im.test(head)
  );
}
