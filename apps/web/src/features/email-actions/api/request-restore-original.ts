import { PUBLIC_ACTION_API, requestModeOf, restoreOriginalRequestCode } from '@moat/contracts/public-actions';
import { apiPost } from '../../../lib/http';
import { type ActionParams, pageQuery } from '../action-params';
import type { Proof } from '../flow-types';
import { restoreAnswer } from './answers';

/**
 * POST /api/v1/{type}/restore_original?msg&code=av|ap[&email] with the recipient's message
 * (SPEC §7: the code is `ap` in phish_request_restore mode, else `av`).
 */
export function requestRestoreOriginal(params: ActionParams, proof: Proof | null, commentary: string) {
  const code = restoreOriginalRequestCode(requestModeOf(params.query.get('mode')));
  return apiPost(
    PUBLIC_ACTION_API.restoreOriginal(params.type),
    { commentary },
    { query: pageQuery(params, { code, email: proof?.email }), schema: restoreAnswer },
  );
}
