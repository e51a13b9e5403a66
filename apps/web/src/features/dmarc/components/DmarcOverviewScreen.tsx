import { AreaChart } from '@mantine/charts';
import {
  Alert,
  Anchor,
  Badge,
  Code,
  ColorSwatch,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { type DomainOverview, suggestedDmarcRecord } from '@moat/contracts/dmarc';
import { ROUTES } from '@moat/contracts/routes';
import { useId } from 'react';
import { Link } from 'react-router';
import { drillDownHref, rangeOfDays } from '../../../lib/drill-down';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useDmarcOverview, useReverseNames } from '../api/dmarc';
import { DomainsFrame } from './DomainsFrame';
import { OnlyDomain, PeriodControl, useDrillPeriod } from './Period';
import { RecordToPublish, WRAP } from './RecordToPublish';

const EXPLORER = `${ROUTES.dmarc}/rua-explorer`;

const SERIES = [
  { name: 'passed', label: 'dmarc.overview.passed', color: 'teal.6' },
  { name: 'failed', label: 'dmarc.overview.failed', color: 'red.6' },
] as const satisfies readonly { name: string; label: TranslationKey; color: string }[];

const rateOf = (passed: number, messages: number) =>
  messages === 0 ? null : Math.round((passed / messages) * 1000) / 10;

/** The policy a domain publishes, as a badge: what receivers do with mail that fails. */
function PolicyBadge({ domain }: { domain: DomainOverview }) {
  const { t } = useTranslation();
  const { status, policy } = domain.published;
  if (status === 'unknown')
    return (
      <Badge variant="light" color="gray" className="quarantine-badge">
        {t('dmarc.overview.policy.unknown')}
      </Badge>
    );
  if (status === 'missing')
    return (
      <Badge variant="light" color="red" className="quarantine-badge">
        {t('dmarc.overview.policy.missing')}
      </Badge>
    );
  const p = (policy ?? '').toLowerCase();
  const color = p === 'reject' ? 'green' : p === 'quarantine' ? 'teal' : 'yellow';
  return (
    <Badge variant="light" color={color} className="quarantine-badge">
      {t('dmarc.overview.policy.published', { policy: p || '?' })}
    </Badge>
  );
}

/** The record to publish so reports come here: exact name and value, with a copy button. */
function PublishRecord({ domain }: { domain: DomainOverview }) {
  const { t } = useTranslation();
  const { published, reportAddress } = domain;
  const name = `_dmarc.${domain.domain}`;
  if (published.status === 'found' && published.reportsHere)
    return (
      <Stack gap={4}>
        <Text size="sm">{t('dmarc.overview.reportsHere', { address: reportAddress })}</Text>
        <Code block style={WRAP}>
          {published.record}
        </Code>
      </Stack>
    );
  const value = suggestedDmarcRecord(published.status === 'found' ? published.record : null, reportAddress);
  const intro =
    published.status === 'missing'
      ? t('dmarc.overview.publishMissing', { domain: domain.domain })
      : published.status === 'unknown'
        ? t('dmarc.overview.publishUnknown', { domain: domain.domain })
        : t('dmarc.overview.publishAddRua', { address: reportAddress });
  return (
    <Alert
      color={published.status === 'missing' ? 'red' : 'yellow'}
      variant="light"
      title={t('dmarc.overview.publishTitle')}
      classNames={{ title: 'alert-title-text' }}
    >
      <Text size="sm">{intro}</Text>
      <RecordToPublish name={name} value={value} />
    </Alert>
  );
}

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

/** Messages per day, passed and failed stacked; a hidden table carries the numbers for screen readers. */
function Trend({ domain, caption }: { domain: DomainOverview; caption: string }) {
  const { t, i18n } = useTranslation();
  const day = new Intl.DateTimeFormat(i18n.language, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const data = domain.trend.map((d) => ({
    day: day.format(new Date(`${d.day}T00:00:00Z`)),
    passed: d.passed,
    failed: d.messages - d.passed,
  }));
  return (
    <Stack gap={4}>
      <div aria-hidden="true">
        <AreaChart
          h={180}
          data={data}
          dataKey="day"
          type="stacked"
          withDots={false}
          curveType="monotone"
          series={SERIES.map((s) => ({ ...s, label: t(s.label) }))}
          tickLine="none"
          gridAxis="y"
          areaChartProps={{ accessibilityLayer: false }}
        />
      </div>
      <Group gap="md" aria-hidden="true">
        {SERIES.map((s) => (
          <Group gap={6} key={s.name}>
            <ColorSwatch
              color={`var(--mantine-color-${s.color.replace('.', '-')})`}
              size={12}
              withShadow={false}
            />
            <Text size="xs">{t(s.label)}</Text>
          </Group>
        ))}
      </Group>
      <VisuallyHidden>
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th>{t('dmarc.overview.day')}</th>
              <th>{t('dmarc.overview.passed')}</th>
              <th>{t('dmarc.overview.failed')}</th>
            </tr>
          </thead>
          <tbody>
            {data
              .filter((d) => d.passed + d.failed > 0)
              .map((d) => (
                <tr key={d.day}>
                  <td>{d.day}</td>
                  <td>{d.passed}</td>
                  <td>{d.failed}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </VisuallyHidden>
    </Stack>
  );
}

/** The sources failing most, each a drill-down into the Explorer. */
function TopFailing({ domain, range }: { domain: DomainOverview; range: string | undefined }) {
  const { t, i18n } = useTranslation();
  const reverse = useReverseNames(domain.topFailing.map((f) => f.sourceIp));
  const names = reverse.data?.names ?? {};
  if (domain.topFailing.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {t('dmarc.overview.noFailing')}
      </Text>
    );
  return (
    <Table verticalSpacing={4} layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('dmarc.overview.source')}</Table.Th>
          <Table.Th w="7rem" ta="right">
            {t('dmarc.overview.messages')}
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {domain.topFailing.map((f) => (
          <Table.Tr key={f.sourceIp}>
            <Table.Td>
              <Anchor
                component={Link}
                to={drillDownHref(EXPLORER, {
                  domain: domain.domain,
                  ip: f.sourceIp,
                  dmarc: 'fail',
                  dateRange: range,
                })}
                size="sm"
                style={WRAP}
              >
                {f.sourceIp}
              </Anchor>
              {names[f.sourceIp] && (
                <Text size="xs" c="dimmed" style={WRAP}>
                  {names[f.sourceIp]}
                </Text>
              )}
            </Table.Td>
            <Table.Td ta="right">
              <Text size="sm">{f.messages.toLocaleString(i18n.language)}</Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function DomainCard({ domain, days }: { domain: DomainOverview; days: number }) {
  const { t, i18n } = useTranslation();
  const headingId = useId();
  const range = rangeOfDays(days);
  const rate = rateOf(domain.passed, domain.messages);
  const number = (n: number) => n.toLocaleString(i18n.language);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="md">
        <Group justify="space-between" gap="sm" wrap="wrap">
          <Title order={2} size="h4" id={headingId} style={WRAP}>
            {domain.domain}
          </Title>
          <PolicyBadge domain={domain} />
        </Group>
        <PublishRecord domain={domain} />
        {domain.messages === 0 ? (
          <Text size="sm">
            {domain.reports === 0
              ? t('dmarc.overview.noReports', { address: domain.reportAddress })
              : t('dmarc.overview.noMessages')}
          </Text>
        ) : (
          <>
            <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
              <Stat label={t('dmarc.overview.messagesReported')} value={number(domain.messages)} />
              <Stat
                label={t('dmarc.overview.passRate')}
                value={rate === null ? '—' : `${rate.toLocaleString(i18n.language)} %`}
                hint={t('dmarc.overview.passRateHint', {
                  passed: number(domain.passed),
                  failed: number(domain.messages - domain.passed),
                })}
              />
              <Stat label={t('dmarc.overview.reports')} value={number(domain.reports)} />
            </SimpleGrid>
            <Stack gap={4}>
              <Title order={3} size="h5">
                {t('dmarc.overview.trendTitle')}
              </Title>
              <Trend domain={domain} caption={t('dmarc.overview.trendCaption', { domain: domain.domain })} />
            </Stack>
            <Stack gap={4}>
              <Title order={3} size="h5">
                {t('dmarc.overview.failingTitle')}
              </Title>
              <TopFailing domain={domain} range={range} />
            </Stack>
          </>
        )}
        <Group gap="md" wrap="wrap">
          <Anchor
            component={Link}
            to={drillDownHref(EXPLORER, { domain: domain.domain, dateRange: range })}
            size="sm"
          >
            {t('dmarc.overview.openExplorer')}
          </Anchor>
          <Anchor
            component={Link}
            to={drillDownHref(`${ROUTES.dmarc}/domain-recommendations`, {
              domain: domain.domain,
              dateRange: range,
            })}
            size="sm"
          >
            {t('dmarc.overview.openRecommendations')}
          </Anchor>
        </Group>
      </Stack>
    </Paper>
  );
}

/**
 * DMARC → Overview: per domain, the record to publish so reports come here (exact name and
 * value), the policy it publishes, messages reported and the DMARC pass rate over the period,
 * the trend per day and the sources failing most, each a drill-down into the Reports Explorer.
 */
export function DmarcOverviewScreen() {
  const { t } = useTranslation();
  const { days, only, choose } = useDrillPeriod();
  const query = useDmarcOverview(days);
  const domains = query.data?.domains.filter((d) => !only || d.domain === only) ?? [];
  return (
    <DomainsFrame
      intro={t('dmarc.overview.intro')}
      control={<PeriodControl days={days} onChange={choose} />}
      query={query}
      loading={t('dmarc.overview.loading')}
      noDomains={query.data !== undefined && domains.length === 0}
      empty={{ title: t('dmarc.overview.emptyTitle'), description: t('dmarc.overview.emptyDescription') }}
    >
      <OnlyDomain domain={only} path={`${ROUTES.dmarc}/overview`} days={days} />
      {domains.map((domain) => (
        <DomainCard key={domain.domain} domain={domain} days={days} />
      ))}
    </DomainsFrame>
  );
}
