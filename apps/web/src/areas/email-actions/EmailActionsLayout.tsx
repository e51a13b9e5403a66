import { API } from '@moat/contracts/api-paths';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet } from 'react-router';
import { AppLogo } from '../../components/ui/AppLogo';

/** Public pages' wrapper: the tenant's logo (or the brand's default) above the page. */
export function EmailActionsLayout() {
  const { t } = useTranslation();
  const [logoFailed, setLogoFailed] = useState(false);
  return (
    <main className="public-layout">
      <div className="public-layout__logo">
        {logoFailed ? (
          <AppLogo size={56} />
        ) : (
          <img
            src={API.customIconPublic}
            alt={t('emailActions.customLogoAlt')}
            className="public-layout__logo-image"
            onError={() => setLogoFailed(true)}
          />
        )}
      </div>
      <div className="public-layout__content">
        <Outlet />
      </div>
    </main>
  );
}
