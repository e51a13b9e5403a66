import { z } from 'zod/mini';
import { EXCEPTION_LISTS, normalizeExceptionValue } from './exceptions.ts';

/**
 * Every user's own allow and block list of senders (issue 12, SPEC §6): addresses and domains the
 * gateway holds (block) or lets through past the spam check (allow) for mail to that user only.
 * The organisation's block list and known malware or phishing always win over it.
 */
export const MY_SENDERS_API = {
  /** GET the signed-in user's entries, POST one (a value already there moves to the other list). */
  entries: '/api/v1/my_senders',
  /** DELETE one of the user's own entries. */
  entry: '/api/v1/my_senders/:id',
} as const;

export const MY_SENDER_LISTS = EXCEPTION_LISTS;
export type MySenderList = (typeof MY_SENDER_LISTS)[number];
export const MY_SENDER_KINDS = ['sender', 'domain'] as const;
export type MySenderKind = (typeof MY_SENDER_KINDS)[number];

/** Entries one person may have. */
export const MY_SENDERS_MAX = 500;

const NOT_A_SENDER = 'Enter an email address (name@example.com) or a domain (example.com)';

/**
 * The stored form of a personal entry: an email address (lower-case, its domain in punycode) or a
 * domain (punycode, a leading `*.` dropped), decided by whether it has an `@`; or why it is
 * neither. The web checks a value as it is typed with the same function.
 */
/**
 * Mail providers anyone can have an address at: allowing one of these domains would let every
 * one of their users past the spam check (each passes DMARC), so only an address there is allowed;
 * and a brand or an executive never writes from one (anti-phishing).
 */
export const SHARED_MAIL_DOMAINS = [
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'zoho.com',
  'qq.com',
  '163.com',
  '126.com',
  'mac.com',
  'pm.me',
  'tutanota.com',
  'tuta.io',
  'zohomail.com',
  'inbox.com',
  'hushmail.com',
  'fastmail.com',
  'laposte.net',
  'orange.fr',
  'libero.it',
  'rediffmail.com',
] as const;

export function normalizeMySender(
  raw: string,
): { ok: true; kind: MySenderKind; value: string } | { ok: false; message: string } {
  const value = raw.trim();
  if (value === '') return { ok: false, message: NOT_A_SENDER };
  const kind: MySenderKind = value.includes('@') ? 'sender' : 'domain';
  const checked = normalizeExceptionValue(kind, value);
  if (!checked.ok) return { ok: false, message: value.length > 254 ? checked.message : NOT_A_SENDER };
  return { ok: true, kind, value: checked.value };
}

export const mySenderSchema = z
  .object({
    id: z.string(),
    list: z.enum(MY_SENDER_LISTS),
    kind: z.enum(MY_SENDER_KINDS),
    value: z.string(),
    created_at: z.string(),
  })
  .register(z.globalRegistry, { id: 'MySender' });
export type MySender = z.infer<typeof mySenderSchema>;

export const mySenderListSchema = z
  .object({ items: z.array(mySenderSchema), total: z.int(), max: z.int() })
  .register(z.globalRegistry, { id: 'MySenderList' });
export type MySenderListResponse = z.infer<typeof mySenderListSchema>;

export const addMySenderBodySchema = z
  .strictObject({
    list: z.enum(MY_SENDER_LISTS),
    /** An email address or a domain; normalised by the server (normalizeMySender). */
    value: z.string().check(z.maxLength(2_000)),
  })
  .register(z.globalRegistry, { id: 'AddMySender' });
export type AddMySenderBody = z.infer<typeof addMySenderBodySchema>;

export const mySenderIdParamsSchema = z.object({ id: z.uuid() });

export const deleteMySenderResultSchema = z.object({ deleted: z.literal(true) });
