import {
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import type { Overview } from '@moat/contracts/console';
import { ROUTES, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Breakable } from '../../../components/ui/Breakable';
import { FitTable } from '../../../components/ui/FitTable';
import { overviewQueryOptions } from '../../../lib/console-data/get-overview';
import { formatDateTime } from '../../../lib/format';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useCanOpen } from '../../session/use-can-open';

const VERDICTS = ['phishing', 'malware', 'spam', 'suspicious'] as const;
type Verdict = (typeof VERDICTS)[number];
const VERDICT_LABEL = {
  phishing: 'overview.verdicts.phishing',
  malware: 'overview.verdicts.malware',
  spam: 'overview.verdicts.spam',
  suspicious: 'overview.verdicts.suspicious',
} as const satisfies Record<Verdict, string>;

interface Tile {
  label: TranslationKey;
  /** What the figure counts, and over which period. */
  caption: TranslationKey;
  value: number;
  /** The page the count comes from, and its title. */
  to: string;
  page: TranslationKey;
  /** Parts of the count, each opening the page filtered to it. */
  breakdown?: Array<{ label: TranslationKey; value: number; to: string }>;
}

/** Mail Explorer over the Overview's period (its mail figures cover the last 30 days), optionally filtered. */
const mailOf = (filters: Record<string, string> = {}) =>
  `${ROUTES.mailExplorer}?${new URLSearchParams({ ...filters, range: '30d' })}`;

/**
 * The mail of the last 30 days, counted as the Analytics dashboard counts it (the same figures
 * over the same period), then what waits now.
 */
function tiles(data: Overview): Tile[] {
  const mail = data.mail_30d;
  return [
    {
      label: 'mailSummary.messages',
      caption: 'mailSummary.messagesCaption',
      value: mail.messages,
      to: mailOf(),
      page: 'nav.items.mailExplorer',
    },
    {
      label: 'mailSummary.notClean',
      caption: 'mailSummary.notCleanCaption',
      value: mail.not_clean,
      to: mailOf(),
      page: 'nav.items.mailExplorer',
      breakdown: VERDICTS.map((verdict) => ({
        label: VERDICT_LABEL[verdict],
        value: mail.verdict[verdict],
        to: mailOf({ verdict }),
      })),
    },
    {
      label: 'mailSummary.held',
      caption: 'mailSummary.heldCaption',
      value: mail.held,
      to: mailOf(),
      page: 'nav.items.mailExplorer',
    },
    {
      label: 'mailSummary.deliveredBanner',
      caption: 'mailSummary.deliveredBannerCaption',
      value: mail.delivered_banner,
      to: mailOf({ action: 'delivered_banner' }),
      page: 'nav.items.mailExplorer',
    },
    {
      label: 'overview.quarantined',
      caption: 'overview.quarantinedCaption',
      value: data.quarantined,
      to: USER_INTERACTION_ROUTES.quarantineItems,
      page: 'nav.items.quarantinedItems',
    },
    {
      label: 'overview.pendingRequests',
      caption: 'overview.pendingRequestsCaption',
      value: data.pending_requests,
      to: USER_INTERACTION_ROUTES.restoreRequests,
      page: 'nav.items.restoreRequests',
    },
    {
      label: 'overview.restored30d',
      caption: 'overview.restored30dCaption',
      value: data.restored_30d,
      to: USER_INTERACTION_ROUTES.restoreRequests,
      page: 'nav.items.restoreRequests',
    },
  ];
}

function CountCard({ tile }: { tile: Tile }) {
  const { t, i18n } = useTranslation();
  const canOpen = useCanOpen();
  const number = (value: number) => new Intl.NumberFormat(i18n.language).format(value);
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-label={t(tile.label)}>
      <Stack gap={4} h="100%">
        <Text size="sm" c="dimmed" fw={600}>
          {t(tile.label)}
        </Text>
        <Text fz={32} fw={700} lh={1.1}>
          {number(tile.value)}
        </Text>
        <Text size="xs" c="dimmed">
          {t(tile.caption, { period: t('mailSummary.last30Days') })}
        </Text>
        {tile.breakdown && (
          <Group gap="sm" wrap="wrap">
            {tile.breakdown.map((part) => (
              <Anchor key={part.label} component={Link} to={part.to} size="xs" c="dimmed">
                {t(part.label)}: {number(part.value)}
              </Anchor>
            ))}
          </Group>
        )}
        {canOpen(tile.to) && (
          <Anchor component={Link} to={tile.to} size="sm" mt="auto">
            {t('overview.open', { page: t(tile.page) })}
          </Anchor>
        )}
      </Stack>
    </Card>
  );
}

/** The overview dashboard (/dashboard): the tenant's counts, each linking to its page, and the newest events. */
export function OverviewDashboard() {
  const { t, i18n } = useTranslation();
  const overview = useQuery(overviewQueryOptions());

  if (overview.isPending) {
    return (
      <div role="status" aria-live="polite">
        <VisuallyHidden>{t('overview.loading')}</VisuallyHidden>
        <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="md">
          {[0, 1, 2, 3].map((card) => (
            <Skeleton key={card} height={132} radius="md" />
          ))}
        </SimpleGrid>
      </div>
    );
  }

  if (overview.isError) {
    return (
      <Alert color="red" variant="light" title={t('overview.error')}>
        <Button variant="light" color="red" size="xs" mt="xs" onClick={() => void overview.refetch()}>
          {t('overview.retry')}
        </Button>
      </Alert>
    );
  }

  const verdictLabel = (verdict: string) => {
    const key = VERDICT_LABEL[verdict as Verdict];
    return key ? t(key) : verdict;
  };

  return (
    <Stack gap="lg">
      <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="md">
        {tiles(overview.data).map((tile) => (
          <CountCard key={tile.label} tile={tile} />
        ))}
      </SimpleGrid>
      <section aria-labelledby="overview-recent-events">
        <Title order={2} size="h4" id="overview-recent-events" mb="xs">
          {t('overview.recentEvents')}
        </Title>
        {overview.data.recent_events.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('overview.noRecentEvents')}
          </Text>
        ) : (
          <FitTable
            caption={t('overview.recentEventsTable')}
            rows={overview.data.recent_events}
            rowKey={(event) => event.id}
            columns={[
              {
                key: 'detected',
                label: t('overview.columns.detected'),
                width: '11rem',
                cell: (event) => formatDateTime(event.detected_at, i18n.language),
              },
              {
                key: 'verdict',
                label: t('overview.columns.verdict'),
                width: '7rem',
                cell: (event) => verdictLabel(event.verdict),
              },
              {
                key: 'subject',
                label: t('overview.columns.subject'),
                title: true,
                cell: (event) => (
                  <Anchor
                    component={Link}
                    to={`${ROUTES.securityEvents}/${event.id}`}
                    size="sm"
                    className="list-text-anywhere"
                  >
                    {event.subject}
                  </Anchor>
                ),
              },
              {
                key: 'recipient',
                label: t('overview.columns.recipient'),
                cell: (event) => <Breakable text={event.recipient} />,
              },
            ]}
          />
        )}
      </section>
    </Stack>
  );
}
