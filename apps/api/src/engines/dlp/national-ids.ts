import { luhnValid } from './checks.ts';
import { isDigit, isWordChar, type Report } from './detector.ts';
import { maskAllBut } from './mask.ts';

/**
 * Whether the match at [start, end) is part of something longer: glued to letters or digits, or
 * joined to more digits by one separator (`01 123 45 6789`, `123-45-6789-2`).
 */
function partOfLonger(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  const after = text[end];
  if (isWordChar(before) || isWordChar(after)) return true;
  if (before !== undefined && ' -./'.includes(before) && isDigit(text[start - 2])) return true;
  if (after !== undefined && ' -./'.includes(after) && isDigit(text[end + 1])) return true;
  return false;
}

/** Words just before a number written with spaces that make it a phone number, not an identifier. */
const PHONE_WORDS =
  /\b(?:tel|tél|phone|fax|mobile?|mob|cell|call|ph|m[oó]vil|tel[eé]fono|tfno|tlf|whatsapp|handy|portable)\b/i;
const afterPhoneWord = (text: string, start: number) =>
  PHONE_WORDS.test(text.slice(Math.max(0, start - 24), start));

/** A keyword this close before a bare nine-digit number makes the number count. */
const NEAR = 30;
const BARE_NINE = new RegExp(`^\\D{0,${NEAR}}?(\\d{9})(?!\\d)`);

/** The bare nine-digit numbers that follow one of the keywords closely. */
function bareNineAfter(text: string, keywords: RegExp, found: (digits: string) => void): void {
  for (const keyword of text.matchAll(keywords)) {
    const from = keyword.index + keyword[0].length;
    const number = BARE_NINE.exec(text.slice(from, from + NEAR + 10));
    if (number) found(number[1]!);
  }
}

/** Numbers the Social Security Administration never issues, famous from advertising. */
const SSN_NEVER_ISSUED = new Set(['078051120', '219099999']);
const SSN = /(\d{3})([- ])(\d{2})\2(\d{4})/g;
const SSN_WORDS = /\b(?:ssns?|ss#|ss no|social security|soc\.? ?sec)(?![a-z])/gi;

/** An area that is not 000, 666 or 900–999, a group that is not 00, a serial that is not 0000. */
function ssnValid(digits: string): boolean {
  const area = Number(digits.slice(0, 3));
  return (
    area !== 0 &&
    area !== 666 &&
    area < 900 &&
    digits.slice(3, 5) !== '00' &&
    digits.slice(5) !== '0000' &&
    !SSN_NEVER_ISSUED.has(digits)
  );
}

/** US Social Security numbers: `AAA-GG-SSSS` (dashes or spaces), or nine bare digits after "SSN". */
export function findUsSsns(text: string, report: Report): void {
  const found = (digits: string) => {
    if (ssnValid(digits)) report(digits, `***-**-${digits.slice(5)}`);
  };
  for (const match of text.matchAll(SSN)) {
    const end = match.index + match[0].length;
    if (partOfLonger(text, match.index, end)) continue;
    if (match[2] === ' ' && afterPhoneWord(text, match.index)) continue;
    found(match[1]! + match[3]! + match[4]!);
  }
  bareNineAfter(text, SSN_WORDS, found);
}

const SIN = /(\d{3})([- ])(\d{3})\2(\d{3})/g;
const SIN_WORDS = /\b(?:SIN|NAS|[Ss]ocial [Ii]nsurance|[Aa]ssurance [Ss]ociale)\b/g;

/** Canadian Social Insurance Numbers: `123-456-782` or nine bare digits after "SIN"; Luhn, not 0… or 8…. */
export function findCaSins(text: string, report: Report): void {
  const found = (digits: string) => {
    if (digits[0] !== '0' && digits[0] !== '8' && luhnValid(digits)) {
      report(digits, `***-***-${digits.slice(6)}`);
    }
  };
  for (const match of text.matchAll(SIN)) {
    const end = match.index + match[0].length;
    if (partOfLonger(text, match.index, end) || afterPhoneWord(text, match.index)) continue;
    found(match[1]! + match[3]! + match[4]!);
  }
  bareNineAfter(text, SIN_WORDS, found);
}

/**
 * UK National Insurance numbers: two prefix letters (neither D, F, I, Q, U nor V, the second not
 * O, and not a prefix kept out of use), six digits (maybe in pairs), a suffix A to D.
 */
const NINO = /([A-CEGHJ-PR-TW-Z])([A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])/g;
const NINO_UNUSED_PREFIXES = new Set(['BG', 'GB', 'NK', 'KN', 'TN', 'NT', 'ZZ']);

export function findUkNinos(text: string, report: Report): void {
  for (const match of text.matchAll(NINO)) {
    const prefix = match[1]! + match[2]!;
    if (NINO_UNUSED_PREFIXES.has(prefix)) continue;
    if (partOfLonger(text, match.index, match.index + match[0].length)) continue;
    report(prefix + match[3]! + match[4]! + match[5]! + match[6]!, `${prefix} ** ** ** ${match[6]!}`);
  }
}

/** The DNI check letter: the number's remainder by 23 indexes this table. */
const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
/** A DNI (8 digits, maybe dotted `12.345.678`) or an NIE (X, Y or Z and 7 digits), then the letter. */
const DNI = /(?:([XYZ])-?(\d{7})|(\d{8})|(\d{2})\.(\d{3})\.(\d{3}))-?([A-Z])/g;

/** Spanish DNI and NIE numbers whose check letter is right. */
export function findEsDnis(text: string, report: Report): void {
  for (const match of text.matchAll(DNI)) {
    if (partOfLonger(text, match.index, match.index + match[0].length)) continue;
    const [, nie, nieDigits, plain, a, b, c, letter] = match;
    const digits = nie ? nieDigits! : (plain ?? `${a}${b}${c}`);
    const number = Number(nie ? `${'XYZ'.indexOf(nie)}${digits}` : digits);
    if (DNI_LETTERS[number % 23] !== letter) continue;
    const compact = (nie ?? '') + digits + letter;
    report(compact, maskAllBut(compact, 2));
  }
}

/**
 * French social security numbers (NIR): sex 1 or 2, year, month (01–12, or the 20–99 codes of
 * unknown months), department (two digits, or 2A/2B for Corsica, counted as 19 and 18 in the key),
 * commune, order, then the key 97 − (the first 13 digits mod 97). Spaces as usually grouped.
 */
const NIR = /([12]) ?(\d{2}) ?(0[1-9]|1[0-2]|[2-9]\d) ?(\d{2}|2[AB]) ?(\d{3}) ?(\d{3}) ?(\d{2})/g;

export function findFrNirs(text: string, report: Report): void {
  for (const match of text.matchAll(NIR)) {
    if (partOfLonger(text, match.index, match.index + match[0].length)) continue;
    const [, sex, year, month, department, commune, order, key] = match;
    const numeric = department!.replace('2A', '19').replace('2B', '18');
    const number = Number(`${sex}${year}${month}${numeric}${commune}${order}`);
    if (97 - (number % 97) !== Number(key)) continue;
    const compact = `${sex}${year}${month}${department}${commune}${order}${key}`;
    report(compact, maskAllBut(compact, 4));
  }
}
