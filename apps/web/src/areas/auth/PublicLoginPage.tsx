import { ROUTES } from '@moat/contracts/routes';
import { useCallback, useEffect, useState } from 'react';
import { hashLocation } from '../../app/public-paths';
import { PageLoader } from '../../components/public/ui';
import { getAuthSession } from '../../features/auth/api/get-auth-session';
import type { LoginStepAnswer } from '../../features/auth/api/sign-in-answers';
import { LoginForm } from '../../features/auth/components/LoginForm';
import { saveSignInResume } from '../../features/auth/sign-in-handover';
import { NO_SSO, onSsoAnswer } from '../../features/auth/sso-popup';
import {
  SignInFrame,
  usePublicDocumentTitle,
  usePublicSettings,
} from '../../features/public-settings/components/PublicLayout';
import { t } from '../../lib/public-texts';
import { openRoute, RETURN_URL_PARAM, reloadDocument } from '../../lib/return-url';

type SessionState = 'pending' | 'signedIn' | 'passwordChange' | 'none' | 'unknown';

/**
 * Whether this browser has a session ('passwordChange': one that must replace its one-time
 * password first); 'unknown' when the check fails (the form shows then).
 */
function useSession(): { state: SessionState; loginReasonRequired: boolean } {
  const [state, setState] = useState<{ state: SessionState; loginReasonRequired: boolean }>({
    state: 'pending',
    loginReasonRequired: false,
  });
  useEffect(() => {
    const abort = new AbortController();
    getAuthSession(abort.signal).then(
      (answer) =>
        setState({
          state: answer.password_change_required
            ? 'passwordChange'
            : answer.authenticated
              ? 'signedIn'
              : 'none',
          loginReasonRequired: answer.login_reason_required,
        }),
      () => {
        if (!abort.signal.aborted) setState({ state: 'unknown', loginReasonRequired: false });
      },
    );
    return () => abort.abort();
  }, []);
  return state;
}

/**
 * /auth/login as the public bundle serves it when the page is opened (SPEC §2.1, §4 "Login"): the
 * sign-in panel and the login form, without the console's weight. A browser with a session goes
 * to the overview. Once the server has answered the credentials, the console takes over from that
 * answer (`sign-in-handover.ts`): the next step, the login reason, then where the user goes (the
 * saved returnUrl stays in the hash).
 */
export function PublicLoginPage() {
  usePublicDocumentTitle(t('auth.login.title'));
  const settings = usePublicSettings();
  const { state: session, loginReasonRequired } = useSession();
  useEffect(() => {
    if (session === 'signedIn') openRoute(ROUTES.dashboard, 'replace');
  }, [session]);

  const onAnswer = useCallback((answer: LoginStepAnswer) => {
    if (saveSignInResume(answer)) {
      reloadDocument();
      return;
    }
    // This browser keeps nothing for the tab (session storage blocked): the console's own login
    // page, with the same returnUrl. With a session already open it goes to the overview (the
    // login reason, if due, is still asked for); else the sign-in starts again there.
    const query = new URLSearchParams();
    const returnUrl = hashLocation(window.location.hash).search.get(RETURN_URL_PARAM);
    if (returnUrl) query.set(RETURN_URL_PARAM, returnUrl);
    query.set('signIn', 'console');
    openRoute(`${ROUTES.auth.login}?${query}`, 'replace');
  }, []);

  // The SAML popup's answer (SPEC §4 "External sign-in"): the console goes on from it.
  useEffect(() => onSsoAnswer(onAnswer), [onAnswer]);

  // A session that signed in with a one-time password: the console asks for the new one.
  useEffect(() => {
    if (session === 'passwordChange') {
      onAnswer({ next: 'password_change', email: '', login_reason_required: loginReasonRequired });
    }
  }, [session, loginReasonRequired, onAnswer]);

  const ready =
    settings !== 'pending' && session !== 'pending' && session !== 'signedIn' && session !== 'passwordChange';
  return (
    <>
      <PageLoader done={ready} />
      <SignInFrame>
        {ready && (
          <LoginForm
            sso={typeof settings === 'object' ? settings : NO_SSO}
            onAnswer={onAnswer}
            onPasswordExpired={(email) => openRoute(ROUTES.auth.passwordExpired(email), 'push')}
          />
        )}
      </SignInFrame>
    </>
  );
}
