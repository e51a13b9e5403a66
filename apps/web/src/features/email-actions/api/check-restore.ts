import { PUBLIC_ACTION_API } from '@moat/contracts/public-actions';
import { apiGet } from '../../../lib/http';
import { type ActionParams, pageQuery, randomRnd } from '../action-params';
import type { Proof } from '../flow-types';
import { restoreAnswer } from './answers';

/**
 * GET /api/v1/{type}/restore?msg&rnd[&code&email]: checks the emailed code when one is given; in
 * automatic mode a proven recipient gets the email back (once); otherwise the current status.
 */
export function checkRestore(params: ActionParams, proof: Proof | null) {
  return apiGet(PUBLIC_ACTION_API.restore(params.type), {
    query: pageQuery(params, { rnd: randomRnd(), code: proof?.code, email: proof?.email }),
    schema: restoreAnswer,
  });
}
