import { deflateSync, gzipSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MAX_PART_CHARS } from './content.ts';
import { type DlpContent, dlpContentOf, findDlp } from './index.ts';
import { allTypes, flate, message, pdf, withFiles } from './test-support.ts';

const ALL_TYPES = allTypes(['zip', 'exe', 'jpg']);
const finding = (content: DlpContent, type: string) =>
  findDlp(content, ALL_TYPES).find((f) => f.type === type);

const xml = (body: string) => strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${body}`);
const CONTENT_TYPES = xml('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');

/** A Word document whose paragraphs are made of runs (a number split across runs, as Word does). */
const docx = (paragraphs: string[][]) =>
  zipSync({
    '[Content_Types].xml': CONTENT_TYPES,
    'word/document.xml': xml(
      `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs
        .map(
          (runs) =>
            `<w:p><w:pPr/>${runs.map((r) => `<w:r><w:t xml:space="preserve">${r}</w:t></w:r>`).join('')}</w:p>`,
        )
        .join('')}</w:body></w:document>`,
    ),
    'word/footer1.xml': xml(
      '<w:ftr xmlns:w="w"><w:p><w:r><w:t>Confidential &amp; internal</w:t></w:r></w:p></w:ftr>',
    ),
    'word/media/image1.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]),
  });

/** A workbook: shared strings, an inline string and numeric cells. */
const xlsx = () =>
  zipSync({
    '[Content_Types].xml': CONTENT_TYPES,
    'xl/sharedStrings.xml': xml(
      '<sst><si><t>Payee</t></si><si><t>DE89 3704 0044 0532 0130 00</t></si></sst>',
    ),
    'xl/worksheets/sheet1.xml': xml(
      '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
        '<row r="2"><c r="A2" t="inlineStr"><is><t>SSN 123-45-6789</t></is></c><c r="B2"><v>4111</v></c>' +
        '<c r="C2"><v>1111</v></c><c r="D2"><v>11111111</v></c></row></sheetData></worksheet>',
    ),
  });

const pptx = () =>
  zipSync({
    '[Content_Types].xml': CONTENT_TYPES,
    'ppt/slides/slide1.xml': xml(
      '<p:sld xmlns:a="a" xmlns:p="p"><a:p><a:r><a:t>Test card</a:t></a:r></a:p><a:p><a:r><a:t>5555 5555 </a:t></a:r><a:r><a:t>5555 4444</a:t></a:r></a:p></p:sld>',
    ),
  });

/** An OpenDocument text: its type stored first, uncompressed; a locked one says so in its manifest. */
const odt = (locked: boolean) =>
  zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'content.xml': xml(
      '<office:document-content><office:body><office:text><text:p>Konto<text:s/>DE89 3704 0044 0532 0130 00</text:p>' +
        '<table:table><table:table-row><table:table-cell><text:p>4111</text:p></table:table-cell>' +
        '<table:table-cell><text:p>1111</text:p></table:table-cell></table:table-row></table:table></office:text></office:body></office:document-content>',
    ),
    'META-INF/manifest.xml': xml(
      `<manifest:manifest><manifest:file-entry manifest:full-path="content.xml">${locked ? '<manifest:encryption-data/>' : ''}</manifest:file-entry></manifest:manifest>`,
    ),
  });

/** A PDF of numbered objects (strings, or a dictionary with its stream), with a trailer. */
const PAGES = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'];

/** What a word processor's PDF export gives: a standard font, text in a compressed content stream. */
const simplePdf = () =>
  pdf([
    ...PAGES,
    '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    flate(
      'BT /F1 12 Tf 72 720 Td (Card 4111 1111 1111 1111) Tj 0 -14 Td [(Statement \\(June\\)) -120 (\\061\\062)] TJ ET',
    ),
  ]);

/**
 * What a browser's or an office suite's export gives: a subset font whose codes are glyph numbers
 * (Identity-H) mapped back to text by a ToUnicode CMap, the page and font kept in an object stream.
 */
function subsetFontPdf(): Buffer {
  const code = (text: string) =>
    `<${[...text].map((c) => (c === ' ' ? 3 : c.charCodeAt(0) - 48 + 0x13).toString(16).padStart(4, '0')).join('')}>`;
  const cmap = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '1 begincodespacerange <0000> <FFFF> endcodespacerange',
    '1 beginbfchar <0003> <0020> endbfchar',
    '1 beginbfrange <0013> <001C> <0030> endbfrange',
    '1 beginbfrange <0024> <0026> [<0050> <0041> <004E>] endbfrange',
    'endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
  const page = '<< /Type /Page /Parent 2 0 R /Resources << /Font << /C2_0 7 0 R >> >> /Contents 3 0 R >>';
  const font =
    '<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Calibri /Encoding /Identity-H /ToUnicode 4 0 R >>';
  const header = `6 0 7 ${page.length + 1} `;
  const content = `BT /C2_0 11 Tf 1 0 0 1 72 700 Tm <002400250026> Tj 1 0 0 1 110 700 Tm [${code('5555')} -280 ${code('5555')} -280 ${code('5555')} -280 ${code('4444')}] TJ ET`;
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [6 0 R] /Count 1 >>',
    flate(content),
    flate(cmap),
    {
      dict: `/Type /ObjStm /N 2 /First ${header.length} /Filter /FlateDecode`,
      stream: deflateSync(`${header}${page}\n${font}`),
    },
  ]);
}

/** A zip whose entries say they are encrypted (general purpose flag bit 0), as `zip -P` writes them. */
function lockedZip(files: Record<string, string>): Buffer {
  const zip = Buffer.from(
    zipSync(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, strToU8(t)]))),
  );
  for (let at = 0; at + 4 <= zip.length; at++) {
    const signature = zip.readUInt32LE(at);
    if (signature === 0x04034b50) zip[at + 6]! |= 1;
    if (signature === 0x02014b50) zip[at + 8]! |= 1;
  }
  return zip;
}

describe('dlpContentOf: the message', () => {
  it('reads the subject and the text part', async () => {
    const content = dlpContentOf(
      await message({ subject: 'SSN 123-45-6789', text: 'Card 4111 1111 1111 1111' }),
    );
    expect(content).toEqual({
      subject: 'SSN 123-45-6789',
      body: 'Card 4111 1111 1111 1111\n',
      parts: [],
      files: [],
      unchecked: [],
    });
    expect(findDlp(content, ALL_TYPES).map((f) => [f.type, f.places])).toEqual([
      ['payment_card', ['body']],
      ['us_ssn', ['subject']],
    ]);
  });

  it('reads the text of the HTML when there is no text part', async () => {
    const content = dlpContentOf(
      await message({
        html: '<p>Card <b>4111 1111</b> 1111 1111</p><style>.x{}</style><p>IBAN GB82 WEST 1234 5698 7654 32</p>',
      }),
    );
    expect(content.body).toBe('Card 4111 1111 1111 1111\nIBAN GB82 WEST 1234 5698 7654 32');
  });
});

describe('dlpContentOf: attachments', () => {
  it('reads Word, Excel and PowerPoint files, cells and paragraphs kept apart', async () => {
    const content = await withFiles(
      { filename: 'offer.docx', content: docx([['Card ', '4111 1111 ', '1111 1111'], ['Thanks']]) },
      { filename: 'payees.xlsx', content: xlsx() },
      { filename: 'deck.pptx', content: pptx() },
    );
    expect(content.parts).toEqual([
      { place: 'offer.docx', text: 'Card 4111 1111 1111 1111\nThanks\n\nConfidential & internal\n' },
      {
        place: 'payees.xlsx',
        text: 'Payee\nDE89 3704 0044 0532 0130 00\n\n\t\t\nSSN 123-45-6789\t4111\t1111\t11111111\t\n',
      },
      { place: 'deck.pptx', text: 'Test card\n5555 5555 5555 4444\n' },
    ]);
    expect(content.files.map((f) => [f.place, f.kind])).toEqual([
      ['offer.docx', 'docx'],
      ['payees.xlsx', 'xlsx'],
      ['deck.pptx', 'pptx'],
    ]);
    expect(finding(content, 'payment_card')).toEqual(
      expect.objectContaining({ count: 2, places: ['offer.docx', 'deck.pptx'] }),
    );
    expect(finding(content, 'iban')?.places).toEqual(['payees.xlsx']);
    expect(finding(content, 'us_ssn')?.places).toEqual(['payees.xlsx']);
  });

  it('reads OpenDocument text, and marks a password-protected one as locked', async () => {
    const content = await withFiles(
      { filename: 'brief.odt', content: odt(false) },
      { filename: 'locked.odt', content: odt(true) },
    );
    expect(content.parts).toEqual([
      { place: 'brief.odt', text: 'Konto DE89 3704 0044 0532 0130 00\n4111\n\t1111\n\t\n' },
    ]);
    expect(content.files.map((f) => [f.place, f.kind, f.encrypted])).toEqual([
      ['brief.odt', 'odt', false],
      ['locked.odt', 'odt', true],
    ]);
  });

  it('reads the text of a PDF with a standard font in a compressed content stream', async () => {
    const content = await withFiles({ filename: 'statement.pdf', content: simplePdf() });
    expect(content.parts).toEqual([
      { place: 'statement.pdf', text: 'Card 4111 1111 1111 1111\nStatement (June)12' },
    ]);
    expect(finding(content, 'payment_card')?.places).toEqual(['statement.pdf']);
  });

  it('reads a PDF whose subset font maps glyph numbers back to text, kept in an object stream', async () => {
    const content = await withFiles({ filename: 'export.pdf', content: subsetFontPdf() });
    expect(content.parts).toEqual([{ place: 'export.pdf', text: 'PAN 5555 5555 5555 4444' }]);
  });

  it('reads text, CSV and HTML files, and files with no extension that hold text', async () => {
    const content = await withFiles(
      { filename: 'list.csv', content: Buffer.from('name,iban\nAnn,NL91ABNA0417164300\n') },
      {
        filename: 'page.html',
        content: Buffer.from('<html><body><p>SSN</p><p>123-45-6789</p></body></html>'),
      },
      {
        filename: 'id_rsa',
        content: Buffer.from(
          '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\n',
        ),
      },
      {
        filename: 'logo.png',
        content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      },
    );
    expect(content.parts.map((p) => [p.place, p.text])).toEqual([
      ['list.csv', 'name,iban\nAnn,NL91ABNA0417164300\n'],
      ['page.html', 'SSN\n123-45-6789'],
      ['id_rsa', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\n'],
    ]);
    expect(content.files.find((f) => f.place === 'logo.png')?.kind).toBe('png');
    expect(finding(content, 'private_key')?.places).toEqual(['id_rsa']);
  });

  it('reads the files inside a zip, and names them by the archive and their path', async () => {
    const inner = zipSync({
      'c.txt': strToU8('SSN 123-45-6789'),
      'deeper.zip': zipSync({ 'd.txt': strToU8('x') }),
    });
    const content = await withFiles({
      filename: 'a.zip',
      content: zipSync({ 'b.txt': strToU8('IBAN GB82 WEST 1234 5698 7654 32'), 'sub/inner.zip': inner }),
    });
    expect(content.parts).toEqual([
      { place: 'a.zip/b.txt', text: 'IBAN GB82 WEST 1234 5698 7654 32' },
      { place: 'a.zip/sub/inner.zip/c.txt', text: 'SSN 123-45-6789' },
    ]);
    // Two archives deep is as far as archives are opened: the third is listed, not read.
    expect(content.files.map((f) => f.place)).toEqual([
      'a.zip',
      'a.zip/b.txt',
      'a.zip/sub/inner.zip',
      'a.zip/sub/inner.zip/c.txt',
      'a.zip/sub/inner.zip/deeper.zip',
    ]);
    expect(finding(content, 'iban')?.places).toEqual(['a.zip/b.txt']);
  });

  it('reads the file of a gzip stream', async () => {
    const content = await withFiles({
      filename: 'export.csv.gz',
      content: gzipSync('id,card\n1,4111111111111111\n'),
    });
    expect(content.parts).toEqual([
      { place: 'export.csv.gz/export.csv', text: 'id,card\n1,4111111111111111\n' },
    ]);
  });

  it('keeps at most 2 MiB of text of one file, and reads at most 200 archive entries', async () => {
    const entries = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`f${i}.txt`, strToU8(`file ${i}`)]),
    );
    const content = await withFiles(
      { filename: 'big.txt', content: Buffer.alloc(3 * 1024 * 1024, 'a') },
      { filename: 'many.zip', content: zipSync(entries) },
    );
    expect(content.parts[0]?.text.length).toBe(MAX_PART_CHARS);
    expect(content.parts.filter((p) => p.place.startsWith('many.zip/')).length).toBeLessThanOrEqual(200);
    // Entries left unread are still listed by name (for the file-type rule).
    expect(content.files.filter((f) => f.place.startsWith('many.zip/'))).toHaveLength(300);
  });

  it('stops inflating a zip bomb at the budget', async () => {
    const bomb = zipSync({ 'big.txt': new Uint8Array(40 * 1024 * 1024) }, { level: 1 });
    const content = await withFiles({ filename: 'bomb.zip', content: bomb });
    expect(content.parts).toEqual([]);
    expect(content.files.map((f) => f.place)).toEqual(['bomb.zip', 'bomb.zip/big.txt']);
  });

  it('names places on one line, without invisible characters, at most 200 characters', async () => {
    const long = `${'x'.repeat(300)}.txt`;
    const content = await withFiles({
      filename: 'a.zip',
      content: zipSync({ 'evil\u202e\nname.txt': strToU8('a'), [long]: strToU8('b') }),
    });
    const places = content.files.map((f) => f.place);
    expect(places[1]).toBe('a.zip/evil name.txt');
    expect(places[2]?.length).toBe(200);
    expect(places[2]?.endsWith('xxx.txt')).toBe(true);
  });
});

describe('findDlp: files', () => {
  it('finds password-protected archives, encrypted PDFs and encrypted Office files', async () => {
    const encryptedPdf = pdf([...PAGES, '<< /Type /Page /Parent 2 0 R >>'], '/Encrypt 4 0 R');
    const ole = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(504),
      Buffer.from('EncryptedPackage', 'utf16le'),
      Buffer.alloc(64),
    ]);
    const content = await withFiles(
      { filename: 'docs.zip', content: lockedZip({ 'hr/payroll.xlsx': 'x'.repeat(100) }) },
      { filename: 'statement.pdf', content: encryptedPdf },
      { filename: 'salaries.xlsx', content: ole },
      { filename: 'open.pdf', content: simplePdf() },
    );
    expect(finding(content, 'encrypted_file')).toEqual(
      expect.objectContaining({
        ruleName: 'Encrypted or uncheckable file',
        count: 3,
        samples: ['docs.zip', 'statement.pdf', 'salaries.xlsx'],
      }),
    );
    // The locked archive's names are still known.
    expect(content.files.find((f) => f.place === 'docs.zip/hr/payroll.xlsx')?.extension).toBe('xlsx');
  });

  it('finds files of the listed types by name and by what the bytes are', async () => {
    const content = await withFiles(
      { filename: 'payroll.dat', content: zipSync({ 'a.txt': strToU8('a') }) },
      { filename: 'tool.bin', content: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(100)]) },
      { filename: 'photo.jpeg', content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]) },
      { filename: 'notes.txt', content: Buffer.from('nothing here') },
    );
    expect(finding(content, 'file_type')).toEqual(
      expect.objectContaining({
        ruleName: 'File type',
        count: 3,
        samples: ['payroll.dat', 'tool.bin', 'photo.jpeg'],
      }),
    );
  });
});
