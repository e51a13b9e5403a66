import { Divider, Paper } from '@mantine/core';
import { Outlet } from 'react-router';
import { AppLogo } from '../../components/ui/AppLogo';

/** The sign-in area's shared panel: logo, vertical divider (horizontal on narrow screens), page. */
export function AuthLayout() {
  return (
    <main className="auth-layout">
      <Paper withBorder shadow="sm" radius="md" className="auth-panel">
        <div className="auth-panel__brand">
          <AppLogo size={72} />
        </div>
        <Divider orientation="vertical" visibleFrom="sm" />
        <Divider hiddenFrom="sm" />
        <div className="auth-panel__content">
          <Outlet />
        </div>
      </Paper>
    </main>
  );
}
