import { siteOf } from '../phishing/lookalike.ts';
import { hostOf } from '../phishing/urls.ts';
import type { MessageLink, ScoredRule } from '../types.ts';
import { hiddenText, type PageKind, pageFacts, pageText, scriptTraits } from './html.ts';
import type { QrTask } from './qr.ts';

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

/** What the worker thread is given: a message's pictures, or its large pages. */
export type LureTask = { qr: QrTask } | { pages: PageTask };

/** HTML and SVG pages to judge, on whichever thread: plain data, so a worker can take it. */
export interface PageTask {
  pages: Array<{ kind: PageKind; filename: string; content: Uint8Array }>;
  senderSite: string;
}

/** The evidence and links of a message's HTML and SVG attachments. */
export function judgePages(task: PageTask): LureResult {
  const result: LureResult = { links: [], evidence: [] };
  for (const page of task.pages) {
    try {
      judgePage(page.kind, page.filename, page.content, task.senderSite, result);
    } catch {
      // A page this reader cannot follow is left to the other engines: the message goes on.
    }
  }
  return result;
}

/** Links returned for one message at the most. */
export const MAX_LINKS = 100;

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

/** Evidence kept once per rule: the strongest, naming every attachment that gave it. */
export function addEvidence(evidence: ScoredRule[], rule: ScoredRule): void {
  const seen = evidence.find((e) => e.name === rule.name);
  if (!seen) evidence.push(rule);
  else if (rule.score > seen.score) Object.assign(seen, rule);
}

export const listed = (items: string[]) => {
  const unique = [...new Set(items)];
  return unique.length <= 3
    ? unique.join(', ')
    : `${unique.slice(0, 3).join(', ')} and ${unique.length - 3} more`;
};

/** The evidence and links of one HTML or SVG attachment. */
export function judgePage(
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
