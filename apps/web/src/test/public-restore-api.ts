import type { RestoreStatus } from '@moat/contracts/quarantine';
import { errorResponse, jsonResponse, type RecordedCall } from './render-route';

export const RIGHT_CODE = '246810';
export const WRONG_CODE = '111111';

const RESTORED = {
  email: 'The email was restored to your mailbox.',
  original: 'Attachment restored successfully!',
};
const REQUESTED = {
  email: 'The admin has received your request, your email will return once approved.',
  original: 'The admin has received your request, your attachment will return once approved.',
};

/**
 * A fake of the public restore calls (SPEC §7) for page tests, as the API behaves: a code right
 * for the recipient proves them (the browser is then trusted), three wrong codes use the attempts
 * up, automatic mode restores for a proven recipient, request modes wait for the admin.
 */
export function fakeRestoreApi({
  type = 'office365_emails',
  kind = 'email',
  automatic = true,
  exists = true,
  identificationNeeded = true,
  waitTime = 30,
  /** What the status endpoint answers, in turn, after a request (the last one repeats). */
  statusAfterRequest = ['requested'] as RestoreStatus[],
}: {
  type?: string;
  kind?: 'email' | 'original';
  automatic?: boolean;
  exists?: boolean;
  identificationNeeded?: boolean;
  waitTime?: number;
  statusAfterRequest?: RestoreStatus[];
} = {}) {
  const state = { status: 'quarantined' as RestoreStatus, attemptsLeft: 3, trusted: false, statusPolls: 0 };
  const base = `/api/v1/${type}`;
  const action = kind === 'email' ? 'restore' : 'restore_original';

  const prove = (call: RecordedCall) => {
    if (state.trusted) return { proven: true };
    const code = call.url.searchParams.get('code');
    const email = call.url.searchParams.get('email');
    if (!code || !email) return { proven: false };
    if (state.attemptsLeft <= 0) return { proven: false, attemptsLeft: 0 };
    state.attemptsLeft -= 1;
    if (code === RIGHT_CODE) {
      state.trusted = true;
      return { proven: true };
    }
    return { proven: false, attemptsLeft: state.attemptsLeft };
  };

  const handlers = {
    [`GET ${base}/msg-1/entity_exists`]: () => jsonResponse(200, { isExists: exists }),
    [`POST ${base}/identification_needed`]: () =>
      jsonResponse(200, { status: identificationNeeded && !state.trusted }),
    [`POST ${base}/verify_recipient`]: () =>
      jsonResponse(200, {
        status: 'ok',
        wait_time: waitTime,
        message: 'If this is the address the email was sent to, a verification code is on its way.',
      }),
    [`GET ${base}/${action}`]: (call: RecordedCall) => {
      const proof = prove(call);
      if (proof.attemptsLeft !== undefined) {
        return jsonResponse(200, {
          status: state.status,
          message:
            proof.attemptsLeft > 0
              ? 'The code is not valid.'
              : 'You have reached the maximum number of attempts.',
          attempts_left: proof.attemptsLeft,
        });
      }
      if (automatic && proof.proven && state.status !== 'restored') {
        state.status = 'restored';
        return jsonResponse(200, { status: 'restored', message: RESTORED[kind] });
      }
      if (automatic && !proof.proven && identificationNeeded) {
        return errorResponse(403, 'forbidden', 'Confirm your email address first');
      }
      return jsonResponse(200, { status: state.status, message: '' });
    },
    [`POST ${base}/${action}`]: (call: RecordedCall) => {
      if (identificationNeeded && !state.trusted) {
        return errorResponse(403, 'forbidden', 'Confirm your email address first');
      }
      if (automatic) {
        state.status = 'restored';
        return jsonResponse(200, { status: 'restored', message: RESTORED[kind] });
      }
      const commentary = String((call.body as { commentary?: string }).commentary ?? '').trim();
      if (!commentary) return errorResponse(400, 'validation_error', 'Please enter a message');
      state.status = 'requested';
      return jsonResponse(200, { status: 'requested', message: REQUESTED[kind] });
    },
    [`GET ${base}/restore/msg-1/status`]: () => {
      if (state.status !== 'requested') return jsonResponse(200, { status: state.status, message: '' });
      const status = statusAfterRequest[Math.min(state.statusPolls, statusAfterRequest.length - 1)]!;
      state.statusPolls += 1;
      return jsonResponse(200, { status, message: '' });
    },
  };
  if (kind === 'email') handlers[`POST ${base}/phish_request_restore`] = handlers[`POST ${base}/restore`]!;
  return { handlers, state };
}
