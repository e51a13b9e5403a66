import { unzipSync } from 'fflate';

/** A file's extension, lower-case, without the dot (`Report.PDF` → `pdf`); empty when it has none. */
export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot + 1).toLowerCase();
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: replacing them is the point
const CONTROL = /[\u0000-\u001f\u007f]/g;
/** Zero-width and direction characters: they hide or reorder what a name shows (`evil\u202etxt.exe`). */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** A file's name as shown in a finding: on one line, no invisible or direction characters, at most 200 characters. */
export function placeName(name: string): string {
  const clean = name.replace(CONTROL, ' ').replace(INVISIBLE, '').replace(/\s+/g, ' ').trim() || 'attachment';
  return clean.length <= 200 ? clean : `${clean.slice(0, 100)}…${clean.slice(-99)}`;
}

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Whether an OLE compound file holds a stream of this name (directory names are UTF-16LE). */
const holdsStream = (bytes: Uint8Array, name: string) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(Buffer.from(name, 'utf16le'));

/** What an OLE compound file is, by the streams it holds: Outlook message, Word, PowerPoint, Excel. */
function oleKind(bytes: Uint8Array): string {
  if (holdsStream(bytes, 'EncryptedPackage')) return 'ole';
  if (holdsStream(bytes, '__substg1.0_')) return 'msg';
  if (holdsStream(bytes, 'WordDocument')) return 'doc';
  if (holdsStream(bytes, 'PowerPoint Document')) return 'ppt';
  if (holdsStream(bytes, 'Workbook') || holdsStream(bytes, 'Book')) return 'xls';
  return 'ole';
}

/** The names a zip's central directory lists, read without inflating anything; null for a broken zip. */
export function zipNames(bytes: Uint8Array): string[] | null {
  const names: string[] = [];
  try {
    unzipSync(bytes, {
      filter: (file) => {
        names.push(file.name);
        return false;
      },
    });
    return names;
  } catch {
    return null;
  }
}

const OPEN_DOCUMENT: Record<string, string> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
};

/** What a zip is, by its entries: an Office document, an OpenDocument, a Java or Android package, or a zip. */
function zipKind(bytes: Uint8Array, names: string[]): string {
  if (names.includes('[Content_Types].xml')) {
    if (names.some((n) => n.startsWith('word/'))) return 'docx';
    if (names.some((n) => n.startsWith('xl/'))) return 'xlsx';
    if (names.some((n) => n.startsWith('ppt/'))) return 'pptx';
  }
  if (names[0] === 'mimetype') {
    // The OpenDocument type is the first entry, stored uncompressed right after its local header.
    const type = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 120))
      .toString('latin1', 38)
      .replace(/[^a-z./-].*$/s, '');
    if (OPEN_DOCUMENT[type]) return OPEN_DOCUMENT[type];
  }
  if (names.includes('AndroidManifest.xml')) return 'apk';
  if (names.includes('META-INF/MANIFEST.MF')) return 'jar';
  return 'zip';
}

/**
 * What the bytes are, whatever the name says: documents (pdf, docx, xlsx, pptx, odt…, doc, xls,
 * ppt, msg, rtf), archives (zip, 7z, rar, gz, bz2, xz, tar), executables (exe, elf), pictures
 * (png, jpeg, gif). Null when the content has no known signature (plain text, say).
 */
export function sniffKind(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString(
    'latin1',
  );
  if (head.includes('%PDF-')) return 'pdf';
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    return zipKind(bytes, zipNames(bytes) ?? []);
  }
  if (startsWith(bytes, OLE)) return oleKind(bytes);
  if (startsWith(bytes, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return '7z';
  if (head.startsWith('Rar!\x1a\x07')) return 'rar';
  if (startsWith(bytes, [0x1f, 0x8b])) return 'gz';
  if (head.startsWith('BZh')) return 'bz2';
  if (startsWith(bytes, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return 'xz';
  if (head.startsWith('ustar', 257)) return 'tar';
  if (head.startsWith('MZ')) return 'exe';
  if (head.startsWith('\x7fELF')) return 'elf';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (head.startsWith('GIF8')) return 'gif';
  if (head.startsWith('{\\rtf')) return 'rtf';
  return null;
}

/** Other names a tenant may list for a sniffed kind (`jpg` for `jpeg`, `dll` for a Windows executable). */
const KIND_NAMES: Record<string, string[]> = {
  jpeg: ['jpeg', 'jpg'],
  gz: ['gz', 'gzip', 'tgz'],
  exe: ['exe', 'dll'],
  tar: ['tar'],
};
export const namesOfKind = (kind: string) => KIND_NAMES[kind] ?? [kind];

const OFFICE_OPEN_XML = /\.(?:docx|docm|dotx|dotm|xlsx|xlsm|xlsb|xltx|pptx|pptm|ppsx|potx)$/i;

/**
 * An encrypted Office document: Office keeps an encrypted Word, Excel or PowerPoint file in an
 * OLE compound file with an `EncryptedPackage` stream, whatever its name says.
 */
export function encryptedOffice(filename: string, bytes: Uint8Array): boolean {
  if (!startsWith(bytes, OLE)) return false;
  return OFFICE_OPEN_XML.test(filename) || holdsStream(bytes, 'EncryptedPackage');
}
