import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ServerKey } from '../../lib/server-key.ts';

/*
 * The token of a rewritten link (issue 36): one per message, recipient and link. It is the
 * message's inbound id, the tenant, the link's place and the recipient, sealed with AES-256-GCM
 * under a key of the server's own; the link's URL is the associated data. So the token tells
 * nothing to anyone without the key (the recipient is encrypted), and a changed token or URL
 * fails the 128-bit tag: the click endpoint never redirects where Moat did not write a link.
 */

/** The first character of every token: the format (and key) it was sealed with. */
const VERSION = 'a';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const UUID_BYTES = 16;
/** The longest recipient a token carries (an address is at most 254 characters). */
const MAX_RECIPIENT_BYTES = 320;
/** The shortest and longest token (base64url characters after the version). */
const MIN_TOKEN_CHARS = Math.ceil(((IV_BYTES + 2 * UUID_BYTES + 2 + 1 + TAG_BYTES) * 4) / 3);
const MAX_TOKEN_CHARS = Math.ceil(
  ((IV_BYTES + 2 * UUID_BYTES + 2 + MAX_RECIPIENT_BYTES + TAG_BYTES) * 4) / 3,
);
/** The longest URL Moat rewrites (longer ones are left as they are). */
export const MAX_REWRITTEN_URL = 4_096;

export interface LinkClaims {
  tenantId: string;
  /** The gateway's inbound id of the message. */
  inboundId: string;
  recipient: string;
  /** The link's place in the delivered copy, from 0. */
  index: number;
}

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidOf = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface LinkTokens {
  seal(claims: LinkClaims, url: string): string;
  /** The claims of a token for this URL; null when either was changed or is not Moat's. */
  open(token: string, url: string): LinkClaims | null;
}

export function createLinkTokens(serverKey: ServerKey): LinkTokens {
  const key = serverKey.derive('click-time-links');
  return {
    seal(claims, url) {
      if (!UUID.test(claims.tenantId) || !UUID.test(claims.inboundId)) throw new Error('not a uuid');
      const recipient = Buffer.from(claims.recipient, 'utf8');
      if (recipient.length === 0 || recipient.length > MAX_RECIPIENT_BYTES) throw new Error('bad recipient');
      const index = Buffer.alloc(2);
      index.writeUInt16BE(Math.min(claims.index, 0xffff));
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(url, 'utf8'));
      const body = Buffer.concat([
        cipher.update(
          Buffer.concat([uuidBytes(claims.tenantId), uuidBytes(claims.inboundId), index, recipient]),
        ),
        cipher.final(),
      ]);
      return VERSION + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(token, url) {
      if (token[0] !== VERSION || token.length < MIN_TOKEN_CHARS || token.length > MAX_TOKEN_CHARS + 1)
        return null;
      if (!/^[A-Za-z0-9_-]+$/.test(token.slice(1)) || url.length > MAX_REWRITTEN_URL) return null;
      const sealed = Buffer.from(token.slice(1), 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(url, 'utf8'));
        decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return {
          tenantId: uuidOf(plain.subarray(0, UUID_BYTES)),
          inboundId: uuidOf(plain.subarray(UUID_BYTES, 2 * UUID_BYTES)),
          index: plain.readUInt16BE(2 * UUID_BYTES),
          recipient: plain.subarray(2 * UUID_BYTES + 2).toString('utf8'),
        };
      } catch {
        return null;
      }
    },
  };
}
