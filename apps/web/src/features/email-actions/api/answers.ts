import { RESTORE_STATUSES, type RestoreStatus } from '@moat/contracts/public-actions';
import {
  field,
  isBoolean,
  isInteger,
  isOptionalInteger,
  isString,
  object,
} from '../../../lib/answer-readers';

/**
 * Readers of the public calls' answers (the shapes of `@moat/contracts/quarantine`), without zod
 * so that it stays out of the public pages' bundle: `apiGet`/`apiPost` turn a mismatch (a throw
 * here) into an `invalid_response` error, as with the contracts' schemas.
 */
const isRestoreStatus = (value: unknown): value is RestoreStatus =>
  typeof value === 'string' && (RESTORE_STATUSES as readonly string[]).includes(value);

export interface RestoreAnswer {
  status: RestoreStatus;
  message: string;
  attempts_left?: number;
}

/** restore, restore status, phish_request_restore, restore_original (RestoreResponse). */
export const restoreAnswer = {
  parse(value: unknown): RestoreAnswer {
    const fields = object(value, 'RestoreResponse');
    const answer: RestoreAnswer = {
      status: field(fields, 'status', 'RestoreResponse', isRestoreStatus),
      message: field(fields, 'message', 'RestoreResponse', isString),
    };
    const attemptsLeft = field(fields, 'attempts_left', 'RestoreResponse', isOptionalInteger);
    if (attemptsLeft !== undefined) answer.attempts_left = attemptsLeft;
    return answer;
  },
};

/** entity_exists (EntityExistsResponse). */
export const entityExistsAnswer = {
  parse: (value: unknown) => ({
    isExists: field(object(value, 'EntityExistsResponse'), 'isExists', 'EntityExistsResponse', isBoolean),
  }),
};

export interface VerifyRecipientAnswer {
  status: 'ok' | 'error';
  wait_time: number;
  message: string;
}

/** verify_recipient (VerifyRecipientResponse). */
export const verifyRecipientAnswer = {
  parse(value: unknown): VerifyRecipientAnswer {
    const fields = object(value, 'VerifyRecipientResponse');
    const status = fields.status;
    if (status !== 'ok' && status !== 'error') throw new TypeError('VerifyRecipientResponse: bad status');
    return {
      status,
      wait_time: field(fields, 'wait_time', 'VerifyRecipientResponse', isInteger),
      message: field(fields, 'message', 'VerifyRecipientResponse', isString),
    };
  },
};

export interface ActionAnswer {
  success: boolean;
  primary_text: string;
  secondary_text: string;
  attempts_left?: number;
}

/** user_response (ActionResponse). */
export const actionAnswer = {
  parse(value: unknown): ActionAnswer {
    const fields = object(value, 'ActionResponse');
    const answer: ActionAnswer = {
      success: field(fields, 'success', 'ActionResponse', isBoolean),
      primary_text: field(fields, 'primary_text', 'ActionResponse', isString),
      secondary_text: field(fields, 'secondary_text', 'ActionResponse', isString),
    };
    const attemptsLeft = field(fields, 'attempts_left', 'ActionResponse', isOptionalInteger);
    if (attemptsLeft !== undefined) answer.attempts_left = attemptsLeft;
    return answer;
  },
};

/** identification_needed: any truthy `status` means the recipient must verify (SPEC §7). */
export const identificationAnswer = {
  parse(value: unknown): { status: unknown } {
    const fields = object(value, 'identification_needed');
    if (!('status' in fields)) throw new TypeError('identification_needed answer without status');
    return { status: fields.status };
  },
};
