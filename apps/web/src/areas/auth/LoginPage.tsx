import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useRef } from 'react';
import { useLoaderData, useLocation, useNavigate, useSearchParams } from 'react-router';
import { recordLogoutReason } from '../../features/auth/api/record-logout-reason';
import { type MfaOffer, SignIn } from '../../features/auth/components/SignIn';
import type { LoginLoaderData } from '../../features/auth/sign-in-handover';
import { NO_SSO } from '../../features/auth/sso-popup';
import { usePublicFeatures } from '../../features/public-settings/api/get-public-features';
import { fetchCurrentUserWithRetry } from '../../features/session/api/get-current-user';
import { useTranslation, withAreaTexts } from '../../lib/i18n';
import { readLoginNavigationState } from '../../lib/login-navigation';
import { assignDocumentLocation, RETURN_URL_PARAM, returnTarget } from '../../lib/return-url';
import { useDocumentTitle } from '../../lib/use-document-title';

const MfaDialog = lazy(() =>
  withAreaTexts(() => import('../../features/mfa/components/MfaDialog')).then((module) => ({
    default: module.MfaDialog,
  })),
);

/** After a one-time password is replaced: the MFA setup, which the user may skip. */
const mfaOffer: MfaOffer = ({ email, onDone }) => (
  <Suspense fallback={null}>
    <MfaDialog email={email} opened offer onClose={onDone} />
  </Suspense>
);

/**
 * /auth/login. A forced sign-out arrives with the error and the user in the navigation state:
 * the error is recorded as the logout reason (SPEC §2.1) and the user's email is filled in.
 * After sign-in: onboarding when required, else the saved returnUrl, else the overview (SPEC §4).
 * Opened afresh, the page is the public bundle's (`PublicLoginPage`), which hands the server's
 * answer to the credentials here (`resume`, from the route's loader).
 */
export function LoginPage() {
  const { t } = useTranslation();
  useDocumentTitle(t('auth.login.title'));
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [searchParams] = useSearchParams();
  const features = usePublicFeatures();
  const { resume } = useLoaderData<LoginLoaderData>();
  const forcedOut = readLoginNavigationState(useLocation().state);
  const returnUrl = searchParams.get(RETURN_URL_PARAM);

  const logoutReason = forcedOut?.error;
  const recorded = useRef(false);
  useEffect(() => {
    if (!logoutReason || recorded.current) return;
    recorded.current = true;
    recordLogoutReason(logoutReason).catch(() => {
      // Best effort: the sign-in page works without it.
    });
  }, [logoutReason]);

  const loadUser = useCallback(
    (signal: AbortSignal) => fetchCurrentUserWithRetry(queryClient, signal),
    [queryClient],
  );

  const onSignedIn = useCallback(
    (user: CurrentUser) => {
      if (user.on_boarding_required) {
        navigate(ROUTES.onboarding.root, { replace: true });
        return;
      }
      const target = returnTarget(returnUrl);
      if (target?.kind === 'document') assignDocumentLocation(target.href);
      else navigate(target?.path ?? ROUTES.dashboard, { replace: true });
    },
    [navigate, returnUrl],
  );

  return (
    <SignIn
      sso={features.data ?? NO_SSO}
      resume={resume}
      initialEmail={forcedOut?.user ?? undefined}
      initialNotice={forcedOut ? { key: 'auth.login.sessionEnded', tone: 'info' } : null}
      loadUser={loadUser}
      onSignedIn={onSignedIn}
      onPasswordExpired={(email) => navigate(ROUTES.auth.passwordExpired(email))}
      mfaOffer={mfaOffer}
    />
  );
}
