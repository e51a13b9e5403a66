import { isApiError } from '../../../lib/http';
import { getUserResponse } from '../api/get-user-response';
import type { FlowAdapter, Outcome } from '../flow-types';

const notFound: Outcome = {
  type: 'failed',
  reason: 'notFound',
  message: { key: 'emailActions.action.notFound' },
};
const processingError: Outcome = {
  type: 'failed',
  reason: 'unknown',
  message: { key: 'emailActions.action.identificationUnparsable' },
};

/**
 * action (SPEC §2.2 "Action page", §8 "Public pages, action"): GET user_response runs the action;
 * success shows its texts under 'Thank You'; an answer without success is a processing error.
 */
export const mailActionFlow: FlowAdapter = {
  actionName: 'email_action',
  checksExistence: false,
  pollsStatus: false,
  texts: {
    title: 'emailActions.action.title',
    progress: 'emailActions.action.progress',
    successTitle: 'emailActions.thankYou',
    invalidEmail: 'emailActions.restoreEmail.invalidEmail',
    identificationUnparsable: 'emailActions.action.identificationUnparsable',
    success: 'emailActions.action.success',
    verifyFailed: 'emailActions.action.notFound',
    verifyNotFound: 'emailActions.action.notFound',
    verifyUnparsable: 'emailActions.action.verifyUnparsable',
  },
  async perform(params, proof) {
    try {
      const answer = await getUserResponse(params, proof);
      if (answer.success) {
        return {
          type: 'success',
          primary: answer.primary_text || null,
          secondary: answer.secondary_text || null,
        };
      }
      if (proof && answer.attempts_left !== undefined) {
        return { type: 'wrongCode', attemptsLeft: answer.attempts_left };
      }
      return processingError;
    } catch (error) {
      if (isApiError(error) && error.status === 404) return notFound;
      if (isApiError(error) && error.code === 'invalid_response') return processingError;
      return { type: 'failed', reason: 'unknown', message: { key: 'emailActions.unknownError' } };
    }
  },
};
