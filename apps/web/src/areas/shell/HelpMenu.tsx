import { ActionIcon, Menu, VisuallyHidden } from '@mantine/core';
import { API } from '@moat/contracts/api-paths';
import { Link } from 'react-router';
import { PRODUCT_UPDATES_PATH, SERVICE_STATUS_PATH } from '../../features/navigation/nav-items';
import { useTranslation } from '../../lib/i18n';
import { ShellIcon } from './ShellIcons';

/** SPEC §2.4 help menu: version info dialog, status, product updates, documentation, contact support. */
export function HelpMenu({
  supportEmail,
  onVersionInfo,
}: {
  /** Null: no support address is set, and the entry says so. */
  supportEmail: string | null;
  onVersionInfo: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Menu position="bottom-end" withinPortal hideDetached={false}>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" size="lg" aria-label={t('shell.help.label')}>
          <ShellIcon name="help" />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={onVersionInfo}>{t('shell.help.versionInfo')}</Menu.Item>
        <Menu.Item component={Link} to={SERVICE_STATUS_PATH}>
          {t('shell.help.status')}
        </Menu.Item>
        <Menu.Item component={Link} to={PRODUCT_UPDATES_PATH}>
          {t('shell.help.productUpdates')}
        </Menu.Item>
        <Menu.Item component="a" href={API.userGuide} target="_blank" rel="noopener noreferrer">
          {t('shell.help.documentation')}
          <VisuallyHidden> {t('shell.help.newTab')}</VisuallyHidden>
        </Menu.Item>
        {supportEmail ? (
          <Menu.Item component="a" href={`mailto:${supportEmail}`}>
            {t('shell.help.contactSupport')}
          </Menu.Item>
        ) : (
          <Menu.Item disabled>{t('shell.help.noSupportAddress')}</Menu.Item>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
