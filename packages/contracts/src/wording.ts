import { z } from 'zod/mini';

/**
 * An organisation's own wording that Moat puts into mail it sends or delivers (a warning banner,
 * a notice's subject and introduction, the answer a reporter gets): plain words only. Markup is
 * refused, and so is anything a mail program would turn into a link (a web address, a host name,
 * an email address): the only links in Moat's mail are the ones Moat makes itself.
 */

/** Why a text cannot be used, as the API's field errors name it (the console translates each). */
export const WORDING_PROBLEMS = [
  'wording_too_long',
  'wording_markup',
  'wording_link',
  'wording_placeholder',
] as const;
export type WordingProblem = (typeof WORDING_PROBLEMS)[number];

// Dots a mail program reads as dots: ASCII, ideographic, full-width and half-width ideographic.
const DOT = '[.\\u3002\\uff0e\\uff61]';
const LINKISH = new RegExp(
  [
    // A scheme: https://, ftp://, and the ones that need no slashes.
    String.raw`[a-z][a-z0-9+.-]*:\/\/`,
    String.raw`\b(?:mailto|javascript|vbscript|data|file|tel|sms|callto|skype):`,
    String.raw`\\\\`,
    `\\bwww${DOT}`,
    // An address: anything@host.
    `[^\\s@\\uff20]+[@\\uff20][^\\s@\\uff20]+${DOT}[^\\s]+`,
    // A host name (labels ending in two letters or more) or an IPv4 address.
    `\\b(?:[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]*[\\p{L}\\p{N}])?${DOT})+\\p{L}{2,}\\b`,
    `\\b\\d{1,3}(?:${DOT}\\d{1,3}){3}\\b`,
  ].join('|'),
  'iu',
);

/**
 * The problem of a text an organisation wrote for its mail, or null: at most `max` characters,
 * on one line, no control characters, no < or >, nothing a mail program would make a link of,
 * and no {placeholder} other than the `placeholders` given.
 */
export function wordingProblem(
  text: string,
  max: number,
  placeholders: readonly string[] = [],
): WordingProblem | null {
  if (text.length > max) return 'wording_too_long';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f<>]/.test(text)) return 'wording_markup';
  if (LINKISH.test(text)) return 'wording_link';
  for (const match of text.matchAll(/\{([^{}]*)\}/g)) {
    if (!placeholders.includes(match[1]!)) return 'wording_placeholder';
  }
  if (/[{}]/.test(text.replace(/\{[^{}]*\}/g, ''))) return 'wording_placeholder';
  return null;
}

/** `template` with each {name} replaced by its value (values are put in as they are: plain text). */
export function fillWording(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * A wording field of a settings body: trimmed, then refused with its problem's name as the
 * field error's message (the console translates it) when `wordingProblem` finds one.
 */
export const wordingSchema = (max: number, placeholders: readonly string[] = []) =>
  z.string().check(
    z.trim(),
    z.superRefine((text, ctx) => {
      const problem = wordingProblem(text, max, placeholders);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, input: text });
    }),
  );
