import { PUBLIC_ACTION_API, type PublicActionName } from '@moat/contracts/public-actions';
import { apiPost } from '../../../lib/http';
import type { ActionParams } from '../action-params';
import { identificationAnswer } from './answers';

/**
 * POST /api/v1/{type}/identification_needed: asks whether the recipient must prove who they are
 * (a truthy status) before the action runs. Checks only; it changes nothing on the server. The
 * answer is read leniently rather than against the API's boolean schema (SPEC §7).
 */
export function checkIdentificationNeeded(
  params: ActionParams,
  actionName: PublicActionName,
  signal?: AbortSignal,
): Promise<{ status: unknown }> {
  return apiPost(
    PUBLIC_ACTION_API.identificationNeeded(params.type),
    { action_name: actionName },
    { query: params.query, signal, schema: identificationAnswer },
  );
}
