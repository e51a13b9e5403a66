import { useNotify } from '../../components/ui/Notifications';
import { useTranslation } from '../../lib/i18n';
import { useApproveRestoreRequest } from './api/approve-restore-request';
import { useDecideRestoreRequests } from './api/bulk-restore-requests';
import { useDeclineRestoreRequest } from './api/decline-restore-request';
import { decisionErrorText } from './error-text';

/** A decision waiting for its confirmation: approve or decline these requests. */
export interface PendingDecision {
  action: 'approve' | 'decline';
  ids: string[];
}

/**
 * Approves or declines restore requests, one (its own call) or several (the bulk call), and tells
 * the outcome in a notification. `onDone` runs after a call that reached the server.
 */
export function useRequestDecisions() {
  const { t } = useTranslation();
  const notify = useNotify();
  const approve = useApproveRestoreRequest();
  const decline = useDeclineRestoreRequest();
  const bulk = useDecideRestoreRequests();

  const failed = (action: PendingDecision['action'], error: unknown) =>
    notify({
      tone: 'error',
      title: t(action === 'approve' ? 'quarantine.notify.approveFailed' : 'quarantine.notify.declineFailed'),
      message: decisionErrorText(t, error),
    });

  const decide = ({ action, ids }: PendingDecision, reason: string | undefined, onDone: () => void) => {
    if (ids.length === 1 && ids[0]) {
      const id = ids[0];
      const options = {
        onSuccess: () => {
          notify({
            tone: 'success',
            title: t(action === 'approve' ? 'quarantine.notify.approved' : 'quarantine.notify.declined', {
              count: 1,
            }),
          });
          onDone();
        },
        onError: (error: unknown) => failed(action, error),
      };
      if (action === 'approve') approve.mutate(id, options);
      else decline.mutate({ id, reason: reason ?? '' }, options);
      return;
    }
    bulk.mutate(
      { ids, action, ...(action === 'decline' ? { reason } : {}) },
      {
        onSuccess: ({ results }) => {
          const done = results.filter((result) => !result.error).length;
          const errors = results.filter((result) => result.error);
          if (done > 0) {
            notify({
              tone: 'success',
              title: t(action === 'approve' ? 'quarantine.notify.approved' : 'quarantine.notify.declined', {
                count: done,
              }),
            });
          }
          if (errors.length > 0) {
            notify({
              tone: 'error',
              title: t('quarantine.notify.someFailed', { count: errors.length }),
              message: [...new Set(errors.map((result) => result.error))].join(' '),
            });
          }
          onDone();
        },
        onError: (error) => failed(action, error),
      },
    );
  };

  return { decide, pending: approve.isPending || decline.isPending || bulk.isPending };
}
