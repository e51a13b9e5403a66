import {
  CODE_FORM_REDISPLAY_DELAY_MS,
  DEFAULT_RESEND_WAIT_SECONDS,
  RESTORE_MAX_RETRIES,
} from '@moat/contracts/constants';
import { ROUTES } from '@moat/contracts/routes';
import { useMutation } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { isApiError } from '../../lib/http';
import type { TranslationKey } from '../../lib/i18n';
import { useCountdown } from '../../lib/use-countdown';
import { type ActionParams, messageIdOf } from './action-params';
import { useEntityExists } from './api/entity-exists';
import { useIdentificationNeeded } from './api/identification-needed';
import { useVerifyRecipient } from './api/verify-recipient';
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

/**
 * The flow of a public page (SPEC §4 "Public pages", "Restore flow"): the message must still
 * exist (else /error/410), then identification; when needed, the email form, then the code form
 * (resend hidden for wait_time seconds, max attempts disables it), then the action; a request mode
 * adds the request form. A 404 after a code redisplays the code form after 1 s, at most 4 times.
 */
export function usePublicFlow(adapter: FlowAdapter, params: ActionParams) {
  const navigate = useNavigate();
  const { texts } = adapter;
  const exists = useEntityExists(params.type, messageIdOf(params), adapter.checksExistence);
  const existsConfirmed = !adapter.checksExistence || exists.data?.isExists === true;
  const identification = useIdentificationNeeded(params, adapter.actionName, existsConfirmed);
  const verify = useVerifyRecipient(params, adapter.actionName);
  const perform = useMutation({ mutationFn: (proof: Proof | null) => adapter.perform(params, proof) });
  const request = useMutation({
    mutationFn: ({ proof, commentary }: { proof: Proof | null; commentary: string }) =>
      adapter.submitRequest?.(params, proof, commentary) ?? Promise.resolve(unknownFailure),
  });
  const countdown = useCountdown();
  const [step, setStep] = useState<FlowStep>({ name: 'progress' });
  const started = useRef(false);
  const retries = useRef(0);
  const rounds = useRef(0);
  const redisplayTimer = useRef<number | undefined>(undefined);

  useEffect(() => () => window.clearTimeout(redisplayTimer.current), []);

  useEffect(() => {
    if (exists.data?.isExists === false) void navigate(ROUTES.errors.gone, { replace: true });
  }, [exists.data, navigate]);

  const showCode = useCallback((email: string, notice: Notice | null, attemptsLeft: number | null) => {
    rounds.current += 1;
    setStep({ name: 'code', email, notice, attemptsLeft, round: rounds.current });
  }, []);

  const apply = useCallback(
    (outcome: Outcome, proof: Proof | null) => {
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

  const run = useCallback(
    (proof: Proof | null) => {
      perform.mutate(proof, {
        onSuccess: (outcome) => apply(outcome, proof),
        onError: () => apply(unknownFailure, proof),
      });
    },
    [perform.mutate, apply],
  );

  useEffect(() => {
    if (started.current || !identification.isSuccess) return;
    started.current = true;
    if (identification.data.status) setStep({ name: 'email', email: '', notice: null });
    else run(null);
  }, [identification.isSuccess, identification.data, run]);

  const settle = useCallback((outcome: Outcome) => setStep({ name: 'result', outcome }), []);

  const sendCode = (email: string, onFailure: (message: FlowMessage) => void, resent: boolean) => {
    verify.mutate(email, {
      onSuccess: (answer) => {
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
      onError: (error) => onFailure(verifyFailureMessage(error, texts)),
    });
  };

  const actions = {
    submitEmail(email: string) {
      sendCode(
        email,
        (message) => setStep({ name: 'email', email, notice: { tone: 'error', message } }),
        false,
      );
    },
    submitCode(email: string, code: string) {
      run({ email, code });
    },
    resendCode(email: string) {
      sendCode(
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
      request.mutate(
        { proof, commentary },
        {
          onSuccess: (outcome) => {
            if (outcome.type === 'failed' && outcome.reason === 'badRequest') {
              setStep({ name: 'request', proof, notice: { tone: 'error', message: outcome.message } });
              return;
            }
            apply(outcome, proof);
          },
          onError: () => apply(unknownFailure, proof),
        },
      );
    },
    /** The final state the status polling reached (restored, declined, or gone). */
    settle,
  };

  let view: FlowStep = step;
  if (adapter.checksExistence && exists.isError) {
    view = { name: 'result', outcome: unknownFailure };
  } else if (identification.isError) {
    view = {
      name: 'result',
      outcome: {
        type: 'failed',
        reason: 'unknown',
        message: { key: identificationErrorKey(identification.error, texts.identificationUnparsable) },
      },
    };
  }

  return {
    step: view,
    actions,
    resendIn: countdown.remaining,
    pending: {
      verify: verify.isPending,
      perform: perform.isPending,
      request: request.isPending,
    },
  };
}
