import { PUBLIC_ACTION_API, type RestoreStatus } from '@moat/contracts/public-actions';
import { apiGet } from '../../../lib/http';
import { restoreAnswer } from './answers';

/** States after which the status no longer changes: polling stops. */
export const FINAL_RESTORE_STATUSES: readonly RestoreStatus[] = ['restored', 'declined'];

/** GET /api/v1/{type}/restore/{msg}/status: where the restore of an email stands. */
export function getRestoreStatus(type: string, msg: string, signal?: AbortSignal) {
  return apiGet(PUBLIC_ACTION_API.restoreStatus(type, msg), { signal, schema: restoreAnswer });
}
