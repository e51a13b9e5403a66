import { Anchor, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { INTERACTION_SETTINGS_ROUTES } from '@moat/contracts/routes';
import { Link } from 'react-router';
import { useTranslation } from '../../../lib/i18n';

/** Settings → User Interaction itself: its two pages, each said in a line (the breadcrumb leads here). */
export function UserInteractionSettingsIndex() {
  const { t } = useTranslation();
  const pages = [
    {
      to: INTERACTION_SETTINGS_ROUTES.quarantine,
      title: t('nav.items.quarantine'),
      text: t('interactionSettings.index.quarantine'),
    },
    {
      to: INTERACTION_SETTINGS_ROUTES.reports,
      title: t('nav.items.phishingReports'),
      text: t('interactionSettings.index.reports'),
    },
    {
      to: INTERACTION_SETTINGS_ROUTES.smartBanners,
      title: t('nav.items.smartBanners'),
      text: t('interactionSettings.index.smartBanners'),
    },
  ];
  return (
    <SimpleGrid cols={{ base: 1, md: 3 }}>
      {pages.map((page) => (
        <Paper key={page.to} withBorder p="md" radius="md">
          <Stack gap="xs">
            <Title order={2} size="h4">
              <Anchor component={Link} to={page.to} inherit>
                {page.title}
              </Anchor>
            </Title>
            <Text size="sm">{page.text}</Text>
          </Stack>
        </Paper>
      ))}
    </SimpleGrid>
  );
}
