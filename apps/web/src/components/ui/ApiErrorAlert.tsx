import { Alert, Text } from '@mantine/core';
import { messageKeyOf } from '../../lib/error-messages';
import { isApiError } from '../../lib/http';
import type { TranslationKey } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';

interface ApiErrorMessageProps {
  error: unknown;
  /** Overrides the code's message (e.g. the sign-in form's "invalid email or password"). */
  messageKey?: TranslationKey;
  /**
   * Adds the server's own text of a 4xx answer, which carries the reason (SPEC §8: reset-password
   * and password-expired errors show the server message).
   */
  showServerMessage?: boolean;
}

/** The translated message of a failed call, the server's reason if asked for, and its reference. */
export function ApiErrorMessage({ error, messageKey, showServerMessage = false }: ApiErrorMessageProps) {
  const { t } = useTranslation();
  const message = t(messageKey ?? messageKeyOf(error));
  const serverMessage =
    showServerMessage &&
    isApiError(error) &&
    error.status >= 400 &&
    error.status < 500 &&
    error.message &&
    error.message !== message
      ? error.message
      : null;
  return (
    <>
      <Text size="sm">{message}</Text>
      {serverMessage && <Text size="sm">{serverMessage}</Text>}
      {isApiError(error) && error.reqId && (
        <Text size="xs" c="dimmed">
          {t('errors.referenceId', { reqId: error.reqId })}
        </Text>
      )}
    </>
  );
}

/** A failed call as an alert in a form or page. */
export function ApiErrorAlert({ title, ...message }: ApiErrorMessageProps & { title?: string }) {
  return (
    <Alert color="red" variant="light" title={title} role="alert">
      <ApiErrorMessage {...message} />
    </Alert>
  );
}
