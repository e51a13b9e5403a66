import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { DKIM_RSA_BITS, type DkimAlgorithm, type DkimPublished } from '@moat/contracts/dkim-signing';
import { parseTags } from '../dmarc/dkim.ts';

const generate = promisify(generateKeyPair);

/** A new key: the private half as PKCS#8 PEM, the public half as the record's p= value. */
export interface GeneratedKey {
  privatePem: string;
  publicKey: string;
  bits: number;
}

/**
 * A new signing key, made in libuv's thread pool (an RSA 2048 key takes ~0.1–1 s: never on the
 * event loop). RSA: p= is the SubjectPublicKeyInfo, as OpenDKIM and every receiver read it;
 * Ed25519: p= is the bare 32-byte key (RFC 8463 §4.2).
 */
export async function generateSigningKey(algorithm: DkimAlgorithm): Promise<GeneratedKey> {
  if (algorithm === 'ed25519-sha256') {
    const { privateKey, publicKey } = await generate('ed25519');
    return { privatePem: pem(privateKey), publicKey: ed25519Raw(publicKey), bits: 256 };
  }
  const { privateKey, publicKey } = await generate('rsa', { modulusLength: DKIM_RSA_BITS });
  return {
    privatePem: pem(privateKey),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    bits: DKIM_RSA_BITS,
  };
}

const pem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The last 32 bytes of an Ed25519 SubjectPublicKeyInfo are the key itself. */
function ed25519Raw(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return der.subarray(der.length - 32).toString('base64');
}

/** The TXT record to publish for a key, as one string. */
export function recordValue(algorithm: DkimAlgorithm, publicKey: string): string {
  return `v=DKIM1; k=${algorithm === 'ed25519-sha256' ? 'ed25519' : 'rsa'}; p=${publicKey}`;
}

/**
 * What the TXT records at a key's name say about it: `yes` when one of them carries exactly this
 * public key, `other` when a DKIM record with another key is there, `no` when none is.
 */
export function publishedState(records: string[][], publicKey: string): Exclude<DkimPublished, 'unknown'> {
  let other = false;
  for (const strings of records) {
    const parsed = parseTags(strings.join('').replaceAll('"', ''));
    const p = parsed?.tags.get('p');
    if (p === undefined) continue;
    if (p.replace(/\s+/g, '') === publicKey) return 'yes';
    other = true;
  }
  return other ? 'other' : 'no';
}
