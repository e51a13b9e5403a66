import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from './constants.ts';
import { PUBLIC_EMAIL_PATTERN } from './public-actions.ts';

export { PUBLIC_EMAIL_PATTERN } from './public-actions.ts';

/** A mail domain: labels of letters, digits and hyphens, ending in two or more letters. */
export const DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .regex(PUBLIC_EMAIL_PATTERN, 'invalid_email')
  .transform((value) => value.toLowerCase());

export const domainSchema = z.string().trim().toLowerCase().regex(DOMAIN_PATTERN, 'invalid_domain');

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, 'password_too_short')
  .max(1024, 'password_too_long');

export function domainOfEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return email.slice(at + 1).toLowerCase();
}

/** PostgreSQL text cannot hold NUL: such input is refused as invalid (400), never stored (500). */
export const noNul = (value: string) => !value.includes('\u0000');
