import { deflateSync, gzipSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { compileDlpRules, type DlpContent, dlpContentOf, findDlp } from './index.ts';
import { findPaymentCards } from './numbers.ts';
import { allTypes, flate, inBody, message, pdf, withFiles } from './test-support.ts';

const ALL_TYPES = allTypes();
const finding = (content: DlpContent, type: string, rules = ALL_TYPES) =>
  findDlp(content, rules).find((f) => f.type === type);
const typesIn = (body: string) => findDlp(inBody(body), ALL_TYPES).map((f) => f.type);

/** A page whose one font's ToUnicode CMap holds `ranges` full 2-byte ranges. */
function cmapBomb(ranges: number): Buffer {
  const cmap = `1 begincodespacerange <0000> <FFFF> endcodespacerange\n${ranges} beginbfrange\n${'<0000> <FFFE> <0041>\n'.repeat(ranges)}endbfrange`;
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 6 0 R >>',
    flate('BT /F1 12 Tf (\x00\x01) Tj ET'),
    flate(cmap),
  ]);
}

const JWT = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"1234567890"}').toString('base64url')}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;

describe('PDF work bounds', () => {
  it('stops reading CMaps once the message budget is spent, and reports the file unchecked', async () => {
    const bomb = cmapBomb(3_000);
    expect(deflateSync(bomb).length).toBeLessThan(4_096);
    const content = await withFiles(
      { filename: 'bomb.pdf', content: bomb },
      { filename: 'bomb2.pdf', content: bomb },
    );
    expect(content.unchecked).toEqual(['bomb.pdf', 'bomb2.pdf']);
    expect(finding(content, 'encrypted_file')).toEqual(
      expect.objectContaining({
        ruleName: 'Encrypted or uncheckable file',
        samples: ['bomb.pdf', 'bomb2.pdf'],
      }),
    );
  });

  it('indexes a malformed PDF (headers without endobj) within its bounds', async () => {
    const body = `%PDF-1.4\n${'1 0 obj << /Type /Page /Contents 1 0 R '.repeat(60_000)}`;
    const content = await withFiles({ filename: 'broken.pdf', content: Buffer.from(body, 'latin1') });
    expect(content.files[0]?.kind).toBe('pdf');
    // Indexing stopped at its bound of object headers: the file was not read through.
    expect(content.unchecked).toEqual(['broken.pdf']);
  });
});

describe('keywords', () => {
  const rules = (keywords: string[]) =>
    compileDlpRules({
      types: [],
      custom: [{ id: 'k', name: 'Words', kind: 'keywords', keywords, pattern: '', threshold: 1 }],
    });

  it('matches 200 long keywords over 10 KB of "a a a …" in linear time', () => {
    const keywords = Array.from(
      { length: 200 },
      (_, i) => `${'a '.repeat(237)}z${String(i).padStart(4, '0')}`,
    );
    expect(keywords.every((k) => k.length === 479 || k.length === 480)).toBe(true);
    const text = 'a '.repeat(5_000);
    expect(findDlp(inBody(text), rules(keywords))).toEqual([]);
    const hit = findDlp(inBody(`${text}z0007 ${text}`), rules(keywords));
    expect(hit).toEqual([expect.objectContaining({ count: 1, samples: [keywords[7]] })]);
  });

  it('keeps whole words, any case, any white space, the longest keyword first, and counts occurrences', () => {
    const found = findDlp(
      inBody('PROJECT\n\t Falcon is on; project \n falconry is not; Project. project_x; FALCON  falcon'),
      rules(['project', 'Project Falcon', 'falcon']),
    );
    expect(found).toEqual([
      expect.objectContaining({ count: 5, samples: ['Project Falcon', 'project', 'falcon'] }),
    ]);
  });

  it('finds keywords written with accents and other scripts', () => {
    const found = findDlp(inBody('Le dossier ÉTÉ et 機密 sont là; étéx non'), rules(['été', '機密']));
    expect(found[0]?.count).toBe(2);
  });
});

describe('what cannot be checked', () => {
  it('reports archives past the budget, too deep, not opened, and a body past the text bound', async () => {
    const many = zipSync(
      Object.fromEntries(Array.from({ length: 210 }, (_, i) => [`f${i}.txt`, strToU8('x')])),
    );
    const deep = zipSync({
      'a.zip': zipSync({ 'b.zip': zipSync({ 'c.txt': strToU8('4111 1111 1111 1111') }) }),
    });
    const tar = Buffer.alloc(1024);
    tar.write('card.txt', 0);
    tar.write('ustar', 257);
    const sevenZip = Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4, ...Array(64).fill(0)]);
    // Each on its own message: the budget of entries is shared by a message's archives.
    const unchecked = async (filename: string, bytes: Uint8Array) =>
      (await withFiles({ filename, content: bytes })).unchecked;
    expect(await unchecked('many.zip', many)).toEqual(['many.zip']);
    expect(await unchecked('deep.zip', deep)).toEqual(['deep.zip/a.zip/b.zip']);
    expect(await unchecked('data.tar', tar)).toEqual(['data.tar']);
    expect(await unchecked('data.tgz', gzipSync(tar))).toEqual(['data.tgz/data.tar']);
    expect(await unchecked('data.7z', sevenZip)).toEqual(['data.7z']);
    expect(await unchecked('data.bz2', Buffer.from('BZh91AY&SY'))).toEqual(['data.bz2']);
    const content = await withFiles(
      { filename: 'many.zip', content: many },
      { filename: 'deep.zip', content: deep },
    );
    // The first zip spent the entries: the second is not read either.
    expect(content.unchecked).toEqual(['many.zip', 'deep.zip']);
    expect(finding(content, 'encrypted_file')?.places).toEqual(['many.zip', 'deep.zip']);

    const long = dlpContentOf(await message({ text: 'x '.repeat(4.5 * 1024 * 1024) }));
    expect(long.unchecked).toEqual(['body']);
  });
});

describe('bypasses', () => {
  it('reads the HTML part as well as the text part, counting a keyword once when both say it', async () => {
    const content = dlpContentOf(
      await message({
        text: 'See the attached.',
        html: '<p>See the attached.</p><p>Card 4111&#160;1111&nbsp;1111 1111</p>',
      }),
    );
    expect(finding(content, 'payment_card')?.count).toBe(1);
    const both = dlpContentOf(
      await message({ text: 'Project Falcon update', html: '<p>Project Falcon update</p>' }),
    );
    const rules = compileDlpRules({
      types: [],
      custom: [{ id: 'k', name: 'W', kind: 'keywords', keywords: ['falcon'], pattern: '', threshold: 1 }],
    });
    expect(findDlp(both, rules)[0]?.count).toBe(1);
  });

  it('reads text whose first bytes look like another kind, and RTF', async () => {
    const content = await withFiles(
      { filename: 'cards.csv', content: Buffer.from('MZ,card\nAnn,4111 1111 1111 1111\n') },
      {
        filename: 'notes.txt',
        content: Buffer.from('%PDF-1.4 is not here\nIBAN GB82 WEST 1234 5698 7654 32\n'),
      },
      {
        filename: 'letter.rtf',
        content: Buffer.from('{\\rtf1\\ansi{\\fonttbl\\f0 Arial;}\\f0\\fs24 SSN 123-45-6789\\par}'),
      },
    );
    expect(finding(content, 'payment_card')?.places).toEqual(['cards.csv']);
    expect(finding(content, 'iban')?.places).toEqual(['notes.txt']);
    expect(finding(content, 'us_ssn')?.places).toEqual(['letter.rtf']);
  });

  it('reads every XML part of a Word document, whatever its name', async () => {
    const docx = zipSync({
      '[Content_Types].xml': strToU8('<Types/>'),
      'word/renamed.xml': strToU8(
        '<w:document><w:body><w:p><w:r><w:t>4111 1111 1111 1111</w:t></w:r></w:p></w:body></w:document>',
      ),
    });
    const content = await withFiles({ filename: 'offer.docx', content: docx });
    expect(finding(content, 'payment_card')?.places).toEqual(['offer.docx']);
  });

  it('reads Unicode spaces as spaces, and dots or line breaks between card groups', () => {
    expect(typesIn('card 4111\u00a01111\u202f1111\u20091111')).toEqual(['payment_card']);
    expect(typesIn('card 4111.1111.1111.1111')).toEqual(['payment_card']);
    expect(typesIn('card 4111\n1111\n1111\n1111')).toEqual(['payment_card']);
    expect(typesIn('card 4111\r\n1111\r\n1111\r\n1111')).toEqual(['payment_card']);
    expect(typesIn('pi 0.4111111111111111 and 4111111111111111.5')).toEqual([]);
  });
});

describe('JSON Web Tokens', () => {
  it('count where handed over as a credential', () => {
    expect(typesIn(`Authorization: Bearer ${JWT}`)).toEqual(['api_key']);
    expect(typesIn(`your token is ${JWT}`)).toEqual(['api_key']);
    expect(typesIn(`JWT=${JWT}`)).toEqual([]);
    expect(typesIn(`jwt: ${JWT}`)).toEqual(['api_key']);
  });

  it('do not count bare, in password-reset or in magic-link URLs', () => {
    expect(typesIn(`Here it is:\n${JWT}`)).toEqual([]);
    expect(typesIn(`Reset your password: https://app.example/reset?token=${JWT}`)).toEqual([]);
    expect(typesIn(`Sign in: https://app.example/magic-link/${JWT}`)).toEqual([]);
    expect(typesIn(`Sign in: https://app.example/auth#token=${JWT}`)).toEqual([]);
    expect(typesIn(`token: https://app.example/a/${JWT}`)).toEqual([]);
  });
});

describe('long digit runs', () => {
  it('reads 6 M characters of digits joined by spaces without throwing', () => {
    const text = '1 '.repeat(3_000_000);
    const found: string[] = [];
    expect(() => findPaymentCards(text, (value) => found.push(value))).not.toThrow();
    expect(found).toEqual([]);
    const withCard = `${'1 '.repeat(3_000_000)}x 4111 1111 1111 1111`;
    expect(typesIn(withCard)).toEqual(['payment_card']);
  });
});
