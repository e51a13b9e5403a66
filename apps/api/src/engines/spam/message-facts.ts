/**
 * What the embedded anti-spam engine reads of a message besides mailparser's result: the top
 * header fields and the MIME parts' own headers, read from the raw bytes without a parser (bounded,
 * linear), so structural rules can see what a parser smooths over (a multipart with no boundary, a
 * text part sent as base64).
 */

/** How much of the raw message is read for headers: every real message's headers fit. */
const MAX_HEAD_BYTES = 64 * 1024;
/** How much is read for the MIME parts' headers. */
const MAX_SCAN_BYTES = 512 * 1024;
const MAX_PARTS = 200;
const MAX_BOUNDARY_LINES = 1_000;

export interface MimePart {
  contentType: string;
  charset: string;
  encoding: string;
  boundary: boolean;
}

export interface MessageFacts {
  /** The top header fields, names lower-cased; a repeated field keeps each value. */
  headers: Map<string, string[]>;
  /** The top level's and every part's Content-Type, charset and transfer encoding, in order. */
  parts: MimePart[];
}

/** Unfolded header lines of one header block. */
function fieldsOf(block: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0 || colon > 76) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue;
    fields.push([name, line.slice(colon + 1).trim()]);
  }
  return fields;
}

const param = (value: string, name: string) =>
  value
    .match(new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i'))
    ?.slice(1)
    .find(Boolean);

function partOf(fields: Array<[string, string]>): MimePart {
  const type = fields.find(([n]) => n === 'content-type')?.[1] ?? '';
  return {
    contentType: (type.split(';')[0] ?? '').trim().toLowerCase() || 'text/plain',
    charset: (param(type, 'charset') ?? '').toLowerCase(),
    encoding: (fields.find(([n]) => n === 'content-transfer-encoding')?.[1] ?? '').trim().toLowerCase(),
    boundary: Boolean(param(type, 'boundary')),
  };
}

/** Each message's facts, read once however many engines ask (anti-phishing and anti-spam both do). */
const read = new WeakMap<Buffer, MessageFacts>();

export function messageFacts(raw: Buffer): MessageFacts {
  let facts = read.get(raw);
  if (!facts) {
    facts = readFacts(raw);
    read.set(raw, facts);
  }
  return facts;
}

function readFacts(raw: Buffer): MessageFacts {
  const head = raw.subarray(0, MAX_HEAD_BYTES).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const top = fieldsOf(end === -1 ? head : head.slice(0, end));
  const headers = new Map<string, string[]>();
  for (const [name, value] of top) headers.set(name, [...(headers.get(name) ?? []), value]);
  const parts = [partOf(top)];
  if (end !== -1 && parts[0]?.contentType.startsWith('multipart/')) {
    // Each part's header block starts after a boundary line ("--…"); read the blocks that do.
    const body = raw.subarray(0, MAX_SCAN_BYTES).toString('latin1').slice(end);
    let at = 0;
    // Bounded by the lines looked at, not only the parts found: "--" lines that start no part
    // (a signature, a quoted reply) cost a look each.
    for (let looked = 0; parts.length < MAX_PARTS && looked < MAX_BOUNDARY_LINES; looked++) {
      const dash = body.indexOf('\n--', at);
      if (dash === -1) break;
      const lineEnd = body.indexOf('\n', dash + 1);
      if (lineEnd === -1) break;
      at = lineEnd;
      const blockEnd = body.slice(lineEnd + 1, lineEnd + 4_096).search(/\r?\n\r?\n/);
      if (blockEnd === -1) continue;
      const fields = fieldsOf(body.slice(lineEnd + 1, lineEnd + 1 + blockEnd));
      if (fields.some(([n]) => n === 'content-type' || n === 'content-transfer-encoding')) {
        parts.push(partOf(fields));
      }
    }
  }
  return { headers, parts };
}

export const header = (facts: MessageFacts, name: string): string => facts.headers.get(name)?.[0] ?? '';
