import { PUBLIC_ACTION_API, requestModeOf } from '@moat/contracts/public-actions';
import { apiPost } from '../../../lib/http';
import { type ActionParams, pageQuery } from '../action-params';
import type { Proof } from '../flow-types';
import { restoreAnswer } from './answers';

/**
 * POST /api/v1/{type}/restore (or /phish_request_restore in that mode)?msg[&code&email] with the
 * recipient's message: a request to the admin, or the restore itself in automatic mode.
 */
export function requestRestore(params: ActionParams, proof: Proof | null, commentary: string) {
  const phishing = requestModeOf(params.query.get('mode')) === 'phish_request_restore';
  const path = phishing
    ? PUBLIC_ACTION_API.phishRequestRestore(params.type)
    : PUBLIC_ACTION_API.restore(params.type);
  return apiPost(
    path,
    { commentary },
    {
      query: pageQuery(params, { code: proof?.code, email: proof?.email }),
      schema: restoreAnswer,
    },
  );
}
