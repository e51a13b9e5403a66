import { Divider, Paper } from '@mantine/core';
import { API } from '@moat/contracts/api-paths';
import { Outlet } from 'react-router';
import { BrandLogo } from '../../components/ui/BrandLogo';
import { useTranslation } from '../../lib/i18n';

/** The sign-in area's shared panel: the organisation's logo (or the brand's), vertical divider (horizontal on narrow screens), page. */
export function AuthLayout() {
  const { t } = useTranslation();
  return (
    <main className="auth-layout">
      <Paper withBorder shadow="sm" radius="md" className="auth-panel">
        <div className="auth-panel__brand">
          <BrandLogo src={API.customIconPublic} alt={t('emailActions.customLogoAlt')} size={72} />
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
