import { Outlet } from 'react-router';
import { SignInFrame } from '../../features/public-settings/components/PublicLayout';

/** The sign-in area's shared panel (the same frame as the public bundle's login page). */
export function AuthLayout() {
  return (
    <SignInFrame>
      <Outlet />
    </SignInFrame>
  );
}
