import type { Transform } from 'node:stream';
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
