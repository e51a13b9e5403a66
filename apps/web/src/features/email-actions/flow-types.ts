import type { PublicActionName } from '@moat/contracts/public-actions';
import type { TranslationKey } from '../../lib/i18n';
import type { ActionParams } from './action-params';

/** What proves the recipient in an action call: the address and the code emailed to it. */
export interface Proof {
  email: string;
  code: string;
}

/** Words to show: a translation key, or a text the server sent (SPEC §8 "shows the server message"). */
export type FlowMessage =
  | { key: TranslationKey; values?: Record<string, string | number> }
  | { text: string };

/** Why an action call failed, as far as the page cares. */
export type FailureReason = 'notFound' | 'notRestorable' | 'badRequest' | 'unknown';

/** What an action call (restore, request, mail action) came to. */
export type Outcome =
  | { type: 'wrongCode'; attemptsLeft: number }
  | { type: 'restored' }
  | { type: 'success'; primary: string | null; secondary: string | null }
  | { type: 'requested' }
  | { type: 'declined' }
  | { type: 'requestForm' }
  | { type: 'verifyFirst' }
  | { type: 'failed'; reason: FailureReason; message: FlowMessage };

/** The words of one public page, all translation keys. */
export interface FlowTexts {
  title: TranslationKey;
  progress: TranslationKey;
  /** Title of a successful outcome ('Thank You', or 'Done' on restore-original). */
  successTitle: TranslationKey;
  invalidEmail: TranslationKey;
  identificationUnparsable: TranslationKey;
  success: TranslationKey;
  /** Pages with a request to the admin: the form's label, request sent, request declined. */
  requestLabel?: TranslationKey;
  requested?: TranslationKey;
  declined?: TranslationKey;
  verifyFailed: TranslationKey;
  verifyNotFound: TranslationKey;
  verifyUnparsable: TranslationKey;
}

/**
 * One public page's side of the flow of SPEC §4 "Public pages": the action to run once the
 * recipient is known (or needs no proof), the request to the admin, and the page's words.
 */
export interface FlowAdapter {
  actionName: PublicActionName;
  /** Check first that the message still exists (restore pages); when it is gone: /error/410. */
  checksExistence: boolean;
  /** Poll the restore status while a request waits for the admin (restore-email). */
  pollsStatus: boolean;
  texts: FlowTexts;
  /** Runs the action; `proof` is null when the server needs no identification. Never throws. */
  perform: (params: ActionParams, proof: Proof | null) => Promise<Outcome>;
  /** Sends the request form (restore pages). Never throws. */
  submitRequest?: (params: ActionParams, proof: Proof | null, commentary: string) => Promise<Outcome>;
}
