import { API } from '@moat/contracts/api-paths';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppLogo } from '../../components/ui/AppLogo';

/** The side menu's logo: the tenant's custom logo, or the brand's own when there is none. */
export function TenantLogo({ size }: { size: number }) {
  const { t } = useTranslation();
  const [failed, setFailed] = useState(false);
  if (failed) return <AppLogo size={size} />;
  return (
    <img
      src={API.customIcon}
      alt={t('nav.tenantLogoAlt')}
      style={{ maxHeight: size, maxWidth: '100%', objectFit: 'contain' }}
      onError={() => setFailed(true)}
    />
  );
}
