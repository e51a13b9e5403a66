import { Badge } from '@mantine/core';
import type { DeploymentConfig } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags } from '@moat/contracts/features';
import { useTranslation } from '../../../lib/i18n';
import { type NavbarLabelKind, navbarLabel } from '../licence-status';

const COLOR: Record<NavbarLabelKind, string> = {
  licenceExpired: 'red',
  expired: 'red',
  licenceAboutToExpire: 'orange',
  daysLeft: 'brand',
  premium: 'brand',
  demo: 'gray',
};

/** SPEC §4 "Navbar label": the licence or trial status under the side menu's logo. */
export function LicenceNavbarLabel({
  deployment,
  features,
  user,
}: {
  deployment: DeploymentConfig;
  features: FeatureFlags;
  user: CurrentUser;
}) {
  const { t } = useTranslation();
  const label = navbarLabel({ deployment, features, user });
  if (!label) return null;
  const text = {
    licenceExpired: () => t('licence.label.licenceExpired'),
    licenceAboutToExpire: () => t('licence.label.licenceAboutToExpire', { count: label.count ?? 0 }),
    premium: () => t('licence.label.premium'),
    demo: () => t('licence.label.demo'),
    daysLeft: () => t('licence.label.daysLeft', { count: label.count ?? 0 }),
    expired: () => t('licence.label.expired'),
  }[label.kind]();
  return (
    <Badge
      variant="light"
      color={COLOR[label.kind]}
      radius="sm"
      className={label.className}
      data-label={label.kind}
      style={{ textTransform: 'none' }}
    >
      {text}
    </Badge>
  );
}
