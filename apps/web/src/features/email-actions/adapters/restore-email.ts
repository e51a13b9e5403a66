import { requestModeOf } from '@moat/contracts/public-actions';
import { checkRestore } from '../api/check-restore';
import { requestRestore } from '../api/request-restore';
import type { FlowAdapter } from '../flow-types';
import { restoreOutcome } from './restore-outcomes';

const errorTexts = {
  notFound: 'emailActions.restoreEmail.notFound',
  notRestorable: 'emailActions.restoreEmail.notRestorable',
} as const;

/**
 * restore-email (SPEC §2.1 "Email restore page", §4 "Restore flow"): with a proof, GET restore
 * checks the code (and restores in automatic mode); without identification, automatic mode
 * restores with a POST and request modes look at the status first.
 */
export const restoreEmailFlow: FlowAdapter = {
  actionName: 'email_restore',
  checksExistence: true,
  pollsStatus: true,
  texts: {
    title: 'emailActions.restoreEmail.title',
    progress: 'emailActions.restoreEmail.progress',
    successTitle: 'emailActions.thankYou',
    invalidEmail: 'emailActions.restoreEmail.invalidEmail',
    identificationUnparsable: 'emailActions.restoreEmail.identificationUnparsable',
    success: 'emailActions.restoreEmail.restored',
    requested: 'emailActions.restoreEmail.requested',
    declined: 'emailActions.restoreEmail.declined',
    requestLabel: 'emailActions.restoreEmail.requestLabel',
    verifyFailed: 'emailActions.restoreEmail.verifyFailed',
    verifyNotFound: 'emailActions.restoreEmail.verifyNotFound',
    verifyUnparsable: 'emailActions.restoreEmail.verifyFailed',
  },
  perform(params, proof) {
    if (!proof && !requestModeOf(params.query.get('mode'))) {
      return restoreOutcome(() => requestRestore(params, null, ''), errorTexts, { automatic: true });
    }
    return restoreOutcome(() => checkRestore(params, proof), errorTexts);
  },
  submitRequest(params, proof, commentary) {
    return restoreOutcome(() => requestRestore(params, proof, commentary), errorTexts);
  },
};
