/**
 * A detector reports each match it finds in a text: `value` tells matches apart (the same card
 * written twice is one value; it never leaves the detector's caller), `sample` is the match as it
 * may be shown, masked.
 */
export type Report = (value: string, sample: string) => void;
export type Detector = (text: string, report: Report) => void;

const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** Letters, digits and `_` around a match say it is part of a longer word or code, not a value of its own. */
export const isWordChar = (ch: string | undefined) => ch !== undefined && WORD_CHAR.test(ch);
export const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';

/** How many ASCII digits the text holds, up to `enough` (detectors of numbers skip texts with too few). */
export function countDigits(text: string, enough: number): number {
  let count = 0;
  for (let i = 0; i < text.length && count < enough; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) count++;
  }
  return count;
}
