import { API } from '@moat/contracts/api-paths';
import { useTranslation } from 'react-i18next';
import { BrandLogo } from '../../components/ui/BrandLogo';

/** The side menu's logo: the tenant's custom logo, or the brand's own when there is none. */
export function TenantLogo({ size }: { size: number }) {
  const { t } = useTranslation();
  return <BrandLogo src={API.customIcon} alt={t('nav.tenantLogoAlt')} size={size} />;
}
