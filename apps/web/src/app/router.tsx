import {
  ROUTE_PATTERNS,
  ROUTES,
  SHELL_AREAS,
  USER_INTERACTION_ROUTES,
  v1PolicyEditPath,
} from '@moat/contracts/routes';
import type { QueryClient } from '@tanstack/react-query';
import { createHashRouter, type LoaderFunctionArgs, type RouteObject, redirect } from 'react-router';
import { PageLoader } from '../components/public/ui';
import { type LoginLoaderData, takeSignInResume } from '../features/auth/sign-in-handover';
import { entryParamsMiddleware } from './entry-url';
import {
  featureGuard,
  guarded,
  onboardingGuard,
  pendingPasswordChange,
  policyGuard,
  redirectIfSignedIn,
  requireActiveUser,
  requireLockedUser,
  smartArchivingGuard,
} from './guards';
import { lazyComponent, lazyElement } from './lazy-route';
import { legacyRoutes } from './legacy-routes';
import { openPublicPage, PUBLIC_PAGE_PATHS } from './public-paths';
import { RootLayout } from './RootLayout';
import { RouteErrorPage } from './RouteErrorPage';
import { startupTokenMiddleware } from './startup-token';

const SHELL_ROUTE_ID = 'shell';

const loadAreaPage = () => import('../areas/shell/AreaPage');
const loadNotFound = () => import('../areas/errors/NotFoundPage');

type ShellAreaKey = (typeof SHELL_AREAS)[number]['key'];

/** The whole route table of SPEC §2. Every area is a lazy chunk; guards are loaders. */
export function createRoutes(queryClient: QueryClient): RouteObject[] {
  const activeUser = requireActiveUser(queryClient);
  const lockedUser = requireLockedUser(queryClient);
  // Every main-shell route runs the feature guard (SPEC §2.5); some add their own rule.
  const shellGuard = featureGuard(queryClient);
  const areaGuards: Partial<Record<ShellAreaKey, typeof shellGuard>> = {
    policy: policyGuard(queryClient),
    smartArchiving: smartArchivingGuard(queryClient),
  };

  return [
    {
      path: ROUTES.root,
      middleware: [entryParamsMiddleware(), startupTokenMiddleware(queryClient)],
      Component: RootLayout,
      HydrateFallback: ConsoleLoading,
      errorElement: <RouteErrorPage />,
      children: [
        {
          // '#/': a signed-in user lands on the overview (SPEC §2.3), anyone else on sign-in.
          index: true,
          loader: async (args: LoaderFunctionArgs) => {
            await redirectIfSignedIn(args);
            return redirect(ROUTES.auth.login);
          },
          element: null,
        },

        // Sign-in area (SPEC §2.1)
        {
          path: ROUTES.auth.root,
          lazy: lazyComponent(() => import('../areas/auth/AuthLayout'), 'AuthLayout'),
          children: [
            { index: true, loader: () => redirect(ROUTES.auth.login), element: null },
            {
              path: ROUTES.auth.login,
              // A sign-in the public bundle's login page started goes on here; else a browser with
              // a session goes to the overview.
              loader: async (args: LoaderFunctionArgs): Promise<LoginLoaderData> => ({
                resume: takeSignInResume() ?? (await pendingPasswordChange(args)),
              }),
              lazy: lazyComponent(() => import('../areas/auth/LoginPage'), 'LoginPage'),
            },
            {
              path: ROUTES.auth.forgotPassword,
              loader: redirectIfSignedIn,
              lazy: lazyComponent(() => import('../areas/auth/ForgotPasswordPage'), 'ForgotPasswordPage'),
            },
            {
              path: ROUTES.auth.resetPassword,
              lazy: lazyComponent(() => import('../areas/auth/ResetPasswordPage'), 'ResetPasswordPage'),
            },
            {
              path: ROUTE_PATTERNS.passwordExpired,
              lazy: lazyComponent(() => import('../areas/auth/PasswordExpiredPage'), 'PasswordExpiredPage'),
            },
            {
              path: ROUTES.auth.samlLogin,
              lazy: lazyElement(
                () => import('../areas/auth/ExternalSignInPage'),
                (m) => <m.ExternalSignInPage provider="saml" />,
              ),
            },
            {
              path: ROUTES.auth.office365,
              lazy: lazyElement(
                () => import('../areas/auth/ExternalSignInPage'),
                (m) => <m.ExternalSignInPage provider="office365" />,
              ),
            },
            {
              path: ROUTES.auth.loginGoogle,
              lazy: lazyElement(
                () => import('../areas/auth/ExternalSignInPage'),
                (m) => <m.ExternalSignInPage provider="google" />,
              ),
            },
          ],
        },
        {
          path: ROUTES.sonicwallLogin,
          lazy: lazyComponent(() => import('../areas/auth/SonicwallLoginPage'), 'SonicwallLoginPage'),
        },

        // The public email-actions pages (SPEC §2.2) are a bundle of their own (src/public-main.tsx).
        // The router reaching one of them (a legacy path, another spelling, a link whose sign-in
        // token the entry middleware has used up) puts the page's own path in the window's hash
        // and loads afresh: the boot script then loads that bundle.
        ...PUBLIC_PAGE_PATHS.map(
          (path): RouteObject => ({
            path,
            loader: ({ request }: LoaderFunctionArgs) => {
              openPublicPage(path, new URL(request.url).searchParams);
              return null;
            },
            element: null,
          }),
        ),

        // Error pages (SPEC §2.3)
        {
          path: ROUTES.errors.root,
          lazy: lazyComponent(() => import('../areas/errors/ErrorsLayout'), 'ErrorsLayout'),
          children: [
            {
              path: ROUTES.errors.unauthorized,
              lazy: lazyComponent(() => import('../areas/errors/ErrorPages'), 'UnauthorizedPage'),
            },
            {
              path: ROUTES.errors.forbidden,
              lazy: lazyComponent(() => import('../areas/errors/ErrorPages'), 'ForbiddenPage'),
            },
            {
              path: ROUTE_PATTERNS.forbiddenWithRest,
              lazy: lazyComponent(() => import('../areas/errors/ErrorPages'), 'ForbiddenPage'),
            },
            {
              path: ROUTES.errors.gone,
              lazy: lazyComponent(() => import('../areas/errors/ErrorPages'), 'GonePage'),
            },
            { index: true, lazy: lazyComponent(loadNotFound, 'NotFoundMessage') },
          ],
        },

        // Locked account (SPEC §2.3, §4 "Locked account")
        {
          path: ROUTES.accessBlocked.root,
          loader: lockedUser,
          lazy: lazyComponent(
            () => import('../areas/access-blocked/AccessBlockedLayout'),
            'AccessBlockedLayout',
          ),
          children: [
            { index: true, loader: () => redirect(ROUTES.accessBlocked.customerLocked), element: null },
            {
              path: ROUTES.accessBlocked.customerLocked,
              lazy: lazyComponent(
                () => import('../areas/access-blocked/AccessBlockedPages'),
                'CustomerLockedPage',
              ),
            },
            {
              path: ROUTES.accessBlocked.requestSent,
              lazy: lazyComponent(
                () => import('../areas/access-blocked/AccessBlockedPages'),
                'RequestSentPage',
              ),
            },
          ],
        },

        // Onboarding and wizard (guarded)
        {
          path: ROUTES.onboarding.root,
          loader: onboardingGuard(queryClient, 'onboarding'),
          lazy: lazyComponent(() => import('../areas/onboarding/OnboardingLayout'), 'OnboardingLayout'),
          children: [
            {
              index: true,
              lazy: lazyComponent(() => import('../areas/onboarding/OnboardingPages'), 'OnboardingPage'),
            },
            {
              path: ROUTES.onboarding.saasSelection,
              lazy: lazyComponent(() => import('../areas/onboarding/OnboardingPages'), 'SaasSelectionPage'),
            },
            {
              path: ROUTES.onboarding.allSet,
              lazy: lazyComponent(() => import('../areas/onboarding/OnboardingPages'), 'AllSetPage'),
            },
          ],
        },
        {
          path: ROUTES.wizard,
          loader: onboardingGuard(queryClient, 'wizard'),
          lazy: lazyComponent(() => import('../areas/onboarding/OnboardingPages'), 'WizardPage'),
        },
        {
          path: ROUTES.redirectRoute,
          loader: async (args: LoaderFunctionArgs) => {
            await activeUser(args);
            return redirect(ROUTES.dashboard);
          },
          element: null,
        },

        // Main shell (SPEC §2.4)
        {
          id: SHELL_ROUTE_ID,
          loader: activeUser,
          lazy: lazyComponent(() => import('../areas/shell/ShellLayout'), 'ShellLayout', {
            areaTexts: false,
          }),
          children: [
            {
              path: USER_INTERACTION_ROUTES.restoreRequests,
              loader: shellGuard,
              lazy: lazyComponent(
                () => import('../areas/user-interaction/RestoreRequestsPage'),
                'RestoreRequestsPage',
              ),
            },
            {
              path: USER_INTERACTION_ROUTES.quarantineItems,
              loader: shellGuard,
              lazy: lazyComponent(
                () => import('../areas/user-interaction/QuarantineItemsPage'),
                'QuarantineItemsPage',
              ),
            },
            ...SHELL_AREAS.map(
              (area): RouteObject => ({
                path: `/${area.path}/*`,
                loader: areaGuards[area.key] ?? shellGuard,
                lazy: lazyElement(loadAreaPage, (m) => <m.AreaPage area={area.key} />, { areaTexts: false }),
              }),
            ),
            {
              path: ROUTES.archiveSearch,
              loader: shellGuard,
              lazy: lazyElement(
                loadAreaPage,
                (m) => <m.AreaPage area="archiving" section="archiveSearch" />,
                {
                  areaTexts: false,
                },
              ),
            },
            {
              path: ROUTES.trial,
              // The trial page itself bypasses the trial and onboarding redirects (route data flag).
              loader: featureGuard(queryClient, { bypass: true }),
              lazy: lazyComponent(() => import('../areas/shell/TrialPage'), 'TrialPage'),
            },
            {
              path: ROUTE_PATTERNS.policyEdit,
              loader: guarded(shellGuard, async ({ params }) => redirect(v1PolicyEditPath(params.id ?? ''))),
              element: null,
            },
            ...[ROUTE_PATTERNS.v1Feature, ROUTE_PATTERNS.v1Subfeature, ROUTE_PATTERNS.v1SubfeatureId].map(
              (path): RouteObject => ({
                path,
                loader: shellGuard,
                lazy: lazyComponent(() => import('../areas/shell/FeaturePage'), 'FeaturePage'),
              }),
            ),
          ],
        },

        ...legacyRoutes(),

        { path: ROUTE_PATTERNS.notFound, lazy: lazyComponent(loadNotFound, 'NotFoundPage') },
      ],
    },
  ];
}

export function createAppRouter(queryClient: QueryClient) {
  return createHashRouter(createRoutes(queryClient));
}

/** While the console's first route loads: the page loader the public pages show too (SPEC §9). */
function ConsoleLoading() {
  return <PageLoader done={false} />;
}
