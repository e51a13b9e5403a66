import { ONE_TIME_CODE_LENGTH } from '@moat/contracts/constants';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Button, Field } from '../../../components/public/ui';
import { t } from '../../../lib/public-texts';
import type { Notice } from '../use-public-flow';
import { FlowNotice } from './EmailForm';

/**
 * The verification code form (SPEC §2.2, §5): digits only, at most the code's length, the phone's
 * number pad and the browser's one-time-code autofill; the code is required (an empty submit does
 * nothing); after the last attempt the submit is disabled. "Resend code" is a disabled label with
 * a countdown until the server's wait_time has passed.
 */
export function CodeForm({
  notice,
  attemptsLeft,
  resendIn,
  pending,
  resending,
  onSubmit,
  onResend,
  onChangeEmail,
}: {
  notice: Notice | null;
  attemptsLeft: number | null;
  resendIn: number;
  pending: boolean;
  resending: boolean;
  onSubmit: (code: string) => void;
  onResend: () => void;
  onChangeEmail: () => void;
}) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const fieldRef = useRef<HTMLElement>(null);
  const maxedOut = attemptsLeft !== null && attemptsLeft <= 0;

  useEffect(() => {
    fieldRef.current?.focus();
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (maxedOut || pending) return;
    if (!code) {
      fieldRef.current?.focus();
      return;
    }
    if (code.length !== ONE_TIME_CODE_LENGTH) {
      setError(t('validation.code_length', { length: ONE_TIME_CODE_LENGTH }));
      fieldRef.current?.focus();
      return;
    }
    onSubmit(code);
  };

  return (
    <form noValidate onSubmit={submit} className="stack">
      <FlowNotice notice={notice} />
      <Field
        fieldRef={fieldRef}
        name="code"
        label={t('emailActions.codeLabel')}
        value={code}
        onChange={(event) => {
          // Digits only, at most the code's length; the field shows what is kept.
          const kept = event.currentTarget.value.replace(/\D/g, '').slice(0, ONE_TIME_CODE_LENGTH);
          event.currentTarget.value = kept;
          setCode(kept);
          setError(undefined);
        }}
        error={error}
        required
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={ONE_TIME_CODE_LENGTH}
        spellCheck={false}
      />
      <div className="row">
        {resendIn > 0 ? (
          <span className="dimmed small" aria-disabled="true">
            {t('emailActions.resendIn', { seconds: resendIn })}
          </span>
        ) : (
          <Button variant="link" onClick={onResend} disabled={resending}>
            {t('emailActions.resendCode')}
          </Button>
        )}
        <Button type="submit" loading={pending} disabled={maxedOut}>
          {t('emailActions.verify')}
        </Button>
      </div>
      <div>
        <Button variant="link" onClick={onChangeEmail}>
          {t('emailActions.changeEmail')}
        </Button>
      </div>
    </form>
  );
}
