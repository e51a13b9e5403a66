import { z } from 'zod/mini';
import type { FieldError } from './error-codes.ts';
import { normalizeExceptionValue } from './exceptions.ts';

/**
 * Security Settings → Exceptions → Anti-Phishing, "Protected people (VIPs)" (issue 35): the people
 * of a tenant an attacker would pose as — executives, finance, HR. Mail from outside whose display
 * name is one of these names, sent from an address that is not one of theirs, is held as
 * impersonation. Admins only.
 */
export const VIPS_API = {
  /** GET every VIP of the tenant, POST a new one. */
  entries: '/api/v1/vips',
  /** PUT (replace name and addresses) or DELETE one VIP. */
  entry: '/api/v1/vips/:id',
} as const;

export const VIP_NAME_MIN = 3;
export const VIP_NAME_MAX = 100;
/** The real addresses one VIP may have (work, an alias, a second domain…). */
export const VIP_EMAILS_MAX = 5;
/** VIPs one tenant may have: every message's display name is compared with each of them. */
export const VIPS_MAX = 500;

/** A name as stored and compared: trimmed, runs of spaces made one. */
export function cleanVipName(raw: string): string {
  return raw.trim().replace(/\s+/g, ' ');
}

/**
 * A VIP as typed, checked and normalised (the name tidied, each address lower-case with its
 * domain in punycode, repeats dropped), or every reason it cannot be one, by field
 * (`name`, `emails`, `emails.<i>`). The web checks the form with the same function.
 */
export function checkVip(input: {
  name: string;
  emails: readonly string[];
}): { ok: true; name: string; emails: string[] } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const name = cleanVipName(input.name);
  if (/\p{Cc}/u.test(name)) {
    errors.push({ field: 'name', message: 'The name must not contain control characters' });
  } else if (name.length < VIP_NAME_MIN) {
    errors.push({ field: 'name', message: `Enter a name of at least ${VIP_NAME_MIN} characters` });
  } else if (name.length > VIP_NAME_MAX) {
    errors.push({ field: 'name', message: `A name has at most ${VIP_NAME_MAX} characters` });
  } else if (!/\p{L}/u.test(name)) {
    errors.push({ field: 'name', message: 'Enter a person’s name, with letters' });
  }
  const emails: string[] = [];
  const typed = input.emails.map((e) => e.trim()).filter((e) => e !== '');
  if (typed.length > VIP_EMAILS_MAX) {
    errors.push({ field: 'emails', message: `At most ${VIP_EMAILS_MAX} addresses per person` });
  }
  input.emails.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const checked = normalizeExceptionValue('sender', raw);
    if (!checked.ok) errors.push({ field: `emails.${i}`, message: checked.message });
    else if (!emails.includes(checked.value)) emails.push(checked.value);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, name, emails };
}

export const vipSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** The addresses this person really writes from; mail in their name from any other is suspect. */
    emails: z.array(z.string()),
    /** The admin's email, or `cli`. */
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .register(z.globalRegistry, { id: 'Vip' });
export type Vip = z.infer<typeof vipSchema>;

export const vipListSchema = z
  .object({ items: z.array(vipSchema), total: z.int(), max: z.int() })
  .register(z.globalRegistry, { id: 'VipList' });
export type VipListResponse = z.infer<typeof vipListSchema>;

/** A VIP to add, or the whole of one to replace; checked and normalised by the server (checkVip). */
export const vipBodySchema = z
  .strictObject({
    name: z.string().check(z.maxLength(1_000)),
    /** Up to VIP_EMAILS_MAX addresses; may be empty (a name alone is protected from every sender). */
    emails: z._default(z.array(z.string().check(z.maxLength(2_000))).check(z.maxLength(50)), []),
  })
  .register(z.globalRegistry, { id: 'VipBody' });
export type VipBody = z.input<typeof vipBodySchema>;

export const vipIdParamsSchema = z.object({ id: z.uuid() });

export const deleteVipResultSchema = z.object({ deleted: z.literal(true) });
