import { ONE_TIME_CODE_LENGTH } from '@moat/contracts/constants';
import type { FieldMessage } from './use-form';

/** What a code field keeps of the typed or pasted text: digits only, at most the code length (SPEC §5). */
export function sanitizeCode(value: string): string {
  return value.replace(/\D/g, '').slice(0, ONE_TIME_CODE_LENGTH);
}

/** A one-time or emailed code: required, and exactly ONE_TIME_CODE_LENGTH digits. */
export function codeError(code: string): FieldMessage | undefined {
  if (!code) return { key: 'validation.code_required' };
  if (!new RegExp(`^\\d{${ONE_TIME_CODE_LENGTH}}$`).test(code)) {
    return { key: 'validation.code_length', values: { length: ONE_TIME_CODE_LENGTH } };
  }
  return undefined;
}
