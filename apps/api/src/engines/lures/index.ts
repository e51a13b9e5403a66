import { createWorkerPool, WorkerTimeout } from '../../lib/worker-pool.ts';
import { textOfHtml } from '../../mail/html-text.ts';
import type { ParsedMessage } from '../../mail/parse.ts';
import { siteOf } from '../phishing/lookalike.ts';
import { hostOf } from '../phishing/urls.ts';
import { type EncryptedArchive, encryptedArchive, passwordsIn } from './archives.ts';
import { pageKind } from './html.ts';
import {
  addEvidence,
  judgePages,
  type LureResult,
  type LureTask,
  listed,
  MAX_LINKS,
  type PageTask,
  POINTS,
} from './judge.ts';

export type { LureResult } from './judge.ts';

import { isPdf } from './pdf.ts';
import { imageKind } from './pixels.ts';
import type { QrResult, QrTask } from './qr.ts';

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

/** Links and evidence found elsewhere (the worker), added to the message's. */
function merge(result: LureResult, found: LureResult): void {
  for (const link of found.links) {
    if (result.links.length < MAX_LINKS && !result.links.some((l) => l.href === link.href))
      result.links.push(link);
  }
  for (const rule of found.evidence) addEvidence(result.evidence, rule);
}

/** Pictures inside the HTML body (`<img src="data:image/png;base64,…">`) read at the most. */
const MAX_INLINE_IMAGES = 3;
/**
 * Pages up to this size are read on the calling thread (a few milliseconds at the most); larger
 * ones on the worker, as a padded page can take a tenth of a second.
 */
const MAX_PAGE_BYTES_HERE = 64 * 1024;
/** How long the worker may take to start (loading its modules) before messages go on without it. */
const WORKER_START_MS = 30_000;

let pool: ReturnType<typeof createWorkerPool<LureTask, QrResult | LureResult>> | null = null;
let warm: Promise<unknown> | null = null;

/**
 * A task on the worker thread (decoding and searching pictures is CPU work of tens to hundreds of
 * milliseconds; a large page, tens), within the time box: past it the worker is ended, and a
 * fresh one starts for the next task. Starting the thread (and, from source, its TypeScript
 * loader) is done once, outside the time box.
 */
async function offThread(task: LureTask, timeoutMs: number): Promise<QrResult | LureResult> {
  pool ??= createWorkerPool<LureTask, QrResult | LureResult>({
    worker: 'lures.worker',
    besideUrl: import.meta.url,
    size: 1,
  });
  const current = pool;
  warm ??= current.run({ pages: { pages: [], senderSite: '' } }, { timeoutMs: WORKER_START_MS });
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

/** The task's answer, or its error: one message's checks never fail the message. */
const settled = <T>(promise: Promise<unknown>) =>
  promise.then(
    (output) => ({ output: output as T, error: null }),
    (error: Error) => ({ output: null, error }),
  );

/** Ends the QR worker (tests, shutdown); the next message with pictures starts a new one. */
export async function closeAttachmentLures(): Promise<void> {
  const current = pool;
  pool = null;
  warm = null;
  await current?.close();
}

/** A QR code's text as a web address a phone opens, or null (contact cards, Wi-Fi logins, text). */
function qrUrl(data: string): string | null {
  const text = data.trim();
  if (/^https?:\/\/\S+$/i.test(text)) return text;
  if (/^www\.[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[/?#]\S*)?$/i.test(text)) return `http://${text}`;
  return null;
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
  const pages: PageTask['pages'] = [];
  const largePages: PageTask['pages'] = [];
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
      (content.length > MAX_PAGE_BYTES_HERE ? largePages : pages).push({ kind: page, filename, content });
      continue;
    }
    const archive = lockedArchive(content);
    if (archive) archives.push({ filename, archive });
  }
  if (hasInline && pictures.length < MAX_IMAGES) pictures.push(...inlineImages(parsed.html!));

  const timeoutMs = options.timeoutMs ?? QR_TIME_BOX_MS;
  // The worker reads the large pages and the pictures while this thread reads the rest.
  const inWorker =
    largePages.length > 0
      ? settled<LureResult>(offThread({ pages: { pages: largePages, senderSite } }, timeoutMs))
      : null;
  const qr =
    pictures.length > 0
      ? settled<QrResult>(
          offThread(
            {
              qr: { items: pictures.slice(0, MAX_IMAGES), budgetMs: timeoutMs * 0.6, maxImages: MAX_IMAGES },
            },
            timeoutMs,
          ),
        )
      : null;
  merge(result, judgePages({ pages, senderSite }));
  if (archives.length > 0) {
    try {
      judgeArchives(archives, parsed, result);
    } catch {
      // An archive whose headers lead nowhere sensible is left to the anti-malware engine.
    }
  }
  if (inWorker) {
    const { output, error } = await inWorker;
    if (output) merge(result, output);
    else {
      addEvidence(result.evidence, {
        name: 'PAGE_SCAN_INCOMPLETE',
        score: 0,
        description:
          error instanceof WorkerTimeout
            ? `The message's large HTML or SVG attachments were not read: reading them took longer than ${timeoutMs} ms`
            : `The message's large HTML or SVG attachments could not be read (${error?.message})`,
      });
    }
  }
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
