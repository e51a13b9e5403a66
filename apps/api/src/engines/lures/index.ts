import { createWorkerPool, WorkerTimeout } from '../../lib/worker-pool.ts';
import { textOfHtml } from '../../mail/html-text.ts';
import type { ParsedMessage } from '../../mail/parse.ts';
import type { MessageLink, ScoredRule } from '../types.ts';
import { type EncryptedArchive, encryptedArchive, passwordsIn } from './archives.ts';
import { hiddenText, hostOf, type PageKind, pageFacts, pageKind, pageText, scriptTraits } from './html.ts';
import { isPdf } from './pdf.ts';
import { imageKind } from './pixels.ts';
import type { QrResult, QrTask } from './qr.ts';

/**
 * Lures carried by attachments, which the message's own links and words do not show: QR codes in
 * pictures and PDFs ("quishing": the phone that scans one is outside the gateway's reach), HTML
 * and SVG pages that ask for a password or run script when opened, and archives locked with a
 * password the message itself gives (so no scanner can look inside). docs/attachment-lures.md.
 */
export interface LureResult {
  /**
   * URLs found in QR codes of images and PDFs, in PDF link annotations, and in the links, forms,
   * refreshes and script of HTML/SVG attachments, to be judged like the message's own links.
   * `text` says where each came from ('QR code in invoice.pdf').
   */
  links: MessageLink[];
  /** Evidence in plain words with its points on the phishing scale (6: phishing, 3: suspicious). */
  evidence: ScoredRule[];
}

/** How long the pictures of one message may take to read, by default. */
export const QR_TIME_BOX_MS = 1_500;
/** Pictures of one message read for QR codes (attached or inside PDFs): a lure needs one. */
const MAX_IMAGES = 10;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** PDFs and Office files larger than this are not read for pictures. */
const MAX_PDF_BYTES = 20 * 1024 * 1024;
/** The archive's encryption; a damaged archive whose headers cannot be walked counts as none. */
function lockedArchive(bytes: Uint8Array): EncryptedArchive | null {
  try {
    return encryptedArchive(bytes);
  } catch {
    return null;
  }
}

/** A Word, Excel or PowerPoint file (Office Open XML: a zip whose first entry is its content types). */
function isOffice(filename: string, bytes: Uint8Array): boolean {
  if (bytes.length < 30 || bytes[0] !== 0x50 || bytes[1] !== 0x4b || bytes[2] !== 3 || bytes[3] !== 4)
    return false;
  if (/\.(?:docx|docm|dotx|xlsx|xlsm|xltx|pptx|pptm|potx|ppsx)$/i.test(filename)) return true;
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 128)).includes(
    '[Content_Types].xml',
  );
}

/** Pictures inside the HTML body (`<img src="data:image/png;base64,…">`) read at the most. */
const MAX_INLINE_IMAGES = 3;
const MAX_LINKS = 100;

export const POINTS = {
  CREDENTIAL_FORM: 6,
  FOREIGN_FORM: 3,
  SVG_SCRIPT: 4,
  REDIRECT: 3,
  OBFUSCATED_SCRIPT: 2,
  DATA_PAGE: 2,
  QR_CODE_LINK: 2,
  ARCHIVE_PASSWORD_IN_BODY: 3,
  ENCRYPTED_ARCHIVE: 1,
} as const;

let pool: ReturnType<typeof createWorkerPool<QrTask, QrResult>> | null = null;
let warm: Promise<unknown> | null = null;

/**
 * The QR codes of a message's pictures, read on a worker thread (decoding and searching pictures
 * is CPU work of tens to hundreds of milliseconds) within the time box: past it the worker is
 * ended, and a fresh one starts for the next message. Starting the thread (and, from source, its
 * TypeScript loader) is done once, outside the time box.
 */
async function readQrCodes(task: QrTask, timeoutMs: number): Promise<QrResult> {
  pool ??= createWorkerPool<QrTask, QrResult>({
    worker: 'lures.worker',
    besideUrl: import.meta.url,
    size: 1,
  });
  const current = pool;
  warm ??= current.run({ items: [], budgetMs: 0, maxImages: 0 });
  try {
    await warm;
  } catch (error) {
    warm = null;
    throw error;
  }
  try {
    return await current.run(task, { timeoutMs });
  } catch (error) {
    // The worker was ended (or died): its successor starts outside the time box too.
    warm = null;
    throw error;
  }
}

/** Ends the QR worker (tests, shutdown); the next message with pictures starts a new one. */
export async function closeAttachmentLures(): Promise<void> {
  const current = pool;
  pool = null;
  warm = null;
  await current?.close();
}

/** A site as its registered name (`login.acme.co.uk` → `acme.co.uk`), to tell the sender's own. */
function siteOf(host: string): string {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  const n = labels.length;
  const twoPart =
    n >= 3 && labels[n - 1]!.length === 2 && /^(?:co|com|net|org|gov|edu|ac|ne|or|go)$/.test(labels[n - 2]!);
  return labels.slice(-(twoPart ? 3 : 2)).join('.');
}

/** A QR code's text as a web address a phone opens, or null (contact cards, Wi-Fi logins, text). */
function qrUrl(data: string): string | null {
  const text = data.trim();
  if (/^https?:\/\/\S+$/i.test(text)) return text;
  if (/^www\.[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[/?#]\S*)?$/i.test(text)) return `http://${text}`;
  return null;
}

/** Evidence kept once per rule: the strongest, naming every attachment that gave it. */
function addEvidence(evidence: ScoredRule[], rule: ScoredRule): void {
  const seen = evidence.find((e) => e.name === rule.name);
  if (!seen) evidence.push(rule);
  else if (rule.score > seen.score) Object.assign(seen, rule);
}

const listed = (items: string[]) => {
  const unique = [...new Set(items)];
  return unique.length <= 3
    ? unique.join(', ')
    : `${unique.slice(0, 3).join(', ')} and ${unique.length - 3} more`;
};

/** The evidence and links of one HTML or SVG attachment. */
function judgePage(
  kind: PageKind,
  filename: string,
  bytes: Uint8Array,
  senderSite: string,
  result: LureResult,
): void {
  const page = pageText(bytes);
  const facts = pageFacts(page);
  // What its script writes into the page at run time (atob('…'), unescape('%3C…')) counts as the page.
  const hidden = hiddenText(facts.scripts.join('\n'));
  const inner = hidden ? pageFacts(hidden) : null;
  const scripts = [...facts.scripts, ...(inner?.scripts ?? []), hidden].filter(Boolean);
  const traits = scriptTraits(scripts);
  const passwordFields = facts.passwordFields + (inner?.passwordFields ?? 0) + (traits.passwordField ? 1 : 0);
  const formTargets = [...facts.formTargets, ...(inner?.formTargets ?? [])];
  const refresh = facts.refresh ?? inner?.refresh ?? null;
  const what = kind === 'SVG' ? `An attached SVG image (${filename})` : `An attached HTML page (${filename})`;

  const push = (href: string, text: string) => {
    if (result.links.length < MAX_LINKS && !result.links.some((l) => l.href === href))
      result.links.push({ href, text });
  };
  for (const href of formTargets) push(href, `Form in ${filename}`);
  if (refresh) push(refresh, `Redirect in ${filename}`);
  for (const href of [...facts.links, ...(inner?.links ?? [])]) push(href, `Link in ${filename}`);
  if (traits.redirects || traits.sends) for (const href of traits.urls) push(href, `Script in ${filename}`);

  const hosts = (urls: string[]) =>
    urls.map(hostOf).filter((h): h is string => h !== null && siteOf(h) !== senderSite);
  // Where what is typed goes: the forms' targets, and the sites its script sends to.
  const destinations = hosts([...formTargets, ...(traits.sends ? traits.urls : [])]);
  if (passwordFields > 0) {
    addEvidence(result.evidence, {
      name: `${kind}_ATTACHMENT_CREDENTIAL_FORM`,
      score: POINTS.CREDENTIAL_FORM,
      description:
        destinations.length > 0
          ? `${what} asks for a password and sends it to another site (${listed(destinations)})`
          : `${what} asks for a password: a page opened from an email has no business asking for one`,
    });
    if (destinations.length > 0) {
      addEvidence(result.evidence, {
        name: `${kind}_ATTACHMENT_FOREIGN_FORM`,
        score: POINTS.FOREIGN_FORM,
        description: `${what} posts what is typed into it to ${listed(destinations)}, not to the sender's domain${senderSite ? ` (${senderSite})` : ''}`,
      });
    }
  }
  if (kind === 'SVG' && (facts.scripts.length > 0 || facts.inlineScript > 0)) {
    addEvidence(result.evidence, {
      name: 'SVG_ATTACHMENT_SCRIPT',
      score: POINTS.SVG_SCRIPT,
      description: `${what} carries script, which runs when it is opened in a browser: pictures do not need any`,
    });
  }
  if (traits.redirects || refresh) {
    const targets = hosts([...(refresh ? [refresh] : []), ...traits.urls]);
    addEvidence(result.evidence, {
      name: `${kind}_ATTACHMENT_REDIRECT`,
      score: POINTS.REDIRECT,
      description: `${what} sends the reader to another page as soon as it is opened${targets.length > 0 ? ` (${listed(targets)})` : ''}`,
    });
  }
  if (traits.obfuscated) {
    addEvidence(result.evidence, {
      name: `${kind}_ATTACHMENT_OBFUSCATED_SCRIPT`,
      score: POINTS.OBFUSCATED_SCRIPT,
      description: `${what} carries script written to hide what it does (decoded only when it runs)`,
    });
  }
  if (facts.dataPages > 0) {
    addEvidence(result.evidence, {
      name: `${kind}_ATTACHMENT_DATA_PAGE`,
      score: POINTS.DATA_PAGE,
      description: `${what} links to a page hidden inside the link itself (a data: URL), which no link check can look up`,
    });
  }
}

/** The evidence of password-locked archives, stronger when the message gives the password. */
function judgeArchives(
  archives: Array<{ filename: string; archive: EncryptedArchive }>,
  parsed: ParsedMessage,
  result: LureResult,
): void {
  let said = passwordsIn(`${parsed.subject}\n${parsed.text}`);
  if (!said.mentioned && parsed.html) said = passwordsIn(textOfHtml(parsed.html, 256 * 1024));
  for (const { filename, archive } of archives) {
    const opener = said.candidates.slice(0, 5).find((candidate) => archive.opensWith(candidate));
    if (said.mentioned) {
      const given = opener
        ? ` (${opener}, which opens it)`
        : said.candidates.length > 0
          ? ` (${said.candidates[0]})`
          : '';
      addEvidence(result.evidence, {
        name: 'ARCHIVE_PASSWORD_IN_BODY',
        score: POINTS.ARCHIVE_PASSWORD_IN_BODY,
        description: `An attached archive (${filename}) is locked with a password and the message gives the password${given}: no scanner could look inside, the recipient can`,
      });
    } else {
      addEvidence(result.evidence, {
        name: 'ENCRYPTED_ARCHIVE',
        score: POINTS.ENCRYPTED_ARCHIVE,
        description: `An attached archive (${filename}) is locked with a password: no scanner could look inside`,
      });
    }
  }
}

/** Pictures written into the HTML body itself (`data:image/png;base64,…`). */
function inlineImages(html: string): QrTask['items'] {
  const items: QrTask['items'] = [];
  let at = 0;
  while (items.length < MAX_INLINE_IMAGES) {
    const found = html.indexOf('data:image/', at);
    if (found < 0) break;
    at = found + 11;
    const match = /^data:image\/(?:png|jpe?g|gif);base64,/i.exec(html.slice(found, found + 40));
    if (!match) continue;
    const start = found + match[0].length;
    let end = start;
    while (
      end < html.length &&
      end - start < (MAX_IMAGE_BYTES * 4) / 3 &&
      /[A-Za-z0-9+/=\s]/.test(html[end]!)
    )
      end++;
    at = end;
    const content = Buffer.from(html.slice(start, end), 'base64');
    const kind = imageKind(content);
    if (kind) items.push({ source: `an image in the message body`, kind, content });
  }
  return items;
}

/**
 * The lures of a message's attachments: links to judge (from QR codes, PDFs and HTML/SVG pages)
 * and evidence in words. Pictures and PDFs are read on a worker thread within `timeoutMs`
 * (QR_TIME_BOX_MS by default); HTML, SVG and archives are read here, in time linear in their
 * (bounded) size. A message without attachments costs a loop over nothing.
 */
export async function attachmentLures(
  parsed: ParsedMessage,
  options: { timeoutMs?: number } = {},
): Promise<LureResult> {
  const result: LureResult = { links: [], evidence: [] };
  const hasInline = parsed.html?.includes('data:image/') === true;
  if (parsed.attachments.length === 0 && !hasInline) return result;
  const senderSite = siteOf(parsed.fromAddress.split('@')[1] ?? '');
  const pictures: QrTask['items'] = [];
  const archives: Array<{ filename: string; archive: EncryptedArchive }> = [];
  const pages: Array<{ kind: PageKind; filename: string; content: Uint8Array }> = [];
  for (const attachment of parsed.attachments) {
    const { content, filename } = attachment;
    const image = imageKind(content);
    if (image) {
      if (content.length <= MAX_IMAGE_BYTES) pictures.push({ source: filename, kind: image, content });
      continue;
    }
    if (isPdf(content)) {
      if (content.length <= MAX_PDF_BYTES) pictures.push({ source: filename, kind: 'pdf', content });
      continue;
    }
    // An Office file is a zip: read for pictures, and like any zip for a password.
    if (isOffice(filename, content) && content.length <= MAX_PDF_BYTES) {
      pictures.push({ source: filename, kind: 'office', content });
    }
    const page = pageKind(filename, attachment.contentType, content);
    if (page) {
      pages.push({ kind: page, filename, content });
      continue;
    }
    const archive = lockedArchive(content);
    if (archive) archives.push({ filename, archive });
  }
  if (hasInline && pictures.length < MAX_IMAGES) pictures.push(...inlineImages(parsed.html!));

  const timeoutMs = options.timeoutMs ?? QR_TIME_BOX_MS;
  // The worker reads the pictures while this thread reads the pages and archives.
  const qr =
    pictures.length > 0
      ? readQrCodes(
          { items: pictures.slice(0, MAX_IMAGES), budgetMs: timeoutMs * 0.6, maxImages: MAX_IMAGES },
          timeoutMs,
        ).then(
          (output) => ({ output, error: null }),
          (error: Error) => ({ output: null, error }),
        )
      : null;
  for (const page of pages) {
    try {
      judgePage(page.kind, page.filename, page.content, senderSite, result);
    } catch {
      // A page this reader cannot follow is left to the other engines: the message goes on.
    }
  }
  if (archives.length > 0) judgeArchives(archives, parsed, result);
  if (!qr) return result;

  const { output, error } = await qr;
  if (!output) {
    addEvidence(result.evidence, {
      name: 'QR_SCAN_INCOMPLETE',
      score: 0,
      description:
        error instanceof WorkerTimeout
          ? `The message's pictures were not searched for QR codes: reading them took longer than ${timeoutMs} ms`
          : `The message's pictures could not be searched for QR codes (${error?.message})`,
    });
    return result;
  }
  const found: Array<{ source: string; href: string }> = [];
  for (const code of output.codes) {
    const href = qrUrl(code.data);
    if (!href) continue;
    found.push({ source: code.source, href });
    if (result.links.length < MAX_LINKS) result.links.push({ href, text: `QR code in ${code.source}` });
  }
  for (const { source, uri } of output.uris) {
    if (hostOf(uri) && result.links.length < MAX_LINKS && !result.links.some((l) => l.href === uri)) {
      result.links.push({ href: uri, text: `Link in ${source}` });
    }
  }
  if (found.length > 0) {
    const hosts = found.map((f) => hostOf(f.href) ?? f.href);
    addEvidence(result.evidence, {
      name: 'QR_CODE_LINK',
      score: POINTS.QR_CODE_LINK,
      description: `A QR code in ${listed(found.map((f) => f.source))} leads to ${listed(hosts)}: a phone that scans it opens the page outside the gateway's link checks`,
    });
  }
  if (output.incomplete) {
    addEvidence(result.evidence, {
      name: 'QR_SCAN_INCOMPLETE',
      score: 0,
      description: `The search for QR codes stopped after ${output.images} of the message's pictures (the limit is ${MAX_IMAGES} pictures and ${timeoutMs} ms a message)`,
    });
  }
  return result;
}
