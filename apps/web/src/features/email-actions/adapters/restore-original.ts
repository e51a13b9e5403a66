import { requestModeOf } from '@moat/contracts/public-actions';
import { checkRestoreOriginal } from '../api/check-restore-original';
import { requestRestoreOriginal } from '../api/request-restore-original';
import type { FlowAdapter } from '../flow-types';
import { restoreOutcome } from './restore-outcomes';

const errorTexts = {
  notFound: 'emailActions.restoreOriginal.notFound',
  notRestorable: 'emailActions.restoreOriginal.notRestorable',
} as const;

/**
 * restore-original (SPEC §2.2, §4 "Public pages"): request modes (admin_approve, request,
 * phish_request_restore) lead to the request form; any other mode restores automatically. On a
 * code the page continues in the same mode.
 */
export const restoreOriginalFlow: FlowAdapter = {
  actionName: 'restore_original',
  checksExistence: true,
  pollsStatus: false,
  texts: {
    title: 'emailActions.restoreOriginal.title',
    progress: 'emailActions.restoreOriginal.progress',
    successTitle: 'emailActions.done',
    invalidEmail: 'emailActions.restoreOriginal.invalidEmail',
    identificationUnparsable: 'emailActions.restoreOriginal.identificationUnparsable',
    success: 'emailActions.restoreOriginal.restored',
    requested: 'emailActions.restoreOriginal.requested',
    declined: 'emailActions.restoreOriginal.declined',
    requestLabel: 'emailActions.restoreOriginal.requestLabel',
    verifyFailed: 'emailActions.restoreEmail.verifyFailed',
    verifyNotFound: 'emailActions.restoreEmail.verifyNotFound',
    verifyUnparsable: 'emailActions.restoreEmail.verifyFailed',
  },
  perform(params, proof) {
    if (!proof && !requestModeOf(params.query.get('mode'))) {
      return restoreOutcome(() => requestRestoreOriginal(params, null, ''), errorTexts, { automatic: true });
    }
    return restoreOutcome(() => checkRestoreOriginal(params, proof), errorTexts);
  },
  submitRequest(params, proof, commentary) {
    return restoreOutcome(() => requestRestoreOriginal(params, proof, commentary), errorTexts);
  },
};
