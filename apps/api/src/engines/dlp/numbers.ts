import { allSame, luhnValid, mod97Valid } from './checks.ts';
import { isDigit, isWordChar, type Report } from './detector.ts';
import { maskEnds } from './mask.ts';

/**
 * Runs of digits joined by single separators (space, dash, dot, tab, line break), holding at least the
 * fourteen digits the shortest card has, found by one forward walk (no backtracking, no stack:
 * any length of run is safe). Each run is reported with where it starts and ends.
 */
function digitRuns(text: string, found: (start: number, end: number) => void): void {
  // Fourteen digits with single separators between: a bounded pattern (no deep backtracking) to
  // find where a run starts; the rest of the run is walked by hand.
  const start14 = /\d(?:(?:\r\n|[ .\t\n-])?\d){13}/g;
  for (let match = start14.exec(text); match; match = start14.exec(text)) {
    const start = match.index;
    let end = start + match[0].length;
    while (end < text.length) {
      if (isDigit(text[end])) {
        end++;
        continue;
      }
      const gap = separatorAt(text, end);
      if (gap > 0 && isDigit(text[end + gap])) end += gap;
      else break;
    }
    found(start, end);
    start14.lastIndex = end;
  }
}

/** The length of the group separator at `at` (`\r\n` counting two), 0 when none. */
function separatorAt(text: string, at: number): number {
  const ch = text[at];
  if (ch === ' ' || ch === '-' || ch === '.' || ch === '\n' || ch === '\t') return 1;
  return ch === '\r' && text[at + 1] === '\n' ? 2 : 0;
}

/** Runs longer than this are read in overlapping windows: no card spans more than 64 characters. */
const RUN_WINDOW = 4_096;
const RUN_OVERLAP = 64;

/**
 * Whether a card number of this length can start with these digits (the card schemes' issuer
 * ranges). Visa's 13-digit numbers are no longer issued and Maestro's 12 to 15 are rare, while
 * 13-digit runs are mostly EAN-13 barcodes on invoices and order lists: neither is accepted.
 */
export function cardBrandFits(digits: string): boolean {
  const length = digits.length;
  const two = Number(digits.slice(0, 2));
  const three = Number(digits.slice(0, 3));
  const four = Number(digits.slice(0, 4));
  const from16to19 = length >= 16 && length <= 19;
  if (digits[0] === '4') return length === 16 || length === 19; // Visa
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return length === 16; // Mastercard
  if (two === 34 || two === 37) return length === 15; // American Express
  if (four >= 3528 && four <= 3589) return from16to19; // JCB
  if (two === 36 || two === 38 || two === 39 || (three >= 300 && three <= 305) || four === 3095) {
    return length >= 14 && length <= 19; // Diners Club
  }
  // Discover (6011, 644–649, 65), UnionPay (62) and Maestro (50, 56–69).
  if (two === 50 || (two >= 56 && two <= 69)) return from16to19;
  return false;
}

const cardValid = (digits: string) =>
  digits.length >= 14 &&
  digits.length <= 19 &&
  !allSame(digits) &&
  cardBrandFits(digits) &&
  luhnValid(digits);

/**
 * Whether the run stands on its own: not glued to letters (`x4111…`, a hex code), not the
 * fraction or the whole part of a decimal number, not a phone number written with its `+`.
 */
function standsAlone(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  const after = text[end];
  if (isWordChar(before) || isWordChar(after) || before === '+') return false;
  if ((before === '.' || before === ',') && isDigit(text[start - 2])) return false;
  if ((after === '.' || after === ',') && isDigit(text[end + 1])) return false;
  return true;
}

/**
 * The card numbers of one run: a group of 14 to 19 digits on its own, or groups written the way
 * cards are (a first group of four, then groups of three to six, one kind of separator:
 * 4-4-4-4, 4-6-5, 4-4-4-4-3). Groups around it may be other numbers: an expiry month, a CVV.
 */
function cardsInRun(run: string, report: Report): void {
  const parts = run.split(/(\r\n|[ .\n\t-])/);
  for (let i = 0; i < parts.length; i += 2) {
    const first = parts[i]!;
    if (first.length >= 14) {
      // A long group beside a dot is a decimal's whole or fractional part, not a card.
      if (parts[i - 1] !== '.' && parts[i + 1] !== '.' && cardValid(first)) report(first, maskEnds(first));
      continue;
    }
    if (first.length !== 4) continue;
    let digits = first;
    for (let j = i + 2; j < parts.length; j += 2) {
      const group = parts[j]!;
      if (parts[j - 1] !== parts[i + 1] || group.length < 3 || group.length > 6) break;
      digits += group;
      if (digits.length > 19) break;
      if (cardValid(digits)) {
        report(digits, maskEnds(digits));
        i = j;
        break;
      }
    }
  }
}

/** Payment card numbers: a known issuer range, the length of its scheme, the Luhn check digit right. */
export function findPaymentCards(text: string, report: Report): void {
  digitRuns(text, (start, end) => {
    if (!standsAlone(text, start, end)) return;
    if (end - start <= RUN_WINDOW) {
      cardsInRun(text.slice(start, end), report);
      return;
    }
    // A very long run, in windows that start and end on a digit group's edge (a value found twice
    // in the overlap counts once: counting is by distinct value).
    for (let at = start; at < end; ) {
      let stop = Math.min(end, at + RUN_WINDOW);
      while (stop < end && isDigit(text[stop])) stop++;
      cardsInRun(text.slice(at, stop), report);
      if (stop >= end) break;
      let next = Math.max(at + 1, stop - RUN_OVERLAP);
      while (next < stop && isDigit(text[next - 1])) next++;
      while (next < stop && !isDigit(text[next])) next++;
      at = next;
    }
  });
}

/** IBAN lengths by country (the IBAN registry): SEPA and the other countries that issue them. */
// biome-ignore format: a table reads better in rows
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28,
  CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18,
  FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22,
  IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18,
  NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31,
  SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29,
  VA: 22, VG: 24, XK: 20, YE: 30,
};

/**
 * A country code and check digits, then up to 32 letters or digits, each maybe after one space.
 * Bounded and never failing once started: each candidate costs at most ~70 steps.
 */
const IBAN_CANDIDATE = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,32}/g;

/**
 * The IBAN at the start of a candidate: exactly its country's length of characters, spaces only
 * between groups of four, not running on into more letters or digits. Returns its compact form
 * and how many characters of the candidate it took.
 */
function ibanAt(candidate: string): { compact: string; used: number } | null {
  const length = IBAN_LENGTHS[candidate.slice(0, 2)];
  if (!length) return null;
  let compact = '';
  let used = 0;
  for (; used < candidate.length && compact.length < length; used++) {
    const ch = candidate[used]!;
    if (ch !== ' ') compact += ch;
    else if (compact.length % 4 !== 0) return null;
  }
  if (compact.length < length || (used < candidate.length && candidate[used] !== ' ')) return null;
  return { compact, used };
}

/** IBANs: a known country, its length, the mod-97 check 1. */
export function findIbans(text: string, report: Report): void {
  const candidates = new RegExp(IBAN_CANDIDATE.source, 'g');
  for (let match = candidates.exec(text); match; match = candidates.exec(text)) {
    const iban = ibanAt(match[0]);
    const end = match.index + (iban?.used ?? 0);
    if (iban && !/[A-Za-z0-9]/.test(text[end] ?? '') && mod97Valid(iban.compact)) {
      report(iban.compact, maskEnds(iban.compact));
      candidates.lastIndex = end;
    } else {
      // The candidate may have swallowed the start of a real IBAN ("REF AB12 DE89 …"): look again.
      candidates.lastIndex = match.index + 1;
    }
  }
}
