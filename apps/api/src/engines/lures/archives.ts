import { pbkdf2Sync } from 'node:crypto';

/**
 * Password-protected archives: what no scanner can look inside, sent with the password in the
 * message so the recipient opens what the gateway could not. Read from the archive's own headers
 * (nothing is decrypted or inflated): zip (traditional and AES encryption), 7-Zip with encrypted
 * headers, RAR 4 and 5.
 */

export interface EncryptedArchive {
  format: 'zip' | '7z' | 'rar';
  /** Names of encrypted entries, when the format shows them. */
  entries: string[];
  /** Whether a password opens it, for the zip encryptions that can tell without decrypting. */
  opensWith: (password: string) => boolean;
}

const MAX_ENTRIES = 1_000;

/** The archive's encryption, or null for an archive that is not encrypted (or not an archive). */
export function encryptedArchive(bytes: Uint8Array): EncryptedArchive | null {
  if (bytes.length < 32) return null;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.readUInt32LE(0) === 0x04034b50) return encryptedZip(buffer);
  if (buffer.subarray(0, 6).equals(Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])))
    return encrypted7z(buffer);
  if (buffer.subarray(0, 7).equals(Buffer.from('Rar!\x1a\x07\x00', 'latin1'))) return encryptedRar4(buffer);
  if (buffer.subarray(0, 8).equals(Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1')))
    return encryptedRar5(buffer);
  return null;
}

interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  time: number;
  localOffset: number;
}

/** The entries of a zip from its central directory, or from its local headers when that is damaged. */
function zipEntries(buffer: Buffer): ZipEntry[] {
  const entries: ZipEntry[] = [];
  const searchFrom = Math.max(0, buffer.length - 22 - 0xffff);
  const end = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end >= searchFrom && end + 22 <= buffer.length) {
    let at = buffer.readUInt32LE(end + 16);
    while (
      entries.length < MAX_ENTRIES &&
      at + 46 <= buffer.length &&
      buffer.readUInt32LE(at) === 0x02014b50
    ) {
      const nameLength = buffer.readUInt16LE(at + 28);
      entries.push({
        flags: buffer.readUInt16LE(at + 8),
        method: buffer.readUInt16LE(at + 10),
        time: buffer.readUInt16LE(at + 12),
        crc: buffer.readUInt32LE(at + 16),
        localOffset: buffer.readUInt32LE(at + 42),
        name: buffer.toString('utf8', at + 46, at + 46 + nameLength),
      });
      at += 46 + nameLength + buffer.readUInt16LE(at + 30) + buffer.readUInt16LE(at + 32);
    }
    if (entries.length > 0) return entries;
  }
  let at = 0;
  while (entries.length < MAX_ENTRIES && at + 30 <= buffer.length && buffer.readUInt32LE(at) === 0x04034b50) {
    const nameLength = buffer.readUInt16LE(at + 26);
    const entry = {
      flags: buffer.readUInt16LE(at + 6),
      method: buffer.readUInt16LE(at + 8),
      time: buffer.readUInt16LE(at + 10),
      crc: buffer.readUInt32LE(at + 14),
      localOffset: at,
      name: buffer.toString('utf8', at + 30, at + 30 + nameLength),
    };
    entries.push(entry);
    const size = buffer.readUInt32LE(at + 18);
    // A size written after the data (bit 3) leaves the next header unknown: stop at this one.
    if (entry.flags & 0x08) break;
    at += 30 + nameLength + buffer.readUInt16LE(at + 28) + size;
  }
  return entries;
}

/** Where an entry's data starts (after its local header), and its extra fields. */
function localData(buffer: Buffer, entry: ZipEntry): { data: number; extra: Buffer } | null {
  const at = entry.localOffset;
  if (at + 30 > buffer.length || buffer.readUInt32LE(at) !== 0x04034b50) return null;
  const nameLength = buffer.readUInt16LE(at + 26);
  const extraLength = buffer.readUInt16LE(at + 28);
  const data = at + 30 + nameLength + extraLength;
  return data <= buffer.length ? { data, extra: buffer.subarray(at + 30 + nameLength, data) } : null;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();
const crc32Byte = (crc: number, byte: number) => (CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8)) >>> 0;

/**
 * Whether `password` opens a traditionally encrypted zip entry: its 12-byte encryption header
 * decrypts to a last byte equal to the entry's CRC (or time, when sizes follow the data) high byte.
 * One wrong password in 256 passes this check, which is enough to say "the password given opens it".
 */
function zipCryptoOpens(header: Buffer, entry: ZipEntry, password: string): boolean {
  let k0 = 0x12345678;
  let k1 = 0x23456789;
  let k2 = 0x34567890;
  const update = (byte: number) => {
    k0 = crc32Byte(k0, byte);
    k1 = (Math.imul((k1 + (k0 & 0xff)) >>> 0, 134775813) + 1) >>> 0;
    k2 = crc32Byte(k2, k1 >>> 24);
  };
  for (const byte of Buffer.from(password, 'utf8')) update(byte);
  let last = 0;
  for (let i = 0; i < 12; i++) {
    const t = (k2 | 2) & 0xffff;
    last = header[i]! ^ ((Math.imul(t, t ^ 1) >>> 8) & 0xff);
    update(last);
  }
  if (last === entry.crc >>> 24) return true;
  return (entry.flags & 0x08) !== 0 && last === entry.time >>> 8;
}

/**
 * Whether `password` opens a WinZip AES entry: the 2-byte verifier stored after the salt equals
 * the one PBKDF2-HMAC-SHA1 (1,000 rounds) derives from the password.
 */
function aesOpens(buffer: Buffer, data: number, strength: number, password: string): boolean {
  const saltLength = [0, 8, 12, 16][strength];
  const keyLength = [0, 16, 24, 32][strength];
  if (!saltLength || !keyLength || data + saltLength + 2 > buffer.length) return false;
  const salt = buffer.subarray(data, data + saltLength);
  const derived = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, 1000, keyLength * 2 + 2, 'sha1');
  return derived.subarray(keyLength * 2).equals(buffer.subarray(data + saltLength, data + saltLength + 2));
}

/** The AES strength (1, 2, 3) of the 0x9901 extra field, or 0. */
function aesStrength(extra: Buffer): number {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (id === 0x9901 && size >= 7 && at + 4 + size <= extra.length) return extra[at + 4 + 4]!;
    at += 4 + size;
  }
  return 0;
}

function encryptedZip(buffer: Buffer): EncryptedArchive | null {
  const encrypted = zipEntries(buffer).filter((e) => e.flags & 0x01 || e.method === 99);
  if (encrypted.length === 0) return null;
  const probe = encrypted.find((e) => !e.name.endsWith('/'));
  return {
    format: 'zip',
    entries: encrypted.map((e) => e.name),
    opensWith(password) {
      if (!probe) return false;
      const local = localData(buffer, probe);
      if (!local) return false;
      if (probe.method === 99) return aesOpens(buffer, local.data, aesStrength(local.extra), password);
      if (local.data + 12 > buffer.length) return false;
      return zipCryptoOpens(buffer.subarray(local.data, local.data + 12), probe, password);
    },
  };
}

/** 7-Zip's AES-256 coder id, as it appears in a header that says how the next one is decoded. */
const SEVEN_ZIP_AES = Buffer.from([0x06, 0xf1, 0x07, 0x01]);

/**
 * A 7-Zip archive whose headers name the AES coder: the file list itself encrypted (`-mhe`), or
 * stored uncompressed with encrypted files. An archive whose file list is compressed and not
 * encrypted hides whether its files are; it is not reported.
 */
function encrypted7z(buffer: Buffer): EncryptedArchive | null {
  const offset = Number(buffer.readBigUInt64LE(12));
  const size = Number(buffer.readBigUInt64LE(20));
  const start = 32 + offset;
  if (!Number.isSafeInteger(start) || size <= 0 || size > 1024 * 1024 || start + size > buffer.length)
    return null;
  const header = buffer.subarray(start, start + size);
  return header.includes(SEVEN_ZIP_AES) ? { format: '7z', entries: [], opensWith: () => false } : null;
}

/** RAR 4: encrypted headers (main header flag 0x80) or encrypted files (file header flag 0x04). */
function encryptedRar4(buffer: Buffer): EncryptedArchive | null {
  const entries: string[] = [];
  let at = 7;
  for (let blocks = 0; blocks < MAX_ENTRIES && at + 7 <= buffer.length; blocks++) {
    const type = buffer[at + 2]!;
    const flags = buffer.readUInt16LE(at + 3);
    const headSize = buffer.readUInt16LE(at + 5);
    if (headSize < 7) break;
    if (type === 0x73 && flags & 0x0080) return { format: 'rar', entries: [], opensWith: () => false };
    let dataSize = 0;
    if (type === 0x74 && at + 32 <= buffer.length) {
      dataSize = buffer.readUInt32LE(at + 7);
      const nameSize = buffer.readUInt16LE(at + 26);
      if (flags & 0x0004)
        entries.push(buffer.toString('latin1', at + 32, Math.min(buffer.length, at + 32 + nameSize)));
    } else if (flags & 0x8000 && at + 11 <= buffer.length) dataSize = buffer.readUInt32LE(at + 7);
    at += headSize + dataSize;
  }
  return entries.length > 0 ? { format: 'rar', entries, opensWith: () => false } : null;
}

/** RAR 5 variable-length integer at `at`: its value and the bytes it took. */
function vint(buffer: Buffer, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 10 && at + i < buffer.length; i++) {
    value += (buffer[at + i]! & 0x7f) * 2 ** (7 * i);
    if (!(buffer[at + i]! & 0x80)) return [value, i + 1];
  }
  return [Number.NaN, 1];
}

/** RAR 5: an archive encryption header (type 4), or file headers with an encryption record. */
function encryptedRar5(buffer: Buffer): EncryptedArchive | null {
  const entries: string[] = [];
  let at = 8;
  for (let blocks = 0; blocks < MAX_ENTRIES && at + 7 <= buffer.length; blocks++) {
    const [headerSize, sizeBytes] = vint(buffer, at + 4);
    const start = at + 4 + sizeBytes;
    const end = start + headerSize;
    if (!Number.isFinite(headerSize) || headerSize <= 0 || end > buffer.length) break;
    let p = start;
    const [type, n1] = vint(buffer, p);
    p += n1;
    const [flags, n2] = vint(buffer, p);
    p += n2;
    let extraSize = 0;
    let dataSize = 0;
    if (flags & 0x01) {
      const [v, n] = vint(buffer, p);
      extraSize = v;
      p += n;
    }
    if (flags & 0x02) {
      const [v, n] = vint(buffer, p);
      dataSize = v;
      p += n;
    }
    if (type === 4) return { format: 'rar', entries: [], opensWith: () => false };
    if (type === 2 && extraSize > 0 && extraSize <= headerSize) {
      for (let r = end - extraSize; r < end; ) {
        const [recordSize, n] = vint(buffer, r);
        const [recordType] = vint(buffer, r + n);
        if (!Number.isFinite(recordSize) || recordSize <= 0) break;
        if (recordType === 1) {
          entries.push(fileName5(buffer, p));
          break;
        }
        r += n + recordSize;
      }
    }
    if (type === 5) break;
    at = end + dataSize;
  }
  return entries.length > 0 ? { format: 'rar', entries, opensWith: () => false } : null;
}

/** A RAR 5 file header's name, read from the file-specific fields at `p`. */
function fileName5(buffer: Buffer, p: number): string {
  let at = p;
  const [fileFlags, a] = vint(buffer, at);
  at += a;
  at += vint(buffer, at)[1]; // unpacked size
  at += vint(buffer, at)[1]; // attributes
  if (fileFlags & 0x02) at += 4; // modification time
  if (fileFlags & 0x04) at += 4; // CRC32
  at += vint(buffer, at)[1]; // compression information
  at += vint(buffer, at)[1]; // host OS
  const [nameLength, b] = vint(buffer, at);
  at += b;
  return buffer.toString('utf8', at, Math.min(buffer.length, at + nameLength));
}

/**
 * Words that introduce a password in the languages Moat's users write in (English, German, French,
 * Spanish, Italian, Portuguese, Dutch, Polish, Czech, the Nordic languages, Russian).
 */
const PASSWORD_WORD =
  /(?:\b(?:pass(?:word|code|phrase|wort|wd)|(?:pass|pin)(?=\s*(?:code\s*)?[:=])|pwd?|kennwort|mot de passe|mdp|code d['’]acc[eè]s|contrase[ñn]a|clave|senha|wachtwoord|has[łl]o|heslo|l[öo]senord|adgangskode|passord|salasana|parola d['’]ordine)(?![\p{L}\p{N}])|пароль)/iu;
/** What follows the word before the password itself ("is", "ist", "est", "es", a colon…). */
const CONNECTOR =
  /^(?:\s*(?:for (?:the )?(?:file|archive|attachment|zip|document)s?|f[üu]r (?:die |das |den )?(?:datei|archiv|anhang|dokument)|(?:du|de la|pour le|pour la) (?:fichier|archive|pi[eè]ce jointe|document)|(?:del|para el|para la) (?:archivo|adjunto|documento)))?\s*(?:(?:is|ist|lautet|est|es|[eè]|é|is:|=|:|-|–)\s*)+["'«“„]?\s*/iu;

/** Candidate passwords said in a message's text: the token after each password word. */
export function passwordsIn(text: string): { mentioned: boolean; candidates: string[] } {
  const candidates: string[] = [];
  let mentioned = false;
  const source = text.slice(0, 256 * 1024);
  const words = new RegExp(PASSWORD_WORD.source, 'giu');
  for (const match of source.matchAll(words)) {
    mentioned = true;
    const after = source.slice(match.index! + match[0].length, match.index! + match[0].length + 80);
    const connector = CONNECTOR.exec(after);
    if (!connector) continue;
    const token = /^[^\s"'«»“”„,;<>]{3,40}/u.exec(after.slice(connector[0].length))?.[0];
    if (token) candidates.push(token.replace(/[.!?:)]+$/u, ''));
    if (candidates.length >= 10) break;
  }
  return { mentioned, candidates: [...new Set(candidates)].filter((c) => c.length >= 3) };
}
