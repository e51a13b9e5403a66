import type { CurrentUser } from '@moat/contracts/current-user';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Outlet, useLoaderData } from 'react-router';
import { CenteredPage } from '../../components/ui/CenteredPage';
import { deploymentQueryOptions } from '../../lib/console-data/get-deployment';
import { useSavedTheme } from '../../lib/use-saved-theme';

/** One wide centred panel in the user's theme (as the console's); the route's guard loads the user. */
export function OnboardingFrame({ children }: { children: ReactNode }) {
  const user = useLoaderData<CurrentUser>();
  const deployment = useQuery(deploymentQueryOptions()).data;
  useSavedTheme(user, deployment?.default_application_mode);
  return <CenteredPage wide>{children}</CenteredPage>;
}

/** Onboarding's pages (onboarding, saas-selection, all-set). */
export function OnboardingLayout() {
  return (
    <OnboardingFrame>
      <Outlet />
    </OnboardingFrame>
  );
}
