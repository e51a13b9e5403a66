import { PUBLIC_ACTION_API } from '@moat/contracts/public-actions';
import { apiGet } from '../../../lib/http';
import { type ActionParams, pageQuery, randomRnd } from '../action-params';
import type { Proof } from '../flow-types';
import { restoreAnswer } from './answers';

/**
 * GET /api/v1/{type}/restore_original?msg&rnd&mode[&code&email]: checks the emailed code; in
 * automatic mode a proven recipient gets the original attachments back (once).
 */
export function checkRestoreOriginal(params: ActionParams, proof: Proof | null) {
  return apiGet(PUBLIC_ACTION_API.restoreOriginal(params.type), {
    query: pageQuery(params, { rnd: randomRnd(), code: proof?.code, email: proof?.email }),
    schema: restoreAnswer,
  });
}
