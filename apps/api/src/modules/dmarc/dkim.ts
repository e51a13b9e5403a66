import { createHash, createPublicKey } from 'node:crypto';
import {
  DKIM_LIMITS,
  type DkimKey,
  type DkimKeyType,
  type DkimLookup,
  type DkimPlan,
  type DkimProblem,
  type DkimProblemCode,
  type DkimRotateReason,
  type DkimRotation,
  type DkimSeverity,
  type DkimStep,
} from '@moat/contracts/dmarc';

/**
 * DKIM keys (RFC 6376 §3.6.1, RFC 8301, RFC 8463), checked ahead of any mail: a selector's key
 * record parsed, its key type and size read, its problems named in plain words, and a rotation
 * plan computed for a domain's keys. Pure but for the injected resolver.
 */

/** A TXT look-up as node's `resolve(name, 'TXT')` answers it: each record an array of strings. */
export type DkimResolver = (name: string) => Promise<string[][]>;

/** The selectors asked of DNS for every domain, so a domain without reports still shows its keys. */
export const COMMON_SELECTORS = [
  'google',
  'selector1',
  'selector2',
  'k1',
  's1',
  's2',
  'default',
  'dkim',
  'mail',
] as const;

/** A selector as DNS can carry it: labels of letters, digits, `-` and `_` (RFC 6376 §3.1). */
export function validSelector(selector: string): boolean {
  if (selector.length === 0 || selector.length > 63 * 3) return false;
  return selector
    .split('.')
    .every((label) => /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(label));
}

/** Where a selector's key is published. */
export const keyName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;

// ---------------------------------------------------------------------------------------------
// Words

const SEVERITY: Record<DkimProblemCode, DkimSeverity> = {
  no_record: 'error',
  lookup_failed: 'warning',
  syntax: 'error',
  bad_version: 'error',
  duplicate_tag: 'error',
  no_key_tag: 'error',
  unknown_key_type: 'error',
  bad_key: 'error',
  key_type_mismatch: 'error',
  revoked: 'info',
  revoked_in_use: 'error',
  rsa_too_short: 'error',
  rsa_weak: 'warning',
  pkcs1_key: 'warning',
  sha1_only: 'warning',
  not_for_email: 'error',
  testing: 'warning',
  multiple_records: 'error',
  split_wrong: 'error',
  no_key: 'warning',
  ed25519_only: 'warning',
  failing: 'warning',
};

/** A problem with its severity and its words. */
export function dkimProblem(
  code: DkimProblemCode,
  domain: string,
  selector: string | null,
  count: number | null = null,
): DkimProblem {
  const name = selector ? keyName(selector, domain) : domain;
  const said: Record<DkimProblemCode, string> = {
    no_record: `Mail is signed with the selector ${selector}, but ${name} publishes no DKIM key: receivers fail DKIM for that mail. Publish the key, or stop signing with this selector.`,
    lookup_failed: `Could not look up ${name}: DNS gave no answer. Check again in a moment.`,
    syntax: `The record at ${name} is not a valid DKIM key record (tags written as tag=value, separated by semicolons): receivers cannot use it.`,
    bad_version: `The record at ${name} does not start with v=DKIM1 (or says another version): receivers ignore it.`,
    duplicate_tag: `The record at ${name} has a tag twice; receivers treat the record as invalid. Keep one of each.`,
    no_key_tag: `The record at ${name} has no p= tag (the public key): receivers cannot verify with it.`,
    unknown_key_type: `The record at ${name} names a key type receivers do not know (k=). Use k=rsa (or k=ed25519 beside an RSA key).`,
    bad_key: `The public key at ${name} (p=) cannot be read: it is not valid base64 or not a key of its type. It may have been cut short when pasted; publish it again in full.`,
    key_type_mismatch: `The record at ${name} says k=rsa but holds another kind of key (or the other way round): receivers fail DKIM.`,
    revoked: `The key at ${name} is revoked (empty p=): mail signed with it fails DKIM. Once no mail uses it any more, remove the record.`,
    revoked_in_use: `The key at ${name} is revoked (empty p=), but mail is still signed with it: that mail fails DKIM. Switch signing to the current key.`,
    rsa_too_short: `The RSA key at ${name} is only ${count} bits: receivers ignore signatures made with keys under ${DKIM_LIMITS.minRsaBits} bits, so this mail is as good as unsigned. Rotate to a 2048-bit key now.`,
    rsa_weak: `The RSA key at ${name} is ${count} bits: weak by today's standards. Rotate to a ${DKIM_LIMITS.goodRsaBits}-bit key.`,
    pkcs1_key: `The key at ${name} is published as a bare RSA key (PKCS#1) rather than the usual SubjectPublicKeyInfo: some receivers (OpenDKIM among them) cannot read it. Publish the "BEGIN PUBLIC KEY" form.`,
    sha1_only: `The record at ${name} allows only SHA-1 (h=sha1): receivers no longer accept SHA-1 signatures (RFC 8301). Sign with rsa-sha256 and remove h= (or write h=sha256).`,
    not_for_email: `The record at ${name} is limited to other services (s=): receivers may not use it for email. Remove s= or write s=email.`,
    testing: `The key at ${name} is in testing mode (t=y): receivers may treat failing mail as unsigned. Remove t=y once signing works.`,
    multiple_records: `${name} publishes ${count} DKIM records: receivers may pick either one, so DKIM passes or fails at random. Keep one.`,
    split_wrong: `The record at ${name} looks split wrongly: a long key is published as several strings of ONE TXT record, joined without spaces or quotes. Here it holds quotes, or the key is in separate records. Publish it again as one record.`,
    no_key: `No DKIM key found for ${domain}: not in the reports, not in mail through Moat, not at the usual selectors. Without DKIM, DMARC rests on SPF alone and fails whenever mail is forwarded. Publish a key and sign your mail.`,
    ed25519_only: `${domain} publishes only Ed25519 keys: many receivers cannot verify them yet. Sign with an RSA 2048-bit key as well.`,
    failing: `Only ${count}% of the mail signed with ${selector} passed DKIM in the reports: check that the key published at ${name} is the one your service signs with.`,
  };
  return { code, severity: SEVERITY[code], selector, count, message: said[code] };
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** A key record's tags (RFC 6376 §3.2): names lower case, values trimmed; null when not a tag-list. */
export function parseTags(text: string): { tags: Map<string, string>; duplicate: boolean } | null {
  const tags = new Map<string, string>();
  let duplicate = false;
  const parts = text.split(';');
  for (const [index, part] of parts.entries()) {
    if (part.trim() === '') {
      // A trailing semicolon is allowed; an empty tag in the middle is not.
      if (index === parts.length - 1 || part === '') continue;
      return null;
    }
    const at = part.indexOf('=');
    if (at < 0) return null;
    const name = part.slice(0, at).trim();
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) return null;
    const key = name.toLowerCase();
    if (tags.has(key)) duplicate = true;
    else tags.set(key, part.slice(at + 1).trim());
  }
  return { tags, duplicate };
}

/** What a key's bytes are: its type and size, and whether it is written as PKCS#1. */
export function readKey(
  declared: string,
  base64: string,
): { type: DkimKeyType; bits: number | null; pkcs1: boolean; error: 'bad_key' | 'key_type_mismatch' | null } {
  const bytes =
    /^[A-Za-z0-9+/]*={0,2}$/.test(base64) && base64.length % 4 === 0 ? Buffer.from(base64, 'base64') : null;
  if (!bytes || bytes.length === 0)
    return { type: declared === 'ed25519' ? 'ed25519' : 'rsa', bits: null, pkcs1: false, error: 'bad_key' };
  if (declared === 'ed25519') {
    // RFC 8463: the bare 32 bytes of the public key.
    if (bytes.length === 32) return { type: 'ed25519', bits: 256, pkcs1: false, error: null };
    const spki = spkiOf(bytes);
    if (spki?.type === 'rsa')
      return { type: 'rsa', bits: spki.bits, pkcs1: false, error: 'key_type_mismatch' };
    return { type: 'ed25519', bits: null, pkcs1: false, error: 'bad_key' };
  }
  const spki = spkiOf(bytes);
  if (spki?.type === 'rsa') return { type: 'rsa', bits: spki.bits, pkcs1: false, error: null };
  if (spki) return { type: 'rsa', bits: null, pkcs1: false, error: 'key_type_mismatch' };
  try {
    const key = createPublicKey({ key: bytes, format: 'der', type: 'pkcs1' });
    const bits = key.asymmetricKeyDetails?.modulusLength ?? null;
    return { type: 'rsa', bits, pkcs1: true, error: null };
  } catch {
    if (bytes.length === 32) return { type: 'rsa', bits: null, pkcs1: false, error: 'key_type_mismatch' };
    return { type: 'rsa', bits: null, pkcs1: false, error: 'bad_key' };
  }
}

function spkiOf(bytes: Buffer): { type: string; bits: number | null } | null {
  try {
    const key = createPublicKey({ key: bytes, format: 'der', type: 'spki' });
    return {
      type: key.asymmetricKeyType ?? 'unknown',
      bits: key.asymmetricKeyDetails?.modulusLength ?? null,
    };
  } catch {
    return null;
  }
}

/** A record read as DKIM: looks like one (v=DKIM1, or a p= tag). */
const looksDkim = (text: string) => /^\s*v\s*=\s*DKIM1\b/i.test(text) || /(^|;)\s*p\s*=/i.test(text);
/** Base64 alone (a piece of a key published as a record of its own). */
const looksBase64 = (text: string) => /^[A-Za-z0-9+/=\s]{40,}$/.test(text);

/** One selector's key as found: the record parsed, the key read, its problems. */
export interface CheckedKey {
  lookup: DkimLookup;
  key: DkimKey | null;
  /** The key's fingerprint (SHA-256 of its bytes, hex): the same key wherever it is seen. */
  hash: string | null;
  problems: DkimProblem[];
}

/**
 * The TXT records at a selector's name, checked: none that is DKIM is `none`; several are a
 * problem (the first is read); each tag and the key itself checked.
 */
export function checkKeyRecords(records: string[][], domain: string, selector: string): CheckedKey {
  const texts = records.map((strings) => strings.join(''));
  const dkim = texts.filter(looksDkim);
  const problems: DkimProblem[] = [];
  const say = (code: DkimProblemCode, count: number | null = null) =>
    problems.push(dkimProblem(code, domain, selector, count));
  if (dkim.length === 0) return { lookup: 'none', key: null, hash: null, problems };
  if (dkim.length > 1) say('multiple_records', dkim.length);
  const pieces = texts.filter((text) => !looksDkim(text) && looksBase64(text));
  const record = dkim[0]!;
  if (record.includes('"') || pieces.length > 0) say('split_wrong');

  const key: DkimKey = {
    record,
    type: 'unknown',
    bits: null,
    revoked: false,
    testing: false,
    strict: false,
    hashes: [],
    notes: '',
  };
  const parsed = parseTags(record.replaceAll('"', ''));
  if (!parsed) {
    say('syntax');
    return { lookup: 'found', key, hash: null, problems };
  }
  const { tags, duplicate } = parsed;
  if (duplicate) say('duplicate_tag');
  const version = tags.get('v');
  const firstTag = record.replaceAll('"', '').split('=')[0]!.trim().toLowerCase();
  if (version !== undefined && (version !== 'DKIM1' || firstTag !== 'v')) say('bad_version');
  key.hashes = listOf(tags.get('h'));
  key.notes = tags.get('n') ?? '';
  const flags = listOf(tags.get('t'));
  key.testing = flags.includes('y');
  key.strict = flags.includes('s');
  const services = listOf(tags.get('s'));
  if (services.length > 0 && !services.includes('*') && !services.includes('email')) say('not_for_email');
  if (key.hashes.length > 0 && !key.hashes.includes('sha256')) say('sha1_only');
  if (key.testing) say('testing');

  const declared = (tags.get('k') ?? 'rsa').toLowerCase();
  if (declared !== 'rsa' && declared !== 'ed25519') {
    say('unknown_key_type');
    return { lookup: 'found', key, hash: null, problems: sorted(problems) };
  }
  key.type = declared;
  const p = tags.get('p');
  if (p === undefined) {
    say('no_key_tag');
    return { lookup: 'found', key, hash: null, problems: sorted(problems) };
  }
  const base64 = p.replace(/\s+/g, '');
  if (base64 === '') {
    key.revoked = true;
    say('revoked');
    return { lookup: 'found', key, hash: null, problems: sorted(problems) };
  }
  const read = readKey(declared, base64);
  key.type = read.type;
  key.bits = read.bits;
  if (read.error) say(read.error);
  if (read.pkcs1) say('pkcs1_key');
  if (!read.error && read.type === 'rsa' && read.bits !== null) {
    if (read.bits < DKIM_LIMITS.minRsaBits) say('rsa_too_short', read.bits);
    else if (read.bits < DKIM_LIMITS.goodRsaBits) say('rsa_weak', read.bits);
  }
  const hash = read.error === 'bad_key' ? null : createHash('sha256').update(base64).digest('hex');
  return { lookup: 'found', key, hash, problems: sorted(problems) };
}

const listOf = (value: string | undefined) =>
  (value ?? '')
    .split(':')
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v !== '');

const ORDER: Record<DkimSeverity, number> = { error: 0, warning: 1, info: 2 };
export const sorted = (problems: DkimProblem[]) =>
  [...problems].sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);

/** Look-up answers that mean "no such record" rather than "no answer". */
const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

/** A selector's key, looked up now and checked; a failed look-up says so. */
export async function lookupKey(
  resolver: DkimResolver,
  domain: string,
  selector: string,
): Promise<CheckedKey> {
  try {
    const records = await resolver(keyName(selector, domain));
    return checkKeyRecords(Array.isArray(records) ? records : [], domain, selector);
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (NO_RECORDS.has(code)) return { lookup: 'none', key: null, hash: null, problems: [] };
    return {
      lookup: 'failed',
      key: null,
      hash: null,
      problems: [dkimProblem('lookup_failed', domain, selector)],
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The rotation plan

/** A selector of a domain's, as the plan sees it. */
export interface PlannedSelector {
  selector: string;
  key: DkimKey | null;
  /** When the key now published was first seen (reports, mail or DNS). */
  keyFirstSeen: Date | null;
}

const DAY = 86_400_000;
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** The next selector's name: the number at its end counted on (s1 → s2), else a 2 added; never one in use. */
export function nextSelector(selector: string, taken: Iterable<string>): string {
  const used = new Set([...taken].map((s) => s.toLowerCase()));
  const match = /^(.*?)(\d+)$/.exec(selector);
  const base = match ? match[1]! : selector;
  let n = match ? Number(match[2]) + 1 : 2;
  while (used.has(`${base}${n}`.toLowerCase())) n += 1;
  return `${base}${n}`;
}

/** Why a key is to be rotated now; null: it is not due. */
function dueBecause(s: PlannedSelector, now: Date): DkimRotateReason | null {
  const key = s.key;
  if (!key || key.revoked) return null;
  if (key.bits === null) return key.type === 'unknown' ? null : 'unreadable';
  if (key.type === 'rsa' && key.bits < DKIM_LIMITS.minRsaBits) return 'too_short';
  if (key.type === 'rsa' && key.bits < DKIM_LIMITS.goodRsaBits) return 'weak';
  if (s.keyFirstSeen && now.getTime() - s.keyFirstSeen.getTime() >= DKIM_LIMITS.rotateAfterDays * DAY)
    return 'old';
  return null;
}

/** The record a new key is published as (its public key is the signing service's to fill in). */
const newKeyRecord = (type: DkimKeyType) =>
  type === 'ed25519'
    ? 'v=DKIM1; k=ed25519; p=<the new public key>'
    : 'v=DKIM1; k=rsa; p=<the new public key>';

/** The steps of one rotation, with the exact names to publish at. */
export function rotationSteps(domain: string, from: string, to: string, type: DkimKeyType): DkimStep[] {
  const oldName = keyName(from, domain);
  const k = type === 'ed25519' ? 'ed25519' : 'rsa';
  return [
    { code: 'publish', name: keyName(to, domain), value: newKeyRecord(type), days: null },
    { code: 'switch', name: keyName(to, domain), value: null, days: null },
    { code: 'keep', name: oldName, value: null, days: DKIM_LIMITS.keepOldDays },
    { code: 'revoke', name: oldName, value: `v=DKIM1; k=${k}; p=`, days: null },
    { code: 'remove', name: oldName, value: null, days: DKIM_LIMITS.removeAfterDays },
  ];
}

/**
 * A domain's rotation plan: each key that is too short, weak, unreadable or older than six
 * months rotated to a new 2048-bit key at a new selector; with no key, the first one to publish;
 * otherwise nothing due until the oldest key turns six months.
 */
export function rotationPlan(domain: string, selectors: PlannedSelector[], now: Date): DkimPlan {
  const live = selectors.filter((s) => s.key && !s.key.revoked);
  if (live.length === 0) {
    const unpublished = selectors.find((s) => !s.key)?.selector;
    const taken = selectors.map((s) => s.selector);
    const first = unpublished ?? (taken.includes('s1') ? nextSelector('s1', taken) : 's1');
    return {
      status: 'publish',
      rotations: [],
      publish: { code: 'publish', name: keyName(first, domain), value: newKeyRecord('rsa'), days: null },
      nextRotation: null,
      nextSelector: null,
    };
  }
  const taken = new Set(selectors.map((s) => s.selector));
  const rotations: DkimRotation[] = [];
  for (const s of live) {
    const reason = dueBecause(s, now);
    if (!reason) continue;
    const to = nextSelector(s.selector, taken);
    taken.add(to);
    // A weak or broken key becomes RSA 2048; an old good key keeps its type.
    const type = reason === 'old' && s.key?.type === 'ed25519' ? 'ed25519' : 'rsa';
    rotations.push({
      selector: s.selector,
      newSelector: to,
      reason,
      bits: s.key?.bits ?? null,
      keyFirstSeen: s.keyFirstSeen?.toISOString() ?? null,
      steps: rotationSteps(domain, s.selector, to, type),
    });
  }
  const dated = live
    .filter((s) => !rotations.some((r) => r.selector === s.selector))
    .map((s) => ({ s, since: s.keyFirstSeen ?? now }))
    .sort((a, b) => a.since.getTime() - b.since.getTime());
  const oldest = dated[0];
  const readable = live.some((s) => s.key?.bits !== null);
  return {
    status: rotations.length > 0 ? 'rotate' : readable ? 'none_due' : 'unknown',
    rotations,
    publish: null,
    nextRotation: oldest
      ? isoDay(new Date(oldest.since.getTime() + DKIM_LIMITS.rotateAfterDays * DAY))
      : null,
    nextSelector: oldest?.s.selector ?? null,
  };
}
