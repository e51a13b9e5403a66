import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The phishing corpus (issue 35): hand-made phishing and hard ham addressed to the tenant
 * `acme.example`, in two sets. `dev` may be read and tuned on; `eval` is only ever measured, so a
 * rule that works on it was not fitted to it. See README.md in this folder.
 */
export interface PhishingCorpusMessage {
  /** `dev/phish-01-brand-m365-lookalike`: the set and the file name without `.eml`. */
  id: string;
  set: 'dev' | 'eval';
  label: 'phishing' | 'ham';
  /** What kind of lure (or of look-alike legitimate mail) it is, from the file name. */
  kind: string;
  /** The message as it reaches the gateway: the corpus's own `X-Corpus-*` headers taken out. */
  raw: Buffer;
  /** The SPF, DKIM and DMARC results the sender would get for real (the benchmark passes them in). */
  auth: { spf: string; dkim: string; dmarc: string };
  /** The address of the host that hands the message to the gateway. */
  clientIp: string;
  /** One line: what the message is and which tells a reader should notice. */
  note: string;
  /** The envelope recipients. */
  rcptTo: string[];
}

/**
 * The recipient tenant every message is addressed to. `partners`: the domain it regularly
 * exchanges mail with (what a gateway learns from the tenant's mail flow); messages from it and
 * from look-alikes of it are in both sets.
 */
export const CORPUS_TENANT: {
  domains: string[];
  people: Array<{ name: string; email: string }>;
  vips: Array<{ name: string; emails: string[] }>;
  partners: string[];
} = {
  domains: ['acme.example'],
  people: [
    { name: 'Ana Lima', email: 'ana@acme.example' },
    { name: 'Ben Okafor', email: 'ben@acme.example' },
    { name: 'Carla Mendes', email: 'carla@acme.example' },
    { name: 'David Chen', email: 'david@acme.example' },
  ],
  vips: [
    { name: 'Carla Mendes', emails: ['carla@acme.example'] },
    { name: 'David Chen', emails: ['david@acme.example'] },
  ],
  partners: ['northwind-supplies.example'],
};

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const FILE_NAME = /^(phish|ham)-(\d{2,3})-([a-z0-9-]+)\.eml$/;
const AUTH_RESULT = /^(?:pass|fail|softfail|neutral|none|temperror|permerror)$/;

/**
 * The header block split into fields, each with its continuation lines, so the corpus fields can be
 * read and dropped without touching the rest of the message byte for byte.
 */
function splitHeader(raw: Buffer): { fields: string[]; body: Buffer } {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error('no blank line after the header');
  const fields: string[] = [];
  for (const line of raw.subarray(0, end).toString('latin1').split('\r\n')) {
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  return { fields, body: raw.subarray(end) };
}

const unfold = (field: string) =>
  field
    .slice(field.indexOf(':') + 1)
    .replace(/\r\n[ \t]+/g, ' ')
    .trim();

/** One message file, checked: a file that lacks a corpus field is an error, not a silent default. */
export function readCorpusFile(set: 'dev' | 'eval', file: string): PhishingCorpusMessage {
  const name = FILE_NAME.exec(file);
  if (!name) throw new Error(`${set}/${file}: the name must be phish-NN-<kind>.eml or ham-NN-<kind>.eml`);
  const { fields, body } = splitHeader(fs.readFileSync(path.join(ROOT, set, file)));
  const corpus = new Map<string, string>();
  const kept: string[] = [];
  for (const field of fields) {
    const key = field.slice(0, field.indexOf(':')).trim().toLowerCase();
    if (key.startsWith('x-corpus-')) corpus.set(key, unfold(field));
    else kept.push(field);
  }
  const need = (key: string) => {
    const value = corpus.get(key);
    if (!value) throw new Error(`${set}/${file}: missing ${key}`);
    return value;
  };
  const auth = Object.fromEntries(
    need('x-corpus-auth')
      .split(/\s+/)
      .map((pair) => pair.split('=') as [string, string]),
  );
  const result = (method: string) => {
    const value = auth[method] ?? '';
    if (!AUTH_RESULT.test(value)) throw new Error(`${set}/${file}: X-Corpus-Auth lacks ${method}=<result>`);
    return value;
  };
  return {
    id: `${set}/${file.replace(/\.eml$/, '')}`,
    set,
    label: name[1] === 'phish' ? 'phishing' : 'ham',
    kind: name[3] as string,
    raw: Buffer.concat([Buffer.from(kept.join('\r\n'), 'latin1'), body]),
    auth: { spf: result('spf'), dkim: result('dkim'), dmarc: result('dmarc') },
    clientIp: need('x-corpus-client-ip'),
    note: need('x-corpus-note'),
    rcptTo: need('x-corpus-rcpt-to')
      .split(',')
      .map((address) => address.trim().toLowerCase()),
  };
}

/** Every message of one set, in file-name order (the same on every machine). */
export function phishingCorpus(set: 'dev' | 'eval'): PhishingCorpusMessage[] {
  return fs
    .readdirSync(path.join(ROOT, set))
    .filter((file) => file.endsWith('.eml'))
    .sort()
    .map((file) => readCorpusFile(set, file));
}
