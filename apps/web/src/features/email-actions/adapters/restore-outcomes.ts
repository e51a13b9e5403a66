import { isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import type { RestoreAnswer } from '../api/answers';
import type { Outcome } from '../flow-types';

/** What a restore answer means for the page (SPEC §4 "Restore flow"). */
export function outcomeOfRestoreAnswer(answer: RestoreAnswer): Outcome {
  if (answer.attempts_left !== undefined) return { type: 'wrongCode', attemptsLeft: answer.attempts_left };
  switch (answer.status) {
    case 'restored':
      return { type: 'restored' };
    case 'requested':
    case 'approved':
      return { type: 'requested' };
    case 'declined':
      return { type: 'declined' };
    case 'quarantined':
      return { type: 'requestForm' };
    default: {
      const unhandled: never = answer.status;
      throw new Error(`Unknown restore status ${String(unhandled)}`);
    }
  }
}

/**
 * A failed restore call (SPEC §8): 404 not found, 405 not restorable, 400 the server's message,
 * 403 the recipient must verify first; a network error or anything else: unknown error.
 */
export function outcomeOfRestoreError(
  error: unknown,
  texts: { notFound: TranslationKey; notRestorable: TranslationKey },
): Outcome {
  if (isApiError(error)) {
    if (error.status === 404) return { type: 'failed', reason: 'notFound', message: { key: texts.notFound } };
    if (error.status === 405) {
      return { type: 'failed', reason: 'notRestorable', message: { key: texts.notRestorable } };
    }
    if (error.status === 403) return { type: 'verifyFirst' };
    if (error.status === 400 && error.message) {
      return { type: 'failed', reason: 'badRequest', message: { text: error.message } };
    }
  }
  return { type: 'failed', reason: 'unknown', message: { key: 'emailActions.unknownError' } };
}

/**
 * Runs a restore call and turns its answer or failure into an outcome. `automatic`: the POST with
 * an empty message of a page that needs no identification; when the server wants a message after
 * all (a 400 on the commentary), the request form shows.
 */
export async function restoreOutcome(
  call: () => Promise<RestoreAnswer>,
  texts: { notFound: TranslationKey; notRestorable: TranslationKey },
  { automatic = false }: { automatic?: boolean } = {},
): Promise<Outcome> {
  try {
    return outcomeOfRestoreAnswer(await call());
  } catch (error) {
    if (automatic && isApiError(error) && error.status === 400 && error.code === 'validation_error') {
      return { type: 'requestForm' };
    }
    return outcomeOfRestoreError(error, texts);
  }
}
