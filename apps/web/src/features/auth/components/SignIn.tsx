import { Button } from '@mantine/core';
import type { LoginStepResponse } from '@moat/contracts/auth';
import type { CurrentUser } from '@moat/contracts/current-user';
import { type ReactNode, Suspense, useCallback, useEffect, useState } from 'react';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { onSsoAnswer, type SsoFlags } from '../sso-popup';
import { LoginForm, type LoginNotice } from './LoginForm';
import {
  LoginReasonDialog,
  MailVerificationDialog,
  PasswordChangeForm,
  RequiredMfaSetupDialog,
} from './lazy-dialogs';
import { OneTimeCodeForm } from './OneTimeCodeForm';
import { SigningIn } from './SigningIn';

/** Where the sign-in stands (SPEC §4 "Login"). */
type Step =
  | { kind: 'credentials' }
  | { kind: 'mfaCode' }
  | { kind: 'mailVerification' }
  | { kind: 'mfaSetup' }
  | { kind: 'passwordChange' }
  | { kind: 'mfaOffer'; reasonRequired: boolean }
  | { kind: 'loadingUser'; reasonRequired: boolean }
  | { kind: 'loginReason'; user: CurrentUser };

/** What the server's answer to a sign-in step says comes next. */
type StepAnswer = Pick<LoginStepResponse, 'next' | 'email' | 'login_reason_required'>;

function stepAfter(answer: StepAnswer): Step {
  switch (answer.next) {
    case 'done':
      return { kind: 'loadingUser', reasonRequired: answer.login_reason_required };
    case 'mfa_code':
      return { kind: 'mfaCode' };
    case 'mail_verification':
      return { kind: 'mailVerification' };
    case 'mfa_setup':
      return { kind: 'mfaSetup' };
    case 'password_change':
      return { kind: 'passwordChange' };
    case 'mfa_offer':
      return { kind: 'mfaOffer', reasonRequired: answer.login_reason_required };
  }
}

/** The MFA setup offered once a one-time password is replaced; `onDone` when set up or skipped. */
export type MfaOffer = (props: { email: string; onDone: () => void }) => ReactNode;

/**
 * The whole sign-in: the login form, then the step the server asks for (one-time code, mail
 * verification then the MFA setup an admin requires), then — once a session is open — the user
 * (`loadUser` retries until it answers), the maintenance rule's login reason, and `onSignedIn`.
 * `resume`: the server's answer to credentials given on the public bundle's login page; the
 * sign-in goes on from the step it names. A one-time password (the first admin's) is replaced
 * first; then `mfaOffer` shows, which the user may skip.
 */
export function SignIn({
  sso,
  resume,
  initialEmail,
  initialNotice,
  loadUser,
  onSignedIn,
  onPasswordExpired,
  mfaOffer,
}: {
  sso: SsoFlags;
  resume?: StepAnswer | null;
  initialEmail?: string;
  initialNotice?: LoginNotice | null;
  loadUser: (signal: AbortSignal) => Promise<CurrentUser>;
  onSignedIn: (user: CurrentUser) => void;
  onPasswordExpired: (email: string) => void;
  mfaOffer?: MfaOffer;
}) {
  const { t } = useTranslation();
  const [step, setStep] = useState<Step>(() => (resume ? stepAfter(resume) : { kind: 'credentials' }));
  const [email, setEmail] = useState(resume?.email ?? initialEmail ?? '');
  const [notice, setNotice] = useState<LoginNotice | null>(initialNotice ?? null);

  const onStep = useCallback((answer: StepAnswer) => {
    setEmail(answer.email);
    setStep(stepAfter(answer));
  }, []);

  // The SAML popup's answer (SPEC §4 "External sign-in") goes on as a password's would.
  useEffect(() => onSsoAnswer(onStep), [onStep]);

  const restart = useCallback((key: TranslationKey | null) => {
    setNotice(key ? { key, tone: 'error' } : null);
    setStep({ kind: 'credentials' });
  }, []);

  const offered = step.kind === 'mfaOffer' ? step : null;
  const afterOffer = useCallback(() => {
    if (offered) setStep({ kind: 'loadingUser', reasonRequired: offered.reasonRequired });
  }, [offered]);
  useEffect(() => {
    // Nothing to offer with: the sign-in goes on.
    if (offered && !mfaOffer) afterOffer();
  }, [offered, mfaOffer, afterOffer]);

  const loadingUser = step.kind === 'loadingUser' ? step : null;
  useEffect(() => {
    if (!loadingUser) return;
    const controller = new AbortController();
    loadUser(controller.signal).then(
      (user) => {
        if (loadingUser.reasonRequired) setStep({ kind: 'loginReason', user });
        else onSignedIn(user);
      },
      () => {
        // Aborted: the page was left.
      },
    );
    return () => controller.abort();
  }, [loadingUser, loadUser, onSignedIn]);

  if (step.kind === 'mfaCode') {
    return <OneTimeCodeForm email={email} onStep={onStep} onCancel={restart} />;
  }

  if (step.kind === 'passwordChange') {
    return (
      <Suspense fallback={<SigningIn />}>
        <PasswordChangeForm email={email} onStep={onStep} onCancel={restart} />
      </Suspense>
    );
  }

  if (step.kind === 'mfaOffer') {
    return (
      <>
        <SigningIn />
        {mfaOffer?.({ email, onDone: afterOffer })}
      </>
    );
  }

  if (step.kind === 'loadingUser' || step.kind === 'loginReason') {
    return (
      <>
        <SigningIn />
        {step.kind === 'loadingUser' && (
          <Button variant="subtle" fullWidth onClick={() => restart(null)}>
            {t('common.backToLogin')}
          </Button>
        )}
        {step.kind === 'loginReason' && (
          <Suspense fallback={null}>
            <LoginReasonDialog opened onSubmitted={() => onSignedIn(step.user)} />
          </Suspense>
        )}
      </>
    );
  }

  return (
    <>
      <LoginForm
        sso={sso}
        initialEmail={email}
        notice={notice}
        onAnswer={onStep}
        onPasswordExpired={onPasswordExpired}
      />
      <Suspense fallback={null}>
        {step.kind === 'mailVerification' && (
          <MailVerificationDialog email={email} onStep={onStep} onCancel={restart} />
        )}
        {step.kind === 'mfaSetup' && (
          <RequiredMfaSetupDialog email={email} onStep={onStep} onCancel={restart} />
        )}
      </Suspense>
    </>
  );
}
