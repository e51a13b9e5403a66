import { API } from '@moat/contracts/api-paths';
import { useTranslation } from 'react-i18next';
import { Outlet } from 'react-router';
import { BrandLogo } from '../../components/ui/BrandLogo';

/** Public pages' wrapper: the tenant's logo (or the brand's default) above the page. */
export function EmailActionsLayout() {
  const { t } = useTranslation();
  return (
    <main className="public-layout">
      <div className="public-layout__logo">
        <BrandLogo
          src={API.customIconPublic}
          alt={t('emailActions.customLogoAlt')}
          size={56}
          className="public-layout__logo-image"
        />
      </div>
      <div className="public-layout__content">
        <Outlet />
      </div>
    </main>
  );
}
