import type { ReactNode } from 'react';
import { AppLogo } from './AppLogo';

/** A page with the logo on top and one centred panel: errors, blocked account, onboarding. */
export function CenteredPage({ children, logo }: { children: ReactNode; logo?: ReactNode }) {
  return (
    <main className="centered-page">
      <div className="centered-page__logo">{logo ?? <AppLogo size={48} />}</div>
      <div className="centered-page__body">{children}</div>
    </main>
  );
}
