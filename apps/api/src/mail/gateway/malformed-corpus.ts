import { zipSync } from 'fflate';

/**
 * Hostile and broken messages for the gateway (malformed.test.ts sends each over SMTP and checks
 * that none can stall it: every one is refused at the door with a 5xx, or accepted and then ends
 * `processed` or `failed`). Bytes are built exactly: the test client sends them unchanged but for
 * SMTP dot-stuffing. `raw` is lazy so a run holds only the message it is sending.
 */
export interface MalformedCase {
  name: string;
  raw: () => Buffer;
  note?: string;
}

const CRLF = '\r\n';
const KiB = 1024;
const MiB = 1024 * KiB;

/** The usual header fields of a message from bob@outside.test to ana@acme.test. */
function head(subject: string, extra: string[] = []): string[] {
  return [
    'From: Bob <bob@outside.test>',
    'To: ana@acme.test',
    `Subject: ${subject}`,
    'Date: Mon, 03 Mar 2025 09:00:00 +0000',
    `Message-ID: <${subject.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 40)}@outside.test>`,
    'MIME-Version: 1.0',
    ...extra,
  ];
}

/** Header lines (UTF-8), a blank line, then the body as given. */
function mail(headers: string[], body: string | Buffer = `Hello Ana${CRLF}`): Buffer {
  return Buffer.concat([
    Buffer.from(headers.join(CRLF) + CRLF + CRLF, 'utf8'),
    typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  ]);
}

/** A multipart body: each part is its own header block, a blank line and content. */
function multipart(boundary: string, parts: string[], close = true): string {
  return `This is a multi-part message.${CRLF}${parts.map((p) => `--${boundary}${CRLF}${p}${CRLF}`).join('')}${close ? `--${boundary}--${CRLF}` : ''}`;
}

const textPart = (text: string) => `Content-Type: text/plain; charset=utf-8${CRLF}${CRLF}${text}`;

/** Base64 in 76-character lines. */
function base64Lines(bytes: Uint8Array): string {
  return (
    Buffer.from(bytes)
      .toString('base64')
      .match(/.{1,76}/g) ?? []
  ).join(CRLF);
}

/** A text part and one base64 attachment. */
function withAttachment(subject: string, attachmentHeaders: string[], bytes: Uint8Array): Buffer {
  return mail(
    head(subject, ['Content-Type: multipart/mixed; boundary="att"']),
    multipart('att', [
      textPart('See attached.'),
      `${attachmentHeaders.join(CRLF)}${CRLF}Content-Transfer-Encoding: base64${CRLF}${CRLF}${base64Lines(bytes)}`,
    ]),
  );
}

/** `depth` multiparts, each the only part of the one above, around one text part. */
function nestedMultipart(depth: number): string {
  let node = textPart('innermost');
  for (let level = depth; level >= 1; level -= 1) {
    const b = `level-${level}`;
    node = `Content-Type: multipart/mixed; boundary="${b}"${CRLF}${CRLF}${multipart(b, [node])}`;
  }
  return node;
}

const memo = <T>(build: () => T) => {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
};

/** 100 MiB of zeros in a ~100 KiB zip (honest sizes in its headers). */
const zipBomb = memo(() => zipSync({ 'zeros.bin': [new Uint8Array(100 * MiB), { level: 9 }] }));

/** A zip of ten zips, each 40 MiB of zeros: 400 MiB from ~400 KiB. */
const nestedZipBomb = memo(() => {
  const inner = zipSync({ 'zeros.bin': [new Uint8Array(40 * MiB), { level: 9 }] });
  const files: Record<string, Uint8Array> = {};
  for (let i = 1; i <= 10; i += 1) files[`part-${i}.zip`] = inner;
  return zipSync(files, { level: 0 });
});

/** A copy of a zip whose local and central headers say every entry unpacks to `size` bytes. */
function understated(zip: Uint8Array, size: number): Uint8Array {
  const bytes = new Uint8Array(zip);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i + 4 <= bytes.length; i += 1) {
    const signature = view.getUint32(i, true);
    if (signature === 0x04034b50 && i + 26 <= bytes.length) view.setUint32(i + 22, size, true);
    if (signature === 0x02014b50 && i + 28 <= bytes.length) view.setUint32(i + 24, size, true);
  }
  return bytes;
}

/**
 * The zip bomb with its headers lying: each entry claims to unpack to 1,000 bytes, so a size
 * budget that trusts them lets it through to the inflater.
 */
const lyingZipBomb = memo(() => understated(zipBomb(), 1_000));

/** The EICAR test file after 5,000 bytes of text, in a zip that claims the entry is 1,000 bytes. */
const lyingEicarZip = memo(() =>
  understated(
    zipSync({
      'notes.txt': Buffer.from(
        `${'A'.repeat(5_000)}X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`,
      ),
    }),
    1_000,
  ),
);

/** A zip of 10,000 one-byte files. */
const manyEntriesZip = memo(() => {
  const files: Record<string, Uint8Array> = {};
  for (let i = 0; i < 10_000; i += 1) files[`f/${i}.txt`] = new Uint8Array([65]);
  return zipSync(files, { level: 0 });
});

/** A message/rfc822 part wrapping a message that wraps one … `depth` levels. */
function nestedRfc822(depth: number): string {
  let inner = `From: level0@outside.test${CRLF}Subject: level 0${CRLF}${CRLF}the bottom${CRLF}`;
  for (let level = 1; level < depth; level += 1) {
    inner = `From: level${level}@outside.test${CRLF}Subject: level ${level}${CRLF}Content-Type: message/rfc822${CRLF}${CRLF}${inner}`;
  }
  return inner;
}

/** A TNEF stream's signature and a few attribute headers, then garbage. */
const tnefLike = () => {
  const bytes = Buffer.alloc(4096, 0xaa);
  Buffer.from([
    0x78, 0x9f, 0x3e, 0x22, 0x01, 0x00, 0x01, 0x06, 0x90, 0x08, 0x00, 0x04, 0x00, 0x00, 0x00,
  ]).copy(bytes);
  return bytes;
};

/** Every byte 0x01–0xFF, many times over (no NUL: that alone is refused). */
const eightBit = () => {
  const row = Buffer.alloc(255);
  for (let i = 0; i < 255; i += 1) row[i] = i + 1;
  return Buffer.concat(Array.from({ length: 64 }, () => row));
};

export const MALFORMED_CORPUS: MalformedCase[] = [
  // ── NUL and 8-bit bytes ─────────────────────────────────────────────────────────────────
  {
    name: 'nul-in-header',
    raw: () => mail(head('NUL here\u0000there')),
    note: 'refused 554 5.6.0 (NUL bytes)',
  },
  {
    name: 'nul-in-body',
    raw: () => mail(head('NUL in body'), `before\u0000after${CRLF}`),
    note: 'refused 554 5.6.0 (NUL bytes)',
  },
  {
    name: 'header-8bit-utf8',
    raw: () =>
      mail(['From: Jürgen Müller <jurgen@outside.test>', ...head('Grüße aus Köln — 日本語 🎉').slice(1)]),
    note: 'raw UTF-8 in From and Subject (no encoded-words)',
  },
  {
    name: 'header-8bit-latin1',
    raw: () =>
      Buffer.concat([
        Buffer.from(
          `From: J\xfcrgen <jurgen@outside.test>${CRLF}To: ana@acme.test${CRLF}Subject: Gr\xfc\xdfe \xe0 vous${CRLF}Date: Mon, 03 Mar 2025 09:00:00 +0000${CRLF}${CRLF}`,
          'latin1',
        ),
        Buffer.from(`caf\xe9${CRLF}`, 'latin1'),
      ]),
    note: 'raw Latin-1 bytes in headers and body: invalid UTF-8',
  },
  {
    name: 'cte-binary-8bit-body',
    raw: () =>
      mail(
        head('Binary body', ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: binary']),
        eightBit(),
      ),
    note: 'Content-Transfer-Encoding: binary over SMTP without BINARYMIME, every byte but NUL: refused 550 5.6.0 (a bare CR in the body)',
  },

  // ── header lines and blocks ─────────────────────────────────────────────────────────────
  {
    name: 'header-line-1mb',
    raw: () => mail(head('One huge header line', [`X-Huge: ${'a'.repeat(MiB)}`])),
    note: 'refused 554 (header line over 998 octets)',
  },
  {
    name: 'header-line-999',
    raw: () => mail(head('999-octet header line', [`X-Long: ${'a'.repeat(999 - 'X-Long: '.length)}`])),
    note: 'refused 554 (one octet over RFC 5322 §2.1.1)',
  },
  {
    name: 'header-line-998',
    raw: () => mail(head('998-octet header line', [`X-Long: ${'a'.repeat(998 - 'X-Long: '.length)}`])),
    note: 'accepted: exactly the limit',
  },
  {
    name: 'headers-20000-short',
    raw: () =>
      mail(
        head(
          'Twenty thousand headers',
          Array.from({ length: 20_000 }, (_, i) => `X-H${i}: ${i}`),
        ),
      ),
    note: 'refused 552 (over 1,000 fields / over 256 KiB)',
  },
  {
    name: 'headers-1001',
    raw: () => {
      const base = head('1,001 header fields');
      return mail([...base, ...Array.from({ length: 1_001 - base.length }, (_, i) => `X-H${i}: ${i}`)]);
    },
    note: 'refused 552 (over 1,000 fields)',
  },
  {
    name: 'received-51',
    raw: () =>
      mail([
        ...Array.from(
          { length: 51 },
          (_, i) =>
            `Received: from hop${i}.loop.test by hop${i + 1}.loop.test; Mon, 03 Mar 2025 09:00:00 +0000`,
        ),
        ...head('Looping message'),
      ]),
    note: 'refused 554 5.4.6 (more than 50 hops: a mail loop)',
  },
  {
    name: 'received-50',
    raw: () =>
      mail([
        ...Array.from(
          { length: 50 },
          (_, i) =>
            `Received: from hop${i}.relay.test by hop${i + 1}.relay.test; Mon, 03 Mar 2025 09:00:00 +0000`,
        ),
        ...head('Fifty hops'),
      ]),
    note: 'accepted: exactly the limit',
  },
  {
    name: 'headers-1000',
    raw: () => {
      const base = head('1,000 header fields');
      return mail([...base, ...Array.from({ length: 1_000 - base.length }, (_, i) => `X-H${i}: ${i}`)]);
    },
    note: 'accepted: exactly the limit (the gateway adds its Received after the check)',
  },
  {
    name: 'header-folded-300k',
    raw: () => {
      const lines = Array.from({ length: Math.ceil((300 * KiB) / 72) }, () => ` ${'b'.repeat(70)}`);
      return mail(head('Folded header of 300 KiB', [`X-Folded: start${CRLF}${lines.join(CRLF)}`]));
    },
    note: 'refused 552 (header block over 256 KiB), every physical line short',
  },
  {
    name: 'received-chain-500',
    raw: () =>
      mail([
        ...Array.from(
          { length: 500 },
          (_, i) =>
            `Received: from hop${i}.outside.test ([192.0.2.${i % 250}]) by hop${i + 1}.outside.test with ESMTP id ${i}; Mon, 03 Mar 2025 08:${String(i % 60).padStart(2, '0')}:00 +0000`,
        ),
        ...head('Five hundred hops'),
      ]),
    note: 'a mail loop in the making: 500 Received fields (accepted; the hop count is not limited)',
  },
  {
    name: 'header-without-colon',
    raw: () =>
      mail([...head('A header line without a colon'), 'This line is not a header field', 'X-After: 1']),
  },
  {
    name: 'header-starts-folded',
    raw: () => mail([' continuation of nothing', ...head('First header line starts with a space')]),
    note: 'about headers: the first line is a continuation line',
  },
  {
    name: 'subject-10000-encoded-words',
    raw: () =>
      mail(
        head(Array.from({ length: 10_000 }, (_, i) => `=?utf-8?q?w${i}=C3=A9?=`).join(`${CRLF} `)).map(
          (line) => (line.startsWith('Message-ID') ? 'Message-ID: <ten-thousand-words@outside.test>' : line),
        ),
      ),
    note: '~190 KiB of folded encoded-words in one Subject (under 256 KiB: accepted)',
  },

  // ── required and duplicate fields ───────────────────────────────────────────────────────
  {
    name: 'missing-from',
    raw: () => mail(head('No From').filter((line) => !line.startsWith('From:'))),
  },
  {
    name: 'missing-date',
    raw: () => mail(head('No Date').filter((line) => !line.startsWith('Date:'))),
  },
  {
    name: 'invalid-date',
    raw: () =>
      mail(
        head('Invalid Date').map((line) =>
          line.startsWith('Date:') ? 'Date: Blursday, 45 Smarch 99999 25:61:61 +9999 (never)' : line,
        ),
      ),
  },
  {
    name: 'duplicate-from-subject-content-type',
    raw: () =>
      mail(
        [
          ...head('First subject', ['Content-Type: text/plain; charset=utf-8']),
          'From: Mallory <mallory@evil.test>',
          'Subject: Second subject',
          'Content-Type: text/html; charset=iso-8859-1',
        ],
        `<b>which one?</b>${CRLF}`,
      ),
    note: 'refused 550 5.6.0 (more than one From)',
  },
  {
    name: 'from-1000-addresses',
    raw: () =>
      mail(
        head('A thousand senders').map((line) =>
          line.startsWith('From:')
            ? `From: ${Array.from({ length: 1_000 }, (_, i) => `Sender ${i} <s${i}@outside.test>`).join(`,${CRLF} `)}`
            : line,
        ),
      ),
    note: 'one From field of ~31 KiB, folded: refused 550 5.6.0 (more than one address in From)',
  },
  {
    name: 'from-unicode-homoglyph',
    raw: () =>
      mail(
        head('Homoglyph sender').map((line) =>
          line.startsWith('From:') ? 'From: "Аna Lорez" <ana@аcme.test>' : line,
        ),
      ),
    note: 'Cyrillic А/о/р/а in the display name and in the domain, raw UTF-8',
  },
  {
    name: 'subject-rtl-override',
    raw: () =>
      mail(
        head('x').map((line) =>
          line.startsWith('Subject:')
            ? 'Subject: =?utf-8?b?SW52b2ljZSDigK5mZHAuZXhl4oCs?= \u202eexe.fdp\u202c'
            : line,
        ),
      ),
    note: 'U+202E RIGHT-TO-LEFT OVERRIDE, encoded and raw',
  },
  {
    name: 'encoded-word-nul',
    raw: () =>
      mail(head('x').map((line) => (line.startsWith('Subject:') ? 'Subject: =?utf-8?q?a=00b?=' : line))),
    note: 'decodes to a NUL: not in the bytes, so accepted; must not reach a text column',
  },
  {
    name: 'encoded-word-invalid-utf8',
    raw: () =>
      mail(
        head('x').map((line) =>
          line.startsWith('Subject:') ? 'Subject: =?utf-8?b?wyj/gICA7aCA?= =?utf-8?q?=ED=A0=80=FF?=' : line,
        ),
      ),
    note: 'overlong, truncated and surrogate UTF-8 sequences',
  },
  {
    name: 'encoded-word-unknown-charset',
    raw: () =>
      mail(
        head('x').map((line) =>
          line.startsWith('Subject:') ? 'Subject: =?x-no-such-charset?q?abc?= =?utf-8?x?def?=' : line,
        ),
      ),
  },
  {
    name: 'dkim-signature-garbage',
    raw: () =>
      mail(
        head('Garbage DKIM', [
          'DKIM-Signature: v=1; a=rsa-sha999; c=nonsense/garbage; d=; s=\x7f; bh=!!!not base64!!!; b=;;;===; h=From:From:From; l=-5; x=0',
          'DKIM-Signature: completely unparseable',
          ...Array.from(
            { length: 48 },
            (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; d=outside.test; s=sel${i}; h=from; bh=AAAA; b=AAAA`,
          ),
        ]),
      ),
    note: '50 DKIM-Signature fields, two unparseable (each asks DNS for a key)',
  },
  {
    name: 'authentication-results-forged',
    raw: () =>
      mail([
        'Authentication-Results: mx.moat.test; spf=pass smtp.mailfrom=bank.test; dkim=pass header.d=bank.test; dmarc=pass header.from=bank.test',
        ...head('Forged Authentication-Results').map((line) =>
          line.startsWith('From:') ? 'From: Bank <security@bank.test>' : line,
        ),
      ]),
    note: 'claims this gateway (mx.moat.test) already passed it (RFC 8601 §5)',
  },

  // ── odd shapes ──────────────────────────────────────────────────────────────────────────
  {
    name: 'empty-body',
    raw: () => mail(head('Empty body'), ''),
  },
  {
    name: 'headers-only-no-blank-line',
    raw: () => Buffer.from(head('Headers only, no blank line').join(CRLF) + CRLF),
  },
  {
    name: 'only-a-blank-line',
    raw: () => Buffer.from(CRLF),
    note: 'about headers: no header fields at all',
  },
  {
    name: 'bare-lf',
    raw: () => Buffer.from(`${head('Bare LF line endings').join('\n')}\n\nline one\nline two\n`),
    note: 'refused 550 5.6.0 (bare LF in the header)',
  },
  {
    name: 'bare-cr',
    raw: () => Buffer.from(`${head('Bare CR line endings').join('\r')}\r\rline one\rline two\r`),
    note: 'no LF anywhere until the SMTP terminator: one physical line; refused 550 5.6.0 (bare CR in the header)',
  },
  {
    name: 'body-5mb-single-line',
    raw: () => mail(head('Five megabytes, one line'), 'A'.repeat(5 * MiB)),
    note: 'no newline in the body at all',
  },
  {
    name: 'body-long-lines',
    raw: () =>
      mail(
        head('Long body lines'),
        Array.from({ length: 40 }, (_, i) => String(i % 10).repeat(100 * KiB)).join(CRLF),
      ),
    note: '40 lines of 100 KiB',
  },
  {
    name: 'dot-lines',
    raw: () => mail(head('Lines of dots'), `.${CRLF}..${CRLF}.hidden${CRLF}. ${CRLF}.\r.${CRLF}end${CRLF}`),
    note: 'body lines that need SMTP dot-stuffing, one of them a lone dot',
  },

  // ── MIME structure ──────────────────────────────────────────────────────────────────────
  {
    name: 'multipart-missing-boundary',
    raw: () =>
      mail(
        head('Multipart without boundary', ['Content-Type: multipart/mixed']),
        multipart('x', [textPart('lost')]),
      ),
  },
  {
    name: 'multipart-boundary-mismatch',
    raw: () =>
      mail(
        head('Boundary mismatch', ['Content-Type: multipart/alternative; boundary="declared"']),
        multipart('actual', [textPart('one'), `Content-Type: text/html${CRLF}${CRLF}<p>two</p>`]),
      ),
  },
  {
    name: 'multipart-empty-boundary',
    raw: () =>
      mail(
        head('Empty boundary', ['Content-Type: multipart/mixed; boundary=""']),
        multipart('', [textPart('x')]),
      ),
  },
  {
    name: 'multipart-boundary-never-closes',
    raw: () =>
      mail(
        head('Boundary never closes', ['Content-Type: multipart/mixed; boundary="open"']),
        multipart(
          'open',
          [textPart('first'), `Content-Type: text/plain${CRLF}${CRLF}${'and on '.repeat(2_000)}`],
          false,
        ),
      ),
  },
  {
    name: 'multipart-boundary-200-chars',
    raw: () => {
      const b = 'B'.repeat(200);
      return mail(
        head('Overlong boundary', [`Content-Type: multipart/mixed;${CRLF} boundary="${b}"`]),
        multipart(b, [textPart('x')]),
      );
    },
    note: 'RFC 2046 allows 70',
  },
  {
    name: 'multipart-nested-19',
    raw: () => Buffer.from(`${head('Nested 19 deep').join(CRLF)}${CRLF}${nestedMultipart(19)}`),
    note: 'accepted: under the 20-deep limit',
  },
  {
    name: 'multipart-nested-21',
    raw: () => Buffer.from(`${head('Nested 21 deep').join(CRLF)}${CRLF}${nestedMultipart(21)}`),
    note: 'refused 554: just over the limit',
  },
  {
    name: 'multipart-nested-100',
    raw: () => Buffer.from(`${head('Nested 100 deep').join(CRLF)}${CRLF}${nestedMultipart(100)}`),
    note: 'refused 554 (nested over 20 deep)',
  },
  {
    name: 'parts-600',
    raw: () =>
      mail(
        head('Six hundred parts', ['Content-Type: multipart/mixed; boundary="many"']),
        multipart(
          'many',
          Array.from({ length: 600 }, (_, i) => textPart(`part ${i}`)),
        ),
      ),
    note: 'refused 552 (over 500 MIME parts)',
  },
  {
    name: 'content-type-garbage',
    raw: () =>
      mail(
        head('Garbage Content-Type', [
          'Content-Type: ;;;==="; boundary=; charset=',
          'Content-Disposition: ;;;',
        ]),
      ),
  },
  {
    name: 'content-type-param-10kb-one-line',
    raw: () =>
      mail(
        head('10 KB parameter on one line', [
          `Content-Type: text/plain; charset=utf-8; x-junk="${'j'.repeat(10 * KiB)}"`,
        ]),
      ),
    note: 'refused 554: the parameter makes a header line over 998 octets',
  },
  {
    name: 'content-type-param-10kb-rfc2231',
    raw: () => {
      const pieces = Array.from({ length: 20 }, (_, i) => ` name*${i}="${'n'.repeat(512)}";`);
      return withAttachment(
        '10 KB attachment name in RFC 2231 pieces',
        [
          `Content-Type: application/octet-stream;${CRLF}${pieces.join(CRLF)}`,
          'Content-Disposition: attachment',
        ],
        Buffer.from('data'),
      );
    },
    note: 'a 10 KiB filename from 20 continuation pieces, every line short',
  },
  {
    name: 'charset-invalid',
    raw: () =>
      mail(
        head('Invalid charsets', [`Content-Type: text/plain; charset="x-no-such-charset'; DROP TABLE"`]),
        Buffer.from(`caf\xe9 ${CRLF}`, 'latin1'),
      ),
    note: 'an unknown charset name holding a quote',
  },
  {
    name: 'base64-bad-padding',
    raw: () =>
      mail(
        head('Bad base64', ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64']),
        `SGVsbG8gV29ybGQ${CRLF}=abc==def=${CRLF}Q${CRLF}===${CRLF}`,
      ),
  },
  {
    name: 'base64-garbage-characters',
    raw: () =>
      mail(
        head('Base64 with garbage', [
          'Content-Type: application/pdf; name="x.pdf"',
          'Content-Transfer-Encoding: base64',
        ]),
        `JVBERi0xLjQK!!!@@@###$$$%%%^^^&&&***((()))${CRLF}ÿÿÿ€€€ ~~~ {{{ }}} <<< >>>${CRLF}JVBER${CRLF}`,
      ),
  },
  {
    name: 'quoted-printable-garbage',
    raw: () =>
      mail(
        head('QP garbage', [
          'Content-Type: text/plain; charset=utf-8',
          'Content-Transfer-Encoding: quoted-printable',
        ]),
        `=ZZ=G1=\t${CRLF}=${CRLF}=4${CRLF}=E9=${CRLF}=C3${CRLF}${'='.repeat(900)}${CRLF}=00=00${CRLF}`,
      ),
    note: 'soft breaks, bad hex, and =00 that decodes to NUL',
  },
  {
    name: 'cte-unknown',
    raw: () =>
      mail(
        head('Unknown transfer encoding', [
          'Content-Type: text/plain',
          'Content-Transfer-Encoding: x-gzip64',
        ]),
        'H4sI!!!',
      ),
  },
  {
    name: 'uuencode-garbage',
    raw: () =>
      mail(
        head('uuencode garbage', [
          'Content-Type: application/octet-stream; name="a.exe"',
          'Content-Transfer-Encoding: x-uuencode',
        ]),
        `begin 644 a.exe${CRLF}M!!!!!!!!!!!!!!!!!!${CRLF}\`${CRLF}end${CRLF}`,
      ),
  },

  // ── attachments and archives ────────────────────────────────────────────────────────────
  {
    name: 'zip-bomb',
    raw: () =>
      withAttachment(
        'Zip bomb',
        [
          'Content-Type: application/zip; name="report.zip"',
          'Content-Disposition: attachment; filename="report.zip"',
        ],
        zipBomb(),
      ),
    note: '~100 KiB zip of 100 MiB zeros',
  },
  {
    name: 'zip-bomb-nested',
    raw: () =>
      withAttachment(
        'Nested zip bomb',
        [
          'Content-Type: application/zip; name="archive.zip"',
          'Content-Disposition: attachment; filename="archive.zip"',
        ],
        nestedZipBomb(),
      ),
    note: '10 zips of 40 MiB zeros in one zip',
  },
  {
    name: 'zip-bomb-lying-sizes',
    raw: () =>
      withAttachment(
        'Zip bomb with lying sizes',
        [
          'Content-Type: application/zip; name="small.zip"',
          'Content-Disposition: attachment; filename="small.zip"',
        ],
        lyingZipBomb(),
      ),
    note: 'the zip bomb with headers claiming 1,000 bytes unpacked',
  },
  {
    name: 'zip-eicar-understated-size',
    raw: () =>
      withAttachment(
        'EICAR past the declared size',
        [
          'Content-Type: application/zip; name="notes.zip"',
          'Content-Disposition: attachment; filename="notes.zip"',
        ],
        lyingEicarZip(),
      ),
    note: 'EICAR at byte 5,000 of an entry whose headers say 1,000 bytes: must still be found',
  },
  {
    name: 'zip-10000-entries',
    raw: () =>
      withAttachment(
        'Ten thousand entries',
        [
          'Content-Type: application/zip; name="many.zip"',
          'Content-Disposition: attachment; filename="many.zip"',
        ],
        manyEntriesZip(),
      ),
  },
  {
    name: 'zip-truncated',
    raw: () =>
      withAttachment(
        'Truncated zip',
        [
          'Content-Type: application/zip; name="cut.zip"',
          'Content-Disposition: attachment; filename="cut.zip"',
        ],
        manyEntriesZip().subarray(0, 5_000),
      ),
  },
  {
    name: 'attachment-filename-control-traversal',
    raw: () =>
      withAttachment(
        'Hostile filename',
        [
          'Content-Type: application/octet-stream; name="..\x01\x1b[31m/../../etc/passwd\x07.txt"',
          'Content-Disposition: attachment; filename="../../\x1b]0;owned\x07\x08\x7f..\\..\\win.ini"',
        ],
        Buffer.from('root:x:0:0'),
      ),
    note: 'control characters (ESC, BEL, BS, DEL) and ../ in name and filename',
  },
  {
    name: 'attachment-filename-rfc2231-nul',
    raw: () =>
      withAttachment(
        'Filename decoding to NUL',
        [
          'Content-Type: application/octet-stream',
          "Content-Disposition: attachment; filename*=utf-8''..%2F..%2Fevil%00.txt%0D%0AX-Injected%3A%201",
        ],
        Buffer.from('x'),
      ),
    note: 'RFC 2231 percent-encoding that decodes to NUL, CR and LF',
  },
  {
    name: 'tnef-winmail-dat',
    raw: () =>
      withAttachment(
        'TNEF',
        [
          'Content-Type: application/ms-tnef; name="winmail.dat"',
          'Content-Disposition: attachment; filename="winmail.dat"',
        ],
        tnefLike(),
      ),
    note: 'TNEF signature 0x223E9F78, then garbage',
  },
  {
    name: 'rfc822-attachment-malformed',
    raw: () =>
      mail(
        head('Attached malformed message', ['Content-Type: multipart/mixed; boundary="outer"']),
        multipart('outer', [
          textPart('forwarded'),
          `Content-Type: message/rfc822${CRLF}Content-Disposition: attachment; filename="fwd.eml"${CRLF}${CRLF}From: <<<>>>${CRLF}Content-Type: multipart/mixed; boundary="inner"${CRLF}Content-Transfer-Encoding: base64${CRLF}Date: yesterday${CRLF}${CRLF}--inner${CRLF}Content-Type: text/plain; charset=no-such${CRLF}Content-Transfer-Encoding: quoted-printable${CRLF}${CRLF}=ZZ broken${CRLF}--inner${CRLF}`,
        ]),
      ),
    note: 'the inner message: bad From, base64 multipart, unclosed boundary',
  },
  {
    name: 'rfc822-nested-30',
    raw: () =>
      Buffer.from(
        `${head('Thirty nested messages', ['Content-Type: message/rfc822']).join(CRLF)}${CRLF}${CRLF}${nestedRfc822(30)}`,
      ),
  },

  // ── HTML ────────────────────────────────────────────────────────────────────────────────
  {
    name: 'html-100000-nested-tags',
    raw: () =>
      mail(
        head('Deep HTML', ['Content-Type: text/html; charset=utf-8']),
        `<html><body>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}</body></html>${CRLF}`,
      ),
    note: 'HTML only (no text part): the parser makes the text from it',
  },
  {
    name: 'html-30000-unclosed-tags',
    raw: () =>
      mail(
        head('Unclosed HTML', ['Content-Type: text/html; charset=utf-8']),
        `${'<b><i><a href="x">'.repeat(10_000)}${CRLF}`,
      ),
    note: 'HTML only: 30,000 tags opened, none closed',
  },
  {
    name: 'html-1mb-attribute',
    raw: () =>
      mail(
        head('Huge attribute', ['Content-Type: text/html; charset=utf-8']),
        `<p>Hi</p><a href="https://example.test/${'a'.repeat(MiB)}">https://bank.test/login</a><img alt="${'x'.repeat(MiB)}">${CRLF}`,
      ),
  },
  {
    name: 'html-10000-links',
    raw: () =>
      mail(
        head('Ten thousand links', ['Content-Type: text/html; charset=utf-8']),
        Array.from(
          { length: 10_000 },
          (_, i) => `<a href="http://192.0.2.${i % 250}/p${i}">https://bank${i}.test/</a>`,
        ).join(CRLF),
      ),
    note: 'IP links whose text names another host',
  },
];
