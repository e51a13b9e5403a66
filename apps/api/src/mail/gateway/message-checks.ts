import type { Transform } from 'node:stream';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { packageOnFirstUse } from '../../lib/on-first-use.ts';

const mailsplit = packageOnFirstUse<typeof import('@zone-eu/mailsplit')>('@zone-eu/mailsplit');

/** What a message may hold and still be accepted (issue 9 "Refuse at the door"). */
export const MESSAGE_LIMITS = {
  /** RFC 5322 §2.1.1: a line is at most 998 characters (CRLF excluded). Header lines only. */
  headerLineOctets: 998,
  /** Header fields of one MIME node (the message's own header, or a part's). */
  headerFields: 1_000,
  /** Bytes of one MIME node's header block, well under the parser's 1 MiB. */
  headerBytes: 256 * 1024,
  /** MIME parts in the whole message, under the parser's 1,000. */
  mimeParts: 500,
  /** Nested multiparts. */
  mimeDepth: 20,
  /** Received header fields (hops) of the message: more is a mail loop (Postfix's hopcount_limit). */
  hops: 50,
} as const;

/** An SMTP refusal at the end of DATA: the client is told why, and nothing is stored. */
export interface Refusal {
  code: number;
  message: string;
}

const refuse = (code: number, message: string): Refusal => ({ code, message });

interface SplitterNode {
  type: string;
  parentNode?: SplitterNode | false | null;
  getHeaders(): Buffer;
}

/** The physical lines of a header block (folded continuation lines are lines of their own). */
function checkHeaderBlock(block: Buffer, where: string): Refusal | null {
  if (block.length > MESSAGE_LIMITS.headerBytes) {
    return refuse(552, `5.3.4 Message refused: the header of ${where} is larger than 256 KiB`);
  }
  let fields = 0;
  let hops = 0;
  let start = 0;
  while (start < block.length) {
    let end = block.indexOf(10, start);
    if (end === -1) end = block.length;
    const lineEnd = end > start && block[end - 1] === 13 ? end - 1 : end;
    if (lineEnd - start > MESSAGE_LIMITS.headerLineOctets) {
      return refuse(
        554,
        `5.6.0 Message refused: a header line of ${where} is longer than 998 characters (RFC 5322 section 2.1.1)`,
      );
    }
    const first = block[start];
    if (lineEnd > start && first !== 32 && first !== 9) {
      fields += 1;
      if (
        block
          .subarray(start, start + 9)
          .toString('latin1')
          .toLowerCase() === 'received:'
      )
        hops += 1;
    }
    start = end + 1;
  }
  // Only the message's own header counts its hops (a forwarded message/rfc822 part has its own).
  if (where === 'the message' && hops > MESSAGE_LIMITS.hops) {
    return refuse(554, '5.4.6 Message refused: it passed more than 50 mail servers (a mail loop)');
  }
  if (fields > MESSAGE_LIMITS.headerFields) {
    return refuse(552, `5.3.4 Message refused: ${where} has more than 1,000 header fields`);
  }
  return null;
}

/**
 * The header fields a message may hold at most once (RFC 5322 §3.6), by their lower-case name. A
 * second From (or To, Subject…) is read one way by the checks and another by the mailbox: mailauth
 * judges DMARC on the first From, mailparser shows the last.
 */
const ONCE_ONLY = new Map(
  [
    'Date',
    'From',
    'Sender',
    'Reply-To',
    'To',
    'Cc',
    'Bcc',
    'Message-ID',
    'In-Reply-To',
    'References',
    'Subject',
  ].map((name) => [name.toLowerCase(), name]),
);

const BARE_IN_HEADER = refuse(550, '5.6.0 Bare CR or LF in the message header (RFC 5322 section 2.3)');

/**
 * Where the message's own header ends (the offset of the CRLF of its empty line, or the end of the
 * message), or a refusal when one of its lines ends other than in CRLF. The relay turns a bare CR
 * or LF into CRLF, so a field the checks read as part of another line would reach the mailbox as
 * a field of its own. Only the first `limit` bytes are read: a header longer than that is refused
 * by the size checks.
 */
function headerEnd(raw: Buffer, limit: number): number | Refusal {
  let at = 0;
  while (at < raw.length && at <= limit) {
    if (raw[at] === 13 && raw[at + 1] === 10) return at;
    const cr = raw.indexOf(13, at);
    const lf = raw.indexOf(10, at);
    if (cr === -1 && lf === -1) return raw.length;
    if (lf !== -1 && (cr === -1 || lf < cr)) return BARE_IN_HEADER;
    if (raw[cr + 1] !== 10) return BARE_IN_HEADER;
    at = cr + 2;
  }
  return at;
}

/**
 * The message's own header as the checks, the parser and the mailbox must all read it alike: CRLF
 * line ends only, the fields RFC 5322 allows once at most once, one address in From. A From of
 * several addresses needs a Sender and leaves DMARC to pick one of them (RFC 7489 §6.6.1 allows
 * refusing it): refused here.
 */
function checkOwnHeader(raw: Buffer): Refusal | null {
  const end = headerEnd(raw, MESSAGE_LIMITS.headerBytes);
  if (typeof end !== 'number') return end;
  // Over the size limit: the splitter refuses it.
  if (end > MESSAGE_LIMITS.headerBytes) return null;
  const fields: Array<{ name: string; value: string }> = [];
  for (const line of raw.toString('latin1', 0, end).split('\r\n')) {
    const first = line.charCodeAt(0);
    if ((first === 32 || first === 9) && fields.length > 0) {
      fields[fields.length - 1]!.value += line;
      continue;
    }
    // A vertical tab, form feed or no-break space first: mailauth, which folds on any white
    // space, reads the line as part of the field above, mailparser as a field of its own.
    if (first === 0x0b || first === 0x0c || first === 0xa0) {
      return refuse(
        550,
        '5.6.0 Message refused: a header line starts with a control character or a no-break space',
      );
    }
    const colon = line.indexOf(':');
    // Named as the parsers name it: the text before the first colon, trimmed, in lower case.
    fields.push({
      name: colon === -1 ? '' : line.slice(0, colon).trim().toLowerCase(),
      value: line.slice(colon + 1),
    });
  }
  const seen = new Set<string>();
  for (const { name } of fields) {
    const canonical = ONCE_ONLY.get(name);
    if (!canonical) continue;
    if (seen.has(name)) {
      return refuse(
        550,
        `5.6.0 Message refused: more than one ${canonical} header field (RFC 5322 section 3.6 allows one)`,
      );
    }
    seen.add(name);
  }
  const from = fields.find((f) => f.name === 'from');
  if (from && addressparser(from.value, { flatten: true }).length > 1) {
    return refuse(550, '5.6.0 Message refused: the From header field holds more than one address');
  }
  return null;
}

/** A CR not followed by LF anywhere in `raw[from, to)`: the relay would make it a line end. */
function hasBareCr(raw: Buffer, from: number, to: number): boolean {
  for (let at = raw.indexOf(13, from); at !== -1 && at < to; at = raw.indexOf(13, at + 1)) {
    if (raw[at + 1] !== 10) return true;
  }
  return false;
}

function depthOf(node: SplitterNode): number {
  let depth = 0;
  for (let n = node.parentNode; n; n = n.parentNode) depth += 1;
  return depth;
}

/**
 * Checks a message before it is answered 250: what the processor could not handle is refused
 * here with a clear 5xx, never accepted and then lost. The MIME structure is walked with the
 * same splitter mailparser uses, so whatever it would choke on (oversized headers, too many
 * parts) is caught now, at a fraction of a full parse's cost.
 */
export async function checkMessage(raw: Buffer): Promise<Refusal | null> {
  // RFC 5322 §2.3 and RFC 5321 §4.5.2: no NUL in a message (BINARYMIME is not offered).
  if (raw.indexOf(0) !== -1) {
    return refuse(554, '5.6.0 Message refused: it contains NUL bytes, which mail may not carry');
  }
  if (raw.length === 0) return refuse(554, '5.6.0 Message refused: it is empty');
  const header = checkOwnHeader(raw);
  if (header) return header;
  const { Splitter } = await mailsplit();

  return new Promise<Refusal | null>((resolve) => {
    // The splitter's typings allow only 'data' listeners; it is a Transform stream.
    const splitter = new Splitter({ maxHeadSize: MESSAGE_LIMITS.headerBytes + 1 }) as unknown as Transform;
    let parts = 0;
    let verdict: Refusal | null = null;
    const settle = (value: Refusal | null) => {
      if (verdict) return;
      verdict = value;
      if (value) {
        splitter.removeAllListeners('data');
        splitter.destroy();
        resolve(value);
      }
    };
    splitter.on('data', (item: SplitterNode) => {
      if (verdict || item.type !== 'node') return;
      parts += 1;
      const where = item.parentNode ? `MIME part ${parts}` : 'the message';
      if (parts > MESSAGE_LIMITS.mimeParts) {
        return settle(refuse(552, '5.3.4 Message refused: it has more than 500 MIME parts'));
      }
      if (depthOf(item) > MESSAGE_LIMITS.mimeDepth) {
        return settle(refuse(554, '5.6.0 Message refused: multiparts nested more than 20 deep'));
      }
      const problem = checkHeaderBlock(item.getHeaders(), where);
      if (problem) settle(problem);
    });
    splitter.on('error', (error: Error) =>
      settle(
        /Max header size/i.test(error.message)
          ? refuse(552, '5.3.4 Message refused: a header block is larger than 256 KiB')
          : refuse(554, `5.6.0 Message refused: malformed MIME (${error.message.slice(0, 120)})`),
      ),
    );
    splitter.on('end', () => {
      if (!verdict) resolve(null);
    });
    // Feed in slices so a 25 MB message does not hold the event loop in one go.
    const SLICE = 256 * 1024;
    let offset = 0;
    const feed = () => {
      while (!verdict && offset < raw.length) {
        // A bare CR in the body would become a line end on relay: a MIME boundary the checks read
        // as text, and the part after it (an attachment) unscanned, would reach the mailbox.
        if (hasBareCr(raw, offset, offset + SLICE)) {
          return settle(refuse(550, '5.6.0 Bare CR in the message body (RFC 5322 section 2.3)'));
        }
        const chunk = raw.subarray(offset, offset + SLICE);
        offset += SLICE;
        if (!splitter.write(chunk)) {
          splitter.once('drain', feed);
          return;
        }
      }
      if (!verdict) splitter.end();
    };
    feed();
  });
}
