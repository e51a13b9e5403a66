import type { DeploymentConfig } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags, FeatureName } from '@moat/contracts/features';
import { ROUTES } from '@moat/contracts/routes';
import type { QueryClient } from '@tanstack/react-query';
import { type LoaderFunctionArgs, redirect } from 'react-router';
import { getAuthSession } from '../features/auth/api/get-auth-session';
import type { SignInResume } from '../features/auth/sign-in-handover';
import { isAdminOnlyPath } from '../features/navigation/admin-only';
import { currentUserQueryOptions } from '../features/session/api/get-current-user';
import { deploymentQueryOptions } from '../lib/console-data/get-deployment';
import { uiFeaturesQueryOptions } from '../lib/console-data/get-ui-features';
import { isApiError } from '../lib/http';
import { loginPath } from '../lib/return-url';

type Loader = (args: LoaderFunctionArgs) => Promise<unknown>;

/**
 * Authenticated guard (SPEC §2.5): the signed-in user, or a redirect to sign-in passing the
 * current path as returnUrl (never for password-reset URLs, see `loginPath`).
 */
async function currentUserOrLogin(queryClient: QueryClient, request: Request): Promise<CurrentUser> {
  try {
    return await queryClient.fetchQuery(currentUserQueryOptions());
  } catch (error) {
    if (isApiError(error) && (error.status === 401 || error.status === 403)) {
      const url = new URL(request.url);
      throw redirect(loginPath(`${url.pathname}${url.search}`));
    }
    throw error;
  }
}

/** Main area (SPEC §2.5): a session and an account that is not locked. */
export function requireActiveUser(queryClient: QueryClient) {
  return async ({ request }: LoaderFunctionArgs): Promise<CurrentUser> => {
    const user = await currentUserOrLogin(queryClient, request);
    if (user.locked_status.should_lock) throw redirect(ROUTES.accessBlocked.customerLocked);
    return user;
  };
}

/** Locked area (access-blocked): a session whose account is locked; others go to the overview. */
export function requireLockedUser(queryClient: QueryClient) {
  return async ({ request }: LoaderFunctionArgs): Promise<CurrentUser> => {
    const user = await currentUserOrLogin(queryClient, request);
    if (!user.locked_status.should_lock) throw redirect(ROUTES.dashboard);
    return user;
  };
}

/**
 * Sign-in area (SPEC §2.1, §2.5): login and forgot-password are only for a browser without a
 * session; one with a session goes to the overview — or, while its one-time password is still to
 * be replaced, to the login page, whose sign-in goes on with that step. When the check fails, the
 * page shows.
 */
export async function redirectIfSignedIn({ request }: LoaderFunctionArgs): Promise<null> {
  const session = await getAuthSession(request.signal).catch(() => null);
  if (session?.password_change_required) throw redirect(ROUTES.auth.login);
  if (session?.authenticated) throw redirect(ROUTES.dashboard);
  return null;
}

/**
 * The login page's check: a session that must replace its one-time password goes on with that
 * step (a reload, a link followed meanwhile); any other session goes to the overview.
 */
export async function pendingPasswordChange({ request }: LoaderFunctionArgs): Promise<SignInResume | null> {
  const session = await getAuthSession(request.signal).catch(() => null);
  if (session?.password_change_required) {
    return { next: 'password_change', email: '', login_reason_required: session.login_reason_required };
  }
  if (session?.authenticated) throw redirect(ROUTES.dashboard);
  return null;
}

/**
 * The tenant's flags and deployment for a guard. A failed lookup lets the user through (the
 * pages' own calls report the error; the server enforces access either way), like the account
 * status check of SPEC §8 "Shell".
 */
async function consoleData(queryClient: QueryClient) {
  const [features, deployment] = await Promise.all([
    queryClient.ensureQueryData(uiFeaturesQueryOptions()).catch(() => null),
    queryClient.ensureQueryData(deploymentQueryOptions()).catch(() => null),
  ]);
  return { features, deployment };
}

/** Where a user who must onboard goes: onboarding, or v1/wizard when enableUI2Onboarding is off (SPEC §2.5). */
export function onboardingPath(features: Pick<FeatureFlags, 'enableUI2Onboarding'> | null): string {
  return features && !features.enableUI2Onboarding ? ROUTES.wizard : ROUTES.onboarding.root;
}

/**
 * Whether an expired trial blocks the console (SPEC §2.5, §6): flag enableTrialExpiredPage on,
 * a poc deployment whose trial has expired, a user who is not hidden, an account that is not MSP.
 */
export function isTrialBlocked(
  features: Pick<FeatureFlags, 'enableTrialExpiredPage'>,
  deployment: Pick<DeploymentConfig, 'deploymentMode' | 'trialExpired' | 'is_msp'>,
  user: Pick<CurrentUser, 'hidden'>,
): boolean {
  return (
    features.enableTrialExpiredPage &&
    deployment.deploymentMode === 'poc' &&
    deployment.trialExpired &&
    !user.hidden &&
    !deployment.is_msp
  );
}

/**
 * What a shell route asks of the feature guard (the route's data, SPEC §2.5): a flag it needs and
 * where to go without it, or `bypass` to skip the trial and onboarding redirects (the trial page).
 */
export interface FeatureGuardData {
  feature?: FeatureName;
  /** Where a user without `feature` goes; the overview by default. */
  redirectTo?: string;
  bypass?: boolean;
}

/**
 * Feature guard of every main-shell route (SPEC §2.5). It checks the session and the lock itself,
 * as the deepest route's redirect is the one that wins. Then: a route's required flag (else its
 * redirect path); an admin-only page (admin-only.ts) sends anyone else to the no-access page;
 * unless bypassed, an expired trial goes to /trial and a user who must onboard
 * goes to onboarding.
 */
export function featureGuard(queryClient: QueryClient, data: FeatureGuardData = {}) {
  const activeUser = requireActiveUser(queryClient);
  return async (args: LoaderFunctionArgs): Promise<CurrentUser> => {
    const user = await activeUser(args);
    if (user.role !== 'admin' && isAdminOnlyPath(new URL(args.request.url).pathname)) {
      throw redirect(ROUTES.noAccess);
    }
    const { features, deployment } = await consoleData(queryClient);
    if (data.feature && features && !features[data.feature]) {
      throw redirect(data.redirectTo ?? ROUTES.dashboard);
    }
    if (data.bypass) return user;
    if (features && deployment && isTrialBlocked(features, deployment, user)) throw redirect(ROUTES.trial);
    if (user.on_boarding_required) throw redirect(onboardingPath(features));
    return user;
  };
}

/**
 * Onboarding guard (SPEC §2.5) of onboarding and v1/wizard: a user who need not onboard goes to
 * the overview; one who must is sent to the variant flag enableUI2Onboarding picks.
 */
export function onboardingGuard(queryClient: QueryClient, variant: 'onboarding' | 'wizard') {
  const activeUser = requireActiveUser(queryClient);
  return async (args: LoaderFunctionArgs): Promise<CurrentUser> => {
    const user = await activeUser(args);
    if (!user.on_boarding_required) throw redirect(ROUTES.dashboard);
    const features = await queryClient.ensureQueryData(uiFeaturesQueryOptions()).catch(() => null);
    const target = onboardingPath(features);
    const here = variant === 'wizard' ? ROUTES.wizard : ROUTES.onboarding.root;
    if (target !== here) throw redirect(target);
    return user;
  };
}

/** Policy access (SPEC §2.4, §6): role admin or user, or the view_policy / view_edit_policy property. */
export function canViewPolicy(user: Pick<CurrentUser, 'role' | 'view_policy' | 'view_edit_policy'>): boolean {
  return user.role === 'admin' || user.role === 'user' || user.view_policy || user.view_edit_policy;
}

/** Policy guard (SPEC §2.5): without policy access the user goes to the no-access page. */
export function policyGuard(queryClient: QueryClient) {
  const shellGuard = featureGuard(queryClient);
  return async (args: LoaderFunctionArgs): Promise<CurrentUser> => {
    const user = await shellGuard(args);
    if (!canViewPolicy(user)) throw redirect(ROUTES.noAccess);
    return user;
  };
}

/** Smart-archiving guard (SPEC §2.4, §2.5): flag enableSmartArchiveTestFF, else the overview. */
export function smartArchivingGuard(queryClient: QueryClient) {
  return featureGuard(queryClient, { feature: 'enableSmartArchiveTestFF', redirectTo: ROUTES.dashboard });
}

/** Runs `guard`, then the route's own loader (if any). */
export function guarded(guard: Loader, loader?: Loader): Loader {
  return async (args) => {
    const user = await guard(args);
    return loader ? loader(args) : user;
  };
}
