import { PUBLIC_ACTION_API, type PublicActionName } from '@moat/contracts/public-actions';
import { apiPost } from '../../../lib/http';
import { type ActionParams, pageQuery } from '../action-params';
import { verifyRecipientAnswer } from './answers';

/**
 * POST /api/v1/{type}/verify_recipient?<page parameters>&email=…: emails a code when the address
 * is the message's recipient. Every valid address gets the same answer; `wait_time` seconds pass
 * before another code can be asked for.
 */
export function verifyRecipient(params: ActionParams, actionName: PublicActionName, email: string) {
  return apiPost(
    PUBLIC_ACTION_API.verifyRecipient(params.type),
    { action_name: actionName },
    { query: pageQuery(params, { email }), schema: verifyRecipientAnswer },
  );
}
