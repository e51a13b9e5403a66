import type { ReactNode } from 'react';
import { AppLogo } from './AppLogo';

/** A page with the logo on top and one centred panel: errors, blocked account, onboarding. */
export function CenteredPage({
  children,
  logo,
  wide = false,
}: {
  children: ReactNode;
  logo?: ReactNode;
  /** A wider panel (onboarding's records and forms). */
  wide?: boolean;
}) {
  return (
    <main className="centered-page">
      <div className="centered-page__logo">{logo ?? <AppLogo size={48} />}</div>
      <div className={wide ? 'centered-page__body centered-page__body--wide' : 'centered-page__body'}>
        {children}
      </div>
    </main>
  );
}
