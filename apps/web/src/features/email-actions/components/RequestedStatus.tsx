import { RESTORE_POLL_INTERVAL_MS } from '@moat/contracts/constants';
import { useEffect } from 'react';
import { Message } from '../../../components/public/ui';
import { isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import { t } from '../../../lib/public-texts';
import { type ActionParams, messageIdOf } from '../action-params';
import { getRestoreStatus } from '../api/get-restore-status';
import type { Outcome } from '../flow-types';

/**
 * A request waiting for the admin (SPEC §4 "Restore flow"): says the admin received it and polls
 * the status every RESTORE_POLL_INTERVAL_MS (SPEC §9) until restored or declined, or a 404 (the
 * message is gone), which it hands to `onSettled`. A failed poll is tried again at the next tick.
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
  useEffect(() => {
    const abort = new AbortController();
    let timer: number | undefined;
    const poll = async () => {
      let settled: Outcome | null = null;
      try {
        const { status } = await getRestoreStatus(params.type, messageIdOf(params), abort.signal);
        if (status === 'restored') settled = { type: 'restored' };
        else if (status === 'declined') settled = { type: 'declined' };
      } catch (error) {
        if (isApiError(error) && error.status === 404) {
          settled = { type: 'failed', reason: 'notFound', message: { key: notFoundKey } };
        }
      }
      if (abort.signal.aborted) return;
      if (settled) onSettled(settled);
      else timer = window.setTimeout(poll, RESTORE_POLL_INTERVAL_MS);
    };
    void poll();
    return () => {
      abort.abort();
      window.clearTimeout(timer);
    };
  }, [params, notFoundKey, onSettled]);

  return (
    <Message tone="info">
      <p>{t(requestedKey)}</p>
      <p className="dimmed small">{t('emailActions.waitingForAdmin')}</p>
    </Message>
  );
}
