import { z } from 'zod/mini';
import { PASSWORD_MIN_LENGTH } from './constants.ts';
import { PUBLIC_EMAIL_PATTERN } from './public-actions.ts';

export { PUBLIC_EMAIL_PATTERN } from './public-actions.ts';

/** A mail domain: labels of letters, digits and hyphens, ending in two or more letters. */
export const DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const emailSchema = z.pipe(
  z.string().check(z.trim(), z.maxLength(254), z.regex(PUBLIC_EMAIL_PATTERN, 'invalid_email')),
  z.transform((value) => value.toLowerCase()),
);

export const domainSchema = z
  .string()
  .check(z.trim(), z.toLowerCase(), z.regex(DOMAIN_PATTERN, 'invalid_domain'));

export const passwordSchema = z
  .string()
  .check(z.minLength(PASSWORD_MIN_LENGTH, 'password_too_short'), z.maxLength(1024, 'password_too_long'));

export function domainOfEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return email.slice(at + 1).toLowerCase();
}

/** PostgreSQL text cannot hold NUL: such input is refused as invalid (400), never stored (500). */
export const noNul = (value: string) => !value.includes('\u0000');
