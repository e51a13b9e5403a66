/** Check-digit algorithms of the numbers DLP recognises. */

/** Luhn (mod 10): doubling every second digit from the right, the digits' sum is a multiple of 10. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * ISO 7064 mod 97-10 as IBANs use it: the first four characters moved to the end, letters read
 * as 10 to 35, the number's remainder by 97 is 1 (computed piece by piece: it has ~30 digits).
 */
export function mod97Valid(compact: string): boolean {
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i);
    const value = code <= 57 ? code - 48 : code - 55;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder === 1;
}

/** Whether every character of the value is the same one (`0000…`, `1111…`): test filler, not data. */
export const allSame = (value: string) => value.length > 0 && value.split('').every((c) => c === value[0]);
