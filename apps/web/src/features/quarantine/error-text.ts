import { messageKeyOf } from '../../lib/error-messages';
import { isApiError } from '../../lib/http';
import type { TFunction } from '../../lib/i18n';

/** The words of a failed decision: the server's reason for a 4xx (e.g. "already declined"), else the code's message. */
export function decisionErrorText(t: TFunction, error: unknown): string {
  if (isApiError(error) && error.status >= 400 && error.status < 500 && error.message) return error.message;
  return t(messageKeyOf(error));
}
