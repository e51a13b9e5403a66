import { Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import { type ActionParams, messageIdOf } from '../action-params';
import { useRestoreStatus } from '../api/get-restore-status';
import type { Outcome } from '../flow-types';
import { ResultMessage } from './ResultMessage';

/**
 * A request waiting for the admin (SPEC §4 "Restore flow"): says the admin received it and polls
 * the status every 2 s until restored or declined, which it hands to `onSettled`.
 */
export function RequestedStatus({
  params,
  requestedKey,
  notFoundKey,
  onSettled,
}: {
  params: ActionParams;
  requestedKey: TranslationKey;
  notFoundKey: TranslationKey;
  onSettled: (outcome: Outcome) => void;
}) {
  const { t } = useTranslation();
  const status = useRestoreStatus(params.type, messageIdOf(params));
  const current = status.data?.status;
  const gone = isApiError(status.error) && status.error.status === 404;

  useEffect(() => {
    if (current === 'restored') onSettled({ type: 'restored' });
    else if (current === 'declined') onSettled({ type: 'declined' });
    else if (gone) onSettled({ type: 'failed', reason: 'notFound', message: { key: notFoundKey } });
  }, [current, gone, notFoundKey, onSettled]);

  return (
    <ResultMessage tone="info">
      <Stack gap="xs">
        <Text>{t(requestedKey)}</Text>
        <Text size="sm" c="dimmed">
          {t('emailActions.waitingForAdmin')}
        </Text>
      </Stack>
    </ResultMessage>
  );
}
