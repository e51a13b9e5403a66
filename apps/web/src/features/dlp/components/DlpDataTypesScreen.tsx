import { Center, Loader, Stack, Tabs, Text } from '@mantine/core';
import { OUTBOUND_HELD_ROUTE } from '@moat/contracts/outbound';
import { ROUTES } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { dlpSettingsQueryOptions } from '../api/dlp';
import { CustomRulesPanel } from './CustomRulesPanel';
import { DataTypesPanel } from './DataTypesPanel';
import { HeldMailPanel } from './HeldMailPanel';
import { TryDlpPanel } from './TryDlpPanel';

const BASE = `${ROUTES.configuration}/data-types`;
const TABS = ['types', 'custom', 'try', 'held'] as const;
type Tab = (typeof TABS)[number];
const PATH_OF: Record<Tab, string> = {
  types: BASE,
  custom: `${BASE}/custom`,
  try: `${BASE}/try`,
  held: OUTBOUND_HELD_ROUTE,
};

const tabOf = (pathname: string): Tab =>
  TABS.find((tab) => tab !== 'types' && pathname.replace(/\/+$/, '') === PATH_OF[tab]) ?? 'types';

/**
 * Security Settings → DLP Data Types (issue 38): what outbound mail must not carry, each type's
 * action and threshold, the organisation's own rules, a box to try them, and the mail they held.
 * Each tab has its address (the alert about held mail links to its tab).
 */
export function DlpDataTypesScreen() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const tab = tabOf(location.pathname);
  const settings = useQuery(dlpSettingsQueryOptions());
  return (
    <Stack gap="md">
      <Text size="sm">{t('dlp.intro')}</Text>
      <Tabs value={tab} onChange={(value) => value && navigate(PATH_OF[value as Tab])} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="types">{t('dlp.tabs.types')}</Tabs.Tab>
          <Tabs.Tab value="custom">{t('dlp.tabs.custom')}</Tabs.Tab>
          <Tabs.Tab value="try">{t('dlp.tabs.try')}</Tabs.Tab>
          <Tabs.Tab value="held">{t('dlp.tabs.held')}</Tabs.Tab>
        </Tabs.List>
        <Stack pt="md">
          {tab === 'held' ? (
            <HeldMailPanel />
          ) : tab === 'try' ? (
            <TryDlpPanel />
          ) : settings.isPending ? (
            <Center py="xl">
              <Loader aria-label={t('dlp.loading')} />
            </Center>
          ) : settings.isError ? (
            <ApiErrorAlert error={settings.error} />
          ) : tab === 'custom' ? (
            <CustomRulesPanel rules={settings.data.customRules} />
          ) : (
            <DataTypesPanel dataTypes={settings.data.dataTypes} />
          )}
        </Stack>
      </Tabs>
    </Stack>
  );
}
