import { PUBLIC_ACTION_API } from '@moat/contracts/public-actions';
import { apiGet } from '../../../lib/http';
import { type ActionParams, pageQuery } from '../action-params';
import type { Proof } from '../flow-types';
import { actionAnswer } from './answers';

/** GET /api/v1/{type}/user_response?<page parameters>[&code&email]: runs the mail action. */
export function getUserResponse(params: ActionParams, proof: Proof | null) {
  return apiGet(PUBLIC_ACTION_API.userResponse(params.type), {
    query: pageQuery(params, { code: proof?.code, email: proof?.email }),
    schema: actionAnswer,
  });
}
