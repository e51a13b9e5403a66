import {
  CODE_FORM_REDISPLAY_DELAY_MS,
  DEFAULT_RESEND_WAIT_SECONDS,
  RESTORE_MAX_RETRIES,
} from '@moat/contracts/constants';
import { ROUTES } from '@moat/contracts/routes';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useAlive } from '../../components/public/use-alive';
import { isApiError } from '../../lib/http';
import type { TranslationKey } from '../../lib/i18n';
import { withRetries } from '../../lib/retry';
import { openRoute } from '../../lib/return-url';
import { type ActionParams, messageIdOf } from './action-params';
import { getEntityExists } from './api/entity-exists';
import { checkIdentificationNeeded } from './api/identification-needed';
import { verifyRecipient } from './api/verify-recipient';
import type { FlowAdapter, FlowMessage, FlowTexts, Outcome, Proof } from './flow-types';

/** A message above a form: an error, or information (e.g. "a code is on its way"). */
export interface Notice {
  tone: 'error' | 'info';
  message: FlowMessage;
}

/** The panels of SPEC §2.1 / §2.2: progress, email form, code form, request form, result. */
export type FlowStep =
  | { name: 'progress' }
  | { name: 'email'; email: string; notice: Notice | null }
  | {
      name: 'code';
      email: string;
      notice: Notice | null;
      /** Attempts the server says are left after a wrong code; null before any. */
      attemptsLeft: number | null;
      /** Changes each time the form is shown afresh (empties and focuses the field). */
      round: number;
    }
  | { name: 'request'; proof: Proof | null; notice: Notice | null }
  | { name: 'result'; outcome: Outcome };

const unknownFailure: Outcome = {
  type: 'failed',
  reason: 'unknown',
  message: { key: 'emailActions.unknownError' },
};

/** SPEC §8 "Identification": unparsable answer, 404, anything else. */
export function identificationErrorKey(error: unknown, unparsableKey: TranslationKey): TranslationKey {
  if (isApiError(error) && error.code === 'invalid_response') return unparsableKey;
  if (isApiError(error) && error.status === 404) return 'emailActions.identificationNotFound';
  return 'emailActions.unknownError';
}

/** SPEC §8: verify 404, an unparsable answer, the server's message, or the page's fallback. */
export function verifyFailureMessage(error: unknown, texts: FlowTexts): FlowMessage {
  if (isApiError(error)) {
    if (error.code === 'invalid_response') return { key: texts.verifyUnparsable };
    if (error.status === 404) return { key: texts.verifyNotFound };
    if (error.status >= 400 && error.status < 500 && error.message) return { text: error.message };
  }
  return { key: texts.verifyFailed };
}

/** Seconds left until a moment (a resend's wait_time), ticking once a second; 0 when over. */
function useCountdown(): { remaining: number; start: (seconds: number) => void } {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (until <= now) return;
    const timer = window.setTimeout(() => setNow(Date.now()), 1_000);
    return () => window.clearTimeout(timer);
  }, [until, now]);
  const start = useCallback((seconds: number) => {
    const current = Date.now();
    setNow(current);
    setUntil(current + Math.max(0, seconds) * 1_000);
  }, []);
  return { remaining: Math.max(0, Math.ceil((until - now) / 1_000)), start };
}

type Calls = { verify: boolean; perform: boolean; request: boolean };

/**
 * The flow of a public page (SPEC §4 "Public pages", "Restore flow"): the message must still
 * exist (else /error/410), then identification; when needed, the email form, then the code form
 * (resend hidden for wait_time seconds, max attempts disables it), then the action; a request mode
 * adds the request form. A 404 after a code redisplays the code form after 1 s, at most 4 times.
 */
export function usePublicFlow(adapter: FlowAdapter, params: ActionParams) {
  const { texts } = adapter;
  const countdown = useCountdown();
  const [step, setStep] = useState<FlowStep>({ name: 'progress' });
  const [pending, setPending] = useState<Calls>({ verify: false, perform: false, request: false });
  const retries = useRef(0);
  const alive = useAlive();
  const rounds = useRef(0);
  const redisplayTimer = useRef<number | undefined>(undefined);

  /** Runs one call of the page, with its pending flag set meanwhile. */
  const call = useCallback(async <T>(name: keyof Calls, run: () => Promise<T>): Promise<T> => {
    setPending((current) => ({ ...current, [name]: true }));
    try {
      return await run();
    } finally {
      setPending((current) => ({ ...current, [name]: false }));
    }
  }, []);

  const showCode = useCallback((email: string, notice: Notice | null, attemptsLeft: number | null) => {
    rounds.current += 1;
    setStep({ name: 'code', email, notice, attemptsLeft, round: rounds.current });
  }, []);

  const apply = useCallback(
    (outcome: Outcome, proof: Proof | null) => {
      if (!alive.current) return;
      switch (outcome.type) {
        case 'wrongCode': {
          if (!proof) {
            setStep({ name: 'result', outcome: unknownFailure });
            return;
          }
          const message: FlowMessage =
            outcome.attemptsLeft > 0
              ? { key: 'emailActions.wrongCode', values: { count: outcome.attemptsLeft } }
              : { key: 'emailActions.maxAttempts' };
          showCode(proof.email, { tone: 'error', message }, outcome.attemptsLeft);
          return;
        }
        case 'requestForm':
          setStep(
            adapter.submitRequest
              ? { name: 'request', proof, notice: null }
              : { name: 'result', outcome: unknownFailure },
          );
          return;
        case 'verifyFirst':
          setStep({
            name: 'email',
            email: proof?.email ?? '',
            notice: { tone: 'error', message: { key: 'emailActions.verifyFirst' } },
          });
          return;
        case 'failed':
          setStep({ name: 'result', outcome });
          if (outcome.reason === 'notFound' && proof && retries.current < RESTORE_MAX_RETRIES) {
            retries.current += 1;
            window.clearTimeout(redisplayTimer.current);
            redisplayTimer.current = window.setTimeout(
              () => showCode(proof.email, { tone: 'error', message: outcome.message }, null),
              CODE_FORM_REDISPLAY_DELAY_MS,
            );
          }
          return;
        default:
          setStep({ name: 'result', outcome });
      }
    },
    [adapter.submitRequest, showCode],
  );

  /** `perform` never throws (FlowAdapter); a throw all the same is an unknown failure. */
  const run = useCallback(
    (proof: Proof | null) =>
      call('perform', () => adapter.perform(params, proof)).then(
        (outcome) => apply(outcome, proof),
        () => apply(unknownFailure, proof),
      ),
    [adapter, params, apply, call],
  );

  // Existence (restore pages), then identification: once, when the page opens (the page's
  // parameters and adapter are fixed for its life). Both only read: a failure is tried twice more.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, when the page opens.
  useEffect(() => {
    const abort = new AbortController();
    const fail = (message: FlowMessage) =>
      setStep({ name: 'result', outcome: { type: 'failed', reason: 'unknown', message } });
    (async () => {
      if (adapter.checksExistence) {
        try {
          const exists = await withRetries(
            () => getEntityExists(params.type, messageIdOf(params), abort.signal),
            abort.signal,
          );
          if (!exists.isExists) {
            if (!abort.signal.aborted) openRoute(ROUTES.errors.gone);
            return;
          }
        } catch {
          if (!abort.signal.aborted) fail({ key: 'emailActions.unknownError' });
          return;
        }
      }
      let identification: { status: unknown };
      try {
        identification = await withRetries(
          () => checkIdentificationNeeded(params, adapter.actionName, abort.signal),
          abort.signal,
        );
      } catch (error) {
        if (!abort.signal.aborted)
          fail({ key: identificationErrorKey(error, texts.identificationUnparsable) });
        return;
      }
      if (abort.signal.aborted) return;
      if (identification.status) setStep({ name: 'email', email: '', notice: null });
      else void run(null);
    })();
    return () => {
      abort.abort();
      window.clearTimeout(redisplayTimer.current);
    };
  }, []);

  const settle = useCallback((outcome: Outcome) => setStep({ name: 'result', outcome }), []);

  const sendCode = (email: string, onFailure: (message: FlowMessage) => void, resent: boolean) =>
    call('verify', () => verifyRecipient(params, adapter.actionName, email)).then(
      (answer) => {
        if (!alive.current) return;
        if (answer.status !== 'ok') {
          onFailure(answer.message ? { text: answer.message } : { key: texts.verifyFailed });
          return;
        }
        countdown.start(answer.wait_time ?? DEFAULT_RESEND_WAIT_SECONDS);
        const message: FlowMessage = resent
          ? { key: 'emailActions.codeResent' }
          : { key: 'emailActions.codeSent', values: { email } };
        showCode(email, { tone: 'info', message }, null);
      },
      (error) => {
        if (alive.current) onFailure(verifyFailureMessage(error, texts));
      },
    );

  const actions = {
    submitEmail(email: string) {
      void sendCode(
        email,
        (message) => setStep({ name: 'email', email, notice: { tone: 'error', message } }),
        false,
      );
    },
    submitCode(email: string, code: string) {
      void run({ email, code });
    },
    resendCode(email: string) {
      void sendCode(
        email,
        (message) =>
          setStep((current) =>
            current.name === 'code' ? { ...current, notice: { tone: 'error', message } } : current,
          ),
        true,
      );
    },
    changeEmail(email: string) {
      setStep({ name: 'email', email, notice: null });
    },
    submitRequest(proof: Proof | null, commentary: string) {
      void call('request', () =>
        adapter.submitRequest
          ? adapter.submitRequest(params, proof, commentary)
          : Promise.resolve(unknownFailure),
      ).then(
        (outcome) => {
          if (outcome.type === 'failed' && outcome.reason === 'badRequest' && alive.current) {
            setStep({ name: 'request', proof, notice: { tone: 'error', message: outcome.message } });
            return;
          }
          apply(outcome, proof);
        },
        () => apply(unknownFailure, proof),
      );
    },
    /** The final state the status polling reached (restored, declined, or gone). */
    settle,
  };

  return { step, actions, resendIn: countdown.remaining, pending };
}
