import { Button, Center, EmptyState, Group, Loader, Stack, Text, VisuallyHidden } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';

/**
 * The frame of the DMARC screens that show one card per domain: what the screen is, its control
 * (a period, "Check again"), the wait, the error, and for an organisation without domains what to
 * do next; the cards once the answer is here.
 */
export function DomainsFrame({
  intro,
  control,
  query,
  loading,
  noDomains,
  empty,
  children,
}: {
  intro: ReactNode;
  control: ReactNode;
  query: { isPending: boolean; isError: boolean; error: unknown };
  /** Said to screen readers while the answer is on its way. */
  loading: string;
  /** The answer came and lists no domain. */
  noDomains: boolean;
  empty: { title: string; description: string };
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 18rem' }}>
          {intro}
        </Text>
        {control}
      </Group>
      {query.isPending && (
        <Center py="xl" role="status">
          <Loader />
          <VisuallyHidden>{loading}</VisuallyHidden>
        </Center>
      )}
      {query.isError && <ApiErrorAlert error={query.error} />}
      {noDomains && (
        <EmptyState title={empty.title} description={empty.description} withIndicatorBackground>
          <Button component={Link} to={`${ROUTES.configuration}/settings`} variant="light">
            {t('dmarc.record.openSettings')}
          </Button>
        </EmptyState>
      )}
      {children}
    </Stack>
  );
}
