import { API } from '@moat/contracts/api-paths';
import { BrandLogo } from '../../components/ui/BrandLogo';
import { useTranslation } from '../../lib/i18n';

/** The side menu's logo: the tenant's custom logo, or the brand's own when there is none. */
export function TenantLogo({ size }: { size: number }) {
  const { t } = useTranslation();
  return <BrandLogo src={API.customIcon} alt={t('nav.tenantLogoAlt')} size={size} />;
}
