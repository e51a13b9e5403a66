import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { LoginReasonDialog } from '../features/auth/components/lazy-dialogs';
import { type GlobalErrorAction, globalErrorAction } from '../lib/global-error-rules';
import { onApiError } from '../lib/http';
import type { LoginNavigationState } from '../lib/login-navigation';
import { queryKeys } from '../lib/query-keys';
import { loginPath } from '../lib/return-url';

const TrialExpiredDialog = lazy(() =>
  import('./GlobalDialogs').then((module) => ({ default: module.TrialExpiredDialog })),
);
const InsufficientPrivilegesDialog = lazy(() =>
  import('./GlobalDialogs').then((module) => ({ default: module.InsufficientPrivilegesDialog })),
);

type DialogAction = Exclude<GlobalErrorAction, { type: 'signOut' | 'passwordChange' }>['type'];

/**
 * Applies the global HTTP error rules (SPEC §8 "Global", decided in `lib/global-error-rules`) to
 * every failed call reported by the http client: sign-out to the login page (with the error and
 * the user in the navigation state), or one of the global dialogs.
 */
export function GlobalErrorRules() {
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<DialogAction | null>(null);
  const where = useRef(location);
  where.current = location;

  useEffect(
    () =>
      onApiError((error, call) => {
        const { pathname, search } = where.current;
        const action = globalErrorAction(error, call, pathname);
        if (!action) return;
        if (action.type === 'passwordChange') {
          // The session stays: the sign-in page goes on with the new password it owes.
          void navigate(ROUTES.auth.login, { replace: true });
          return;
        }
        if (action.type !== 'signOut') {
          // The trial-expired modal cannot be closed: nothing replaces it.
          setDialog((shown) => (shown === 'trialExpired' ? shown : action.type));
          return;
        }
        const user = queryClient.getQueryData<CurrentUser>(queryKeys.currentUser());
        const forgetUser = () => queryClient.removeQueries({ queryKey: queryKeys.currentUser() });
        if (!action.navigate) {
          forgetUser();
          return;
        }
        const state: LoginNavigationState = { error: error.message, user: user?.email ?? null };
        // Forget the user once the signed-in pages are gone, so none of them fetches it again.
        void Promise.resolve(navigate(loginPath(`${pathname}${search}`), { state })).then(forgetUser);
      }),
    [navigate, queryClient],
  );

  const close = () => setDialog(null);
  return (
    <Suspense fallback={null}>
      {dialog === 'trialExpired' && <TrialExpiredDialog />}
      {dialog === 'insufficientPrivileges' && <InsufficientPrivilegesDialog onClose={close} />}
      {dialog === 'loginReason' && (
        <LoginReasonDialog
          opened
          onSubmitted={() => {
            close();
            void queryClient.invalidateQueries();
          }}
        />
      )}
    </Suspense>
  );
}
