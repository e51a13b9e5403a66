import { z } from 'zod/mini';

/**
 * DKIM signing (issue 38): Moat's own key per tenant domain, the record to publish for it, and
 * whether mail from the domain is signed. Admins only; the same service as `tenant:dkim`.
 */
export const DKIM_SIGNING_API = {
  /** GET every domain's signing keys, the records to publish, whether DNS shows them, signing on or off. */
  list: '/api/v1/dkim-signing',
  /** POST a new key for a domain (`algorithm`), when it has none of that kind. */
  keys: '/api/v1/dkim-signing/:domain/keys',
  /** PUT `{ enabled }`: sign the domain's mail, or stop. */
  signing: '/api/v1/dkim-signing/:domain/signing',
  /** POST: start a rotation (a next key at a new selector, published before it signs). */
  rotate: '/api/v1/dkim-signing/:domain/rotate',
  /** POST: finish it (the next key signs; the old one stays published for mail in flight). */
  finishRotation: '/api/v1/dkim-signing/:domain/rotate/finish',
} as const;

export const DKIM_ALGORITHMS = ['rsa-sha256', 'ed25519-sha256'] as const;
export type DkimAlgorithm = (typeof DKIM_ALGORITHMS)[number];

/** `active` signs; `pending` is a rotation's next key; `retired` signed before the rotation. */
export const DKIM_KEY_STATES = ['pending', 'active', 'retired'] as const;
export type DkimKeyState = (typeof DKIM_KEY_STATES)[number];

/** What DNS shows at the key's name: this key, another key, nothing, or no answer. */
export const DKIM_PUBLISHED = ['yes', 'other', 'no', 'unknown'] as const;
export type DkimPublished = (typeof DKIM_PUBLISHED)[number];

/** RSA keys Moat makes are this long (RFC 8301 asks for at least 1024; 2048 is today's norm). */
export const DKIM_RSA_BITS = 2048;
/** A retired key's record stays published this long after the rotation, for mail in flight. */
export const DKIM_KEEP_RETIRED_DAYS = 7;

export const dkimSigningKeySchema = z.object({
  selector: z.string(),
  algorithm: z.enum(DKIM_ALGORITHMS),
  bits: z.number(),
  state: z.enum(DKIM_KEY_STATES),
  /** The TXT record's name: `<selector>._domainkey.<domain>`. */
  recordName: z.string(),
  /** Its value, as one string (DNS hosts split it into 255-character pieces themselves). */
  recordValue: z.string(),
  published: z.enum(DKIM_PUBLISHED),
  createdAt: z.string(),
  activatedAt: z.nullable(z.string()),
  retiredAt: z.nullable(z.string()),
  /** A retired key: from this day its record may be removed (ISO date). */
  removeAfter: z.nullable(z.string()),
});
export type DkimSigningKey = z.infer<typeof dkimSigningKeySchema>;

export const dkimSigningDomainSchema = z.object({
  domain: z.string(),
  /** Mail from this domain (or its subdomains) through Moat is signed. */
  enabled: z.boolean(),
  keys: z.array(dkimSigningKeySchema),
  /** What an admin should know now, in words (a key not yet visible in DNS, say). */
  warnings: z.array(z.string()),
});
export type DkimSigningDomain = z.infer<typeof dkimSigningDomainSchema>;

export const dkimSigningResponseSchema = z.object({
  domains: z.array(dkimSigningDomainSchema),
});
export type DkimSigningResponse = z.infer<typeof dkimSigningResponseSchema>;

export const dkimDomainParamsSchema = z.object({ domain: z.string().check(z.maxLength(253)) });

export const dkimNewKeySchema = z.object({
  algorithm: z._default(z.enum(DKIM_ALGORITHMS), 'rsa-sha256'),
});
export const dkimRotateSchema = z.object({
  algorithm: z._default(z.enum(DKIM_ALGORITHMS), 'rsa-sha256'),
});
export const dkimSigningSwitchSchema = z.object({ enabled: z.boolean() });

/** One domain after a change, with the warnings the change raised. */
export const dkimSigningChangeResponseSchema = dkimSigningDomainSchema;
