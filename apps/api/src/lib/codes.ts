import { randomInt } from 'node:crypto';

/** A 6-digit code from the CSPRNG, leading zeros kept. */
export function newSixDigitCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}
