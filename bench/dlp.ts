/**
 * Data loss prevention on ordinary outbound mail (issue 38): what reading a message for DLP adds to
 * parsing it. 200 messages of business text (2 to 20 KB; a quarter HTML; three in ten with a small
 * Word, PDF or text attachment; one in twenty with a real card number or IBAN), all built-in data
 * types on (file types `exe`, `zip`) and two custom rules (keywords, an RE2 expression), compiled
 * once as the gateway keeps them per tenant. Per message and round, in interleaved pairs whose
 * order alternates: the baseline `parseMessage` alone, the test `parseMessage` + `dlpContentOf` +
 * `findDlp`; then DLP alone on the parsed message (the same work without parsing's noise). Reports
 * per message the medians over BENCH_DLP_ROUNDS (41) rounds, and over the messages: the median
 * extra milliseconds (test − baseline), the ratio test ÷ baseline, the 99th percentile of the extra,
 * and DLP alone's median, 99th percentile and worst. Target: DLP adds at most 1 ms per message.
 *
 * `npm run bench -- dlp` once run-all.ts lists it; on its own: `node --import tsx bench/dlp.ts`,
 * which writes bench/results/dlp.json.
 */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { DLP_DATA_TYPES } from '@moat/contracts/dlp';
import { strToU8, zipSync } from 'fflate';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { compileDlpRules, dlpContentOf, findDlp } from '../apps/api/src/engines/dlp/index.ts';
import { parseMessage } from '../apps/api/src/mail/parse.ts';
import { median } from './support.ts';

const MESSAGES = Number(process.env.BENCH_DLP_MESSAGES ?? 200);
const ROUNDS = Number(process.env.BENCH_DLP_ROUNDS ?? 41);
const WARM_UP_ROUNDS = 5;
const TARGET_MS = 1;

/** A fixed pseudo-random sequence (mulberry32): the same messages on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(38);
const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
const hex = (length: number) => Array.from({ length }, () => int(0, 15).toString(16)).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;

/** Sentences of the mail a company sends: dates, amounts, order, invoice, tracking and phone numbers. */
const SENTENCES: Array<() => string> = [
  () =>
    `Following our call on 2024-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}, here is the summary of what we agreed.`,
  () =>
    `Order ORD-2024-${String(int(1, 999999)).padStart(6, '0')} shipped today; tracking 1Z999AA1${int(10000000, 99999999)}.`,
  () =>
    `Invoice INV-${int(10000, 99999)} totals $${int(1, 99)},${int(100, 999)}.${int(10, 99)} and is due on ${int(1, 28)}/${int(1, 12)}/2025.`,
  () =>
    `Please call me on +44 20 7946 ${String(int(0, 9999)).padStart(4, '0')} or on my mobile +1 (212) 555-0${int(100, 199)}.`,
  () =>
    `The quarterly figures show revenue up ${int(2, 19)}.${int(0, 9)}% against the plan, with costs flat.`,
  () => `Reference ${uuid()} in the portal has the signed contract and the annexes.`,
  () => 'Could you review the attached proposal before Thursday and send me your comments?',
  () =>
    `We will need ${int(2, 400)} units of item SKU-${int(1000, 9999)} at ${int(1, 90)}.${int(10, 99)} EUR each.`,
  () => 'The meeting moves to room B-204 on floor 12, from 9:00 to 10:30; lunch is provided.',
  () => `PO ${int(4500000000, 4599999999)} was approved by finance and sent to the supplier.`,
  () => 'Thanks again for your help with the migration; the team really appreciated it.',
  () => `Our VAT number is GB${int(100000000, 999999999)} and the company number ${int(10000000, 99999999)}.`,
  () => 'Let me know if anything is unclear, and I will set up a short call to go through it.',
  () =>
    `Build ${int(2020, 2025)}.${int(1, 12)}.${int(1, 28)}.${int(1000, 9999)} fixes the login issue reported last week.`,
];
/** What the few messages with a real hit hold. */
const HITS = [
  'Please charge the deposit to card 4111 1111 1111 1111, expiry 12/27.',
  'Payment details: IBAN GB82 WEST 1234 5698 7654 32, BIC WESTGB2L.',
  'The new hire’s SSN is 123-45-6789 for the payroll file.',
];

function businessText(bytes: number): string[] {
  const paragraphs: string[] = [];
  let length = 0;
  while (length < bytes) {
    const paragraph = Array.from({ length: int(2, 6) }, () => pick(SENTENCES)()).join(' ');
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  return paragraphs;
}

const xml = (body: string) => strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${body}`);
const docx = (paragraphs: string[]) =>
  Buffer.from(
    zipSync({
      '[Content_Types].xml': xml(
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
      ),
      'word/document.xml': xml(
        `<w:document xmlns:w="w"><w:body>${paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${p}</w:t></w:r></w:p>`).join('')}</w:body></w:document>`,
      ),
      'word/styles.xml': xml(
        `<w:styles xmlns:w="w">${'<w:style w:type="paragraph"/>'.repeat(200)}</w:styles>`,
      ),
    }),
  );
function pdf(paragraphs: string[]): Buffer {
  const literal = (text: string) => text.replace(/[\\()]/g, '\\$&');
  const content = `BT /F1 10 Tf 72 760 Td ${paragraphs.map((p) => `(${literal(p)}) Tj 0 -12 Td`).join(' ')} ET`;
  const stream = deflateSync(Buffer.from(content, 'latin1'));
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  return Buffer.concat([
    Buffer.from('%PDF-1.7\n', 'latin1'),
    ...objects.map((o, i) => Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1')),
    Buffer.from(`5 0 obj\n<< /Filter /FlateDecode /Length ${stream.length} >>\nstream\n`, 'latin1'),
    stream,
    Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1'),
  ]);
}

/** One message as a mail client writes it, and what it holds. */
async function ordinaryMessage(i: number) {
  const paragraphs = businessText(int(2_000, 20_000));
  const hit = i % 20 === 7 ? HITS[((i / 20) % HITS.length) | 0]! : null;
  if (hit) paragraphs.splice(int(0, paragraphs.length - 1), 0, hit);
  const html = i % 4 === 1;
  const attachment = next() < 0.3 ? pick(['docx', 'pdf', 'txt']) : null;
  const attached = businessText(int(1_000, 6_000));
  const files = {
    docx: () => ({ filename: `proposal-${i}.docx`, content: docx(attached) }),
    pdf: () => ({ filename: `statement-${i}.pdf`, content: pdf(attached) }),
    txt: () => ({ filename: `notes-${i}.txt`, content: Buffer.from(attached.join('\n\n')) }),
  };
  const raw = await new MailComposer({
    from: 'Ann Smith <ann@acme.example>',
    to: `client${i}@customer.example`,
    subject: `Re: ${pick(['Proposal', 'Invoice', 'Order', 'Meeting', 'Quarterly figures'])} ${int(100, 999)}`,
    ...(html
      ? {
          html: `<html><body>${paragraphs.map((p) => `<p style="margin:0 0 12px">${p}</p>`).join('')}</body></html>`,
        }
      : { text: paragraphs.join('\n\n') }),
    attachments: attachment ? [files[attachment as keyof typeof files]()] : [],
  })
    .compile()
    .build();
  return { raw, html, attachment, hit: hit !== null };
}

const RULES = compileDlpRules({
  types: DLP_DATA_TYPES.map((type) => ({
    type,
    threshold: 1,
    fileTypes: type === 'file_type' ? ['exe', 'zip'] : [],
  })),
  custom: [
    {
      id: 'falcon',
      name: 'Project Falcon',
      kind: 'keywords',
      keywords: ['Project Falcon', 'strictly confidential'],
      pattern: '',
      threshold: 1,
    },
    {
      id: 'acme',
      name: 'Acme customer ids',
      kind: 'regex',
      keywords: [],
      pattern: '(?i)\\bacme-\\d{6}\\b',
      threshold: 1,
    },
  ],
});

async function timed(work: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => Number(value.toFixed(4));

export async function benchDlp() {
  const messages = await Promise.all(Array.from({ length: MESSAGES }, (_, i) => ordinaryMessage(i)));
  const baseline = messages.map(() => [] as number[]);
  const test = messages.map(() => [] as number[]);
  const alone = messages.map(() => [] as number[]);
  const parsed = await Promise.all(messages.map((m) => parseMessage(m.raw)));
  const found = parsed.map((p) => findDlp(dlpContentOf(p), RULES).length);
  for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
    const counted = round >= WARM_UP_ROUNDS;
    for (const [i, { raw }] of messages.entries()) {
      const parseOnly = () => timed(() => parseMessage(raw));
      const parseAndDlp = () => timed(async () => findDlp(dlpContentOf(await parseMessage(raw)), RULES));
      // The pair's order alternates, so neither side always runs on a warmer cache.
      let b: number;
      let t: number;
      if ((round + i) % 2 === 0) {
        b = await parseOnly();
        t = await parseAndDlp();
      } else {
        t = await parseAndDlp();
        b = await parseOnly();
      }
      const d = await timed(() => findDlp(dlpContentOf(parsed[i]!), RULES));
      if (!counted) continue;
      baseline[i]!.push(b);
      test[i]!.push(t);
      alone[i]!.push(d);
    }
  }
  const extra = messages.map((_, i) => median(test[i]!) - median(baseline[i]!));
  const ratio = messages.map((_, i) => median(test[i]!) / median(baseline[i]!));
  const dlpAlone = alone.map((times) => median(times));
  const sizes = messages.map((m) => m.raw.length);
  const result = {
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '', node: process.version },
    messages: MESSAGES,
    rounds: ROUNDS,
    message_kb: { median: ms(median(sizes) / 1024), max: ms(Math.max(...sizes) / 1024) },
    html_messages: messages.filter((m) => m.html).length,
    with_attachment: Object.fromEntries(
      ['docx', 'pdf', 'txt'].map((kind) => [kind, messages.filter((m) => m.attachment === kind).length]),
    ),
    messages_with_a_real_hit: messages.filter((m) => m.hit).length,
    messages_found: found.filter((n) => n > 0).length,
    rules: { built_in: RULES.types.length, custom: RULES.custom.length },
    baseline_parse_ms_median: ms(median(messages.map((_, i) => median(baseline[i]!)))),
    test_parse_and_dlp_ms_median: ms(median(messages.map((_, i) => median(test[i]!)))),
    extra_ms_median: ms(median(extra)),
    extra_ms_p99: ms(percentile(extra, 99)),
    ratio_median: Number(median(ratio).toFixed(3)),
    dlp_alone_ms: {
      median: ms(median(dlpAlone)),
      p99: ms(percentile(dlpAlone, 99)),
      max: ms(Math.max(...dlpAlone)),
      by_attachment: Object.fromEntries(
        ['none', 'docx', 'pdf', 'txt'].map((kind) => [
          kind,
          ms(median(dlpAlone.filter((_, i) => (messages[i]!.attachment ?? 'none') === kind))),
        ]),
      ),
    },
    target: {
      extra_ms_at_most: TARGET_MS,
      met: median(extra) <= TARGET_MS && percentile(dlpAlone, 99) <= TARGET_MS,
    },
  };
  console.log(JSON.stringify(result, null, 2));
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dlp = await benchDlp();
  fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  fs.writeFileSync(
    path.join(import.meta.dirname, 'results', 'dlp.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, dlp }, null, 2)}\n`,
  );
}
