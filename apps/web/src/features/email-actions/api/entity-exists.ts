import { PUBLIC_ACTION_API } from '@moat/contracts/public-actions';
import { apiGet } from '../../../lib/http';
import { entityExistsAnswer } from './answers';

/** GET /api/v1/{type}/{msg}/entity_exists: whether the held message can still be acted on. */
export function getEntityExists(type: string, msg: string, signal?: AbortSignal) {
  return apiGet(PUBLIC_ACTION_API.entityExists(type, msg), { signal, schema: entityExistsAnswer });
}
