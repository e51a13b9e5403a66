import {
  type ActionNameBody,
  PUBLIC_ACTION_API,
  type PublicActionName,
  verifyRecipientResponseSchema,
} from '@moat/contracts/quarantine';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { type ActionParams, pageQuery } from '../action-params';

/**
 * POST /api/v1/{type}/verify_recipient?<page parameters>&email=…: emails a code when the address
 * is the message's recipient. Every valid address gets the same answer; `wait_time` seconds pass
 * before another code can be asked for.
 */
export function verifyRecipient(params: ActionParams, actionName: PublicActionName, email: string) {
  const body: ActionNameBody = { action_name: actionName };
  return apiPost(PUBLIC_ACTION_API.verifyRecipient(params.type), body, {
    query: pageQuery(params, { email }),
    schema: verifyRecipientResponseSchema,
  });
}

export function useVerifyRecipient(params: ActionParams, actionName: PublicActionName) {
  return useMutation({ mutationFn: (email: string) => verifyRecipient(params, actionName, email) });
}
