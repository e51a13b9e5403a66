import '@mantine/charts/styles.css';
import './analytics.css';
import {
  Alert,
  Button,
  Center,
  EmptyState,
  Group,
  Loader,
  NativeSelect,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { DATE_RANGE_PRESETS, type DateRangePreset } from '@moat/contracts/list';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { type RangeChoice, rangeQuery } from '../../../components/list/use-list-state';
import { ApiErrorMessage } from '../../../components/ui/ApiErrorAlert';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useAnalytics } from '../api/get-analytics';
import { ACTION_SERIES, type DrillRange, VERDICT_SERIES } from '../drill-down';
import { AuthRates, EnginesChart, TopTable, VolumeChart } from './AnalyticsCharts';

/** The Overview's period: without a choice, the dashboard shows the figures the Overview shows. */
const DEFAULT_RANGE: DateRangePreset = '30d';
const isRange = (value: string): value is Exclude<RangeChoice, ''> =>
  (DATE_RANGE_PRESETS as readonly string[]).includes(value) || value === 'custom';

/** The dashboard's range, held in the address like the lists' (range, from, to), last 30 days by default. */
function useDashboardRange() {
  const [params, setParams] = useSearchParams();
  const raw = params.get('range') ?? '';
  const range: Exclude<RangeChoice, ''> = isRange(raw) ? raw : DEFAULT_RANGE;
  const fromDay = range === 'custom' ? (params.get('from') ?? '') : '';
  const toDay = range === 'custom' ? (params.get('to') ?? '') : '';
  const minute = Math.floor(Date.now() / 60_000);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a preset moves with the minute, not every render
  const query = useMemo(() => rangeQuery(range, fromDay, toDay, Date.now()), [range, fromDay, toDay, minute]);
  const setRange = (next: Exclude<RangeChoice, ''>, from = '', to = '') => {
    const changed = new URLSearchParams(params);
    changed.set('range', next);
    for (const [name, value] of [
      ['from', from],
      ['to', to],
    ] as const) {
      if (next === 'custom' && value) changed.set(name, value);
      else changed.delete(name);
    }
    setParams(changed, { replace: true });
  };
  return { range, fromDay, toDay, query, setRange };
}

function RangePicker({ state }: { state: ReturnType<typeof useDashboardRange> }) {
  const { t } = useTranslation();
  const { range, fromDay, toDay, setRange } = state;
  return (
    <Group gap="sm" align="flex-end" wrap="wrap">
      <NativeSelect
        name="range"
        label={t('list.range.label')}
        data={[
          ...DATE_RANGE_PRESETS.map((preset) => ({ value: preset, label: t(`list.range.${preset}`) })),
          { value: 'custom', label: t('list.range.custom') },
        ]}
        value={range}
        onChange={(event) => setRange(event.currentTarget.value as Exclude<RangeChoice, ''>, fromDay, toDay)}
        className="list-toolbar__filter"
      />
      {range === 'custom' && (
        <>
          <TextInput
            type="date"
            name="from"
            label={t('list.range.from')}
            value={fromDay}
            max={toDay || undefined}
            onChange={(event) => setRange('custom', event.currentTarget.value, toDay)}
            className="list-toolbar__date"
          />
          <TextInput
            type="date"
            name="to"
            label={t('list.range.to')}
            value={toDay}
            min={fromDay || undefined}
            onChange={(event) => setRange('custom', fromDay, event.currentTarget.value)}
            className="list-toolbar__date"
          />
        </>
      )}
    </Group>
  );
}

/** One headline number, and what it counts. */
function Total({ label, value, caption }: { label: string; value: number; caption: string }) {
  const { i18n } = useTranslation();
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label={label}>
      <Text size="sm" c="dimmed" fw={600}>
        {label}
      </Text>
      <Text fz="xl" fw={700}>
        {new Intl.NumberFormat(i18n.language).format(value)}
      </Text>
      <Text size="xs" c="dimmed">
        {caption}
      </Text>
    </Paper>
  );
}

/**
 * Analytics Dashboard (/analytics/dashboard): the tenant's mail over a time range by verdict and
 * action, who is targeted, who is blocked, what detected it and how mail authenticates. Every
 * chart opens Mail Explorer or Security Events filtered to what it shows.
 */
export function AnalyticsScreen() {
  const { t, i18n } = useTranslation();
  const state = useDashboardRange();
  const answer = useAnalytics(state.query);
  const drill: DrillRange = { range: state.range, fromDay: state.fromDay, toDay: state.toDay };
  const data = answer.data;

  let body: React.ReactNode;
  if (answer.isPending) {
    body = (
      <Center py="xl" role="status">
        <Loader />
        <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
      </Center>
    );
  } else if (answer.error || !data) {
    body = (
      <Alert color="red" variant="light" role="alert" title={t('analytics.loadFailed')}>
        <Stack gap="xs" align="flex-start">
          <ApiErrorMessage error={answer.error} />
          <Button size="xs" variant="light" onClick={() => answer.refetch()}>
            {t('quarantine.list.retry')}
          </Button>
        </Stack>
      </Alert>
    );
  } else if (data.totals.messages === 0 && data.engines.length === 0) {
    body = (
      <EmptyState
        title={t('analytics.emptyTitle')}
        description={t('analytics.emptyDescription')}
        withIndicatorBackground
      />
    );
  } else {
    const { summary } = data;
    const day = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' });
    // The range ends just before `to`: its last day is the day of the last instant.
    const period = t('analytics.period', {
      from: day.format(new Date(summary.from)),
      to: day.format(new Date(new Date(summary.to).getTime() - 1)),
    });
    const caption = (key: TranslationKey) => t(key, { period });
    const bucket = t(data.bucket === 'hour' ? 'analytics.bucket.hour' : 'analytics.bucket.day');
    body = (
      <Stack gap="md">
        <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="sm">
          <Total
            label={t('mailSummary.messages')}
            value={summary.messages}
            caption={caption('mailSummary.messagesCaption')}
          />
          <Total
            label={t('mailSummary.notClean')}
            value={summary.not_clean}
            caption={caption('mailSummary.notCleanCaption')}
          />
          <Total
            label={t('mailSummary.held')}
            value={summary.held}
            caption={caption('mailSummary.heldCaption')}
          />
          <Total
            label={t('mailSummary.deliveredBanner')}
            value={summary.delivered_banner}
            caption={caption('mailSummary.deliveredBannerCaption')}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
          <VolumeChart
            title={t('analytics.byVerdict')}
            caption={t('analytics.byVerdictCaption', { period, bucket })}
            data={data}
            pick={(bucket) => bucket.verdict}
            series={VERDICT_SERIES}
            totals={data.totals.verdict}
            filterOf={(verdict) => ({ verdict })}
            range={drill}
          />
          <VolumeChart
            title={t('analytics.byAction')}
            caption={t('analytics.byActionCaption', { period, bucket })}
            data={data}
            pick={(bucket) => bucket.action}
            series={ACTION_SERIES}
            totals={data.totals.action}
            filterOf={(action) => ({ action })}
            range={drill}
          />
          <TopTable
            title={t('analytics.topRecipients')}
            description={t('analytics.topRecipientsHint')}
            column={t('analytics.columns.recipient')}
            rows={data.top_recipients.map((r) => ({
              key: r.address,
              label: r.address,
              search: r.address,
              count: r.count,
            }))}
            range={drill}
          />
          <TopTable
            title={t('analytics.topSenders')}
            description={t('analytics.blockedHint')}
            column={t('analytics.columns.sender')}
            rows={data.top_senders.map((s) => ({
              key: s.address,
              label: s.address,
              search: s.address,
              count: s.count,
            }))}
            range={drill}
          />
          <TopTable
            title={t('analytics.topDomains')}
            description={t('analytics.blockedHint')}
            column={t('analytics.columns.domain')}
            rows={data.top_sender_domains.map((d) => ({
              key: d.domain,
              label: d.domain,
              search: `@${d.domain}`,
              count: d.count,
            }))}
            range={drill}
          />
          <EnginesChart
            engines={data.engines}
            range={drill}
            caption={t('analytics.enginesCaption', { period })}
          />
          <AuthRates auth={data.auth} />
        </SimpleGrid>
      </Stack>
    );
  }

  return (
    <Stack gap="md">
      <RangePicker state={state} />
      {body}
    </Stack>
  );
}
