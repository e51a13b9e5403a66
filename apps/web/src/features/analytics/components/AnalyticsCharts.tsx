import { BarChart } from '@mantine/charts';
import {
  Anchor,
  ColorSwatch,
  Group,
  Paper,
  RingProgress,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import type { AnalyticsDashboard } from '@moat/contracts/analytics';
import { useId } from 'react';
import { Link, useNavigate } from 'react-router';
import { Breakable } from '../../../components/ui/Breakable';
import { countAxis } from '../../../lib/chart-ticks';
import { engineText } from '../../../lib/engine-words';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { type DrillRange, mailExplorerHref, securityEventsHref } from '../drill-down';

/** A chart's frame: its heading names it for the page outline and for the table that stands in for it. */
export function ChartCard({
  title,
  description,
  children,
}: {
  title: string;
  description?: string;
  children: React.ReactNode;
}) {
  const id = useId();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={id} className="analytics-card">
      <Stack gap="sm">
        <div>
          <Title order={2} size="h4" id={id}>
            {title}
          </Title>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </div>
        {children}
      </Stack>
    </Paper>
  );
}

type Counts<K extends string> = Record<K, number>;

/**
 * The drawn charts sit under aria-hidden: their links and tables carry the numbers and the
 * keyboard, so recharts' own keyboard layer (a focusable surface) stays off.
 */
const NOT_FOCUSABLE = { accessibilityLayer: false } as const;

/**
 * Mail per hour or day, stacked by verdict or action. A click on a bar opens Mail Explorer filtered
 * to that verdict or action; below the chart each one is a link with its total, and a visually
 * hidden table gives screen readers every bucket's numbers.
 */
export function VolumeChart<K extends string>({
  title,
  data,
  pick,
  series,
  totals,
  filterOf,
  range,
  caption,
}: {
  title: string;
  /** What the chart counts, over which period. */
  caption?: string;
  data: AnalyticsDashboard;
  pick: (bucket: AnalyticsDashboard['volume'][number]) => Counts<K>;
  series: Record<K, { label: TranslationKey; color: string }>;
  totals: Counts<K>;
  filterOf: (key: K) => Parameters<typeof mailExplorerHref>[1];
  range: DrillRange;
}) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const keys = Object.keys(series) as K[];
  const format = new Intl.DateTimeFormat(i18n.language, {
    timeZone: 'UTC',
    month: 'short',
    day: 'numeric',
    ...(data.bucket === 'hour' ? { hour: '2-digit', minute: '2-digit' } : {}),
  });
  const rows = data.volume.map((bucket) => ({
    label: format.format(new Date(bucket.start)),
    ...pick(bucket),
  }));
  const number = new Intl.NumberFormat(i18n.language);
  // The tallest stack sets the axis: even ticks up to it (0, 5, 10…), whole messages only.
  const tallest = Math.max(
    0,
    ...rows.map((row) => keys.reduce((sum, key) => sum + Number(row[key] ?? 0), 0)),
  );
  return (
    <ChartCard title={title} description={caption}>
      <div aria-hidden="true">
        <BarChart
          h={240}
          data={rows}
          dataKey="label"
          type="stacked"
          yAxisProps={countAxis(tallest)}
          barChartProps={NOT_FOCUSABLE}
          withLegend
          legendProps={{ verticalAlign: 'bottom' }}
          series={keys.map((key) => ({ name: key, label: t(series[key].label), color: series[key].color }))}
          barProps={(s) => ({
            cursor: 'pointer',
            onClick: () => navigate(mailExplorerHref(range, filterOf(s.name as K))),
          })}
        />
      </div>
      <Group gap="xs" wrap="wrap">
        {keys.map((key) => (
          <Anchor
            key={key}
            component={Link}
            to={mailExplorerHref(range, filterOf(key))}
            size="sm"
            className="analytics-series-link"
            aria-label={t('analytics.openMail', { label: t(series[key].label), count: Number(totals[key]) })}
          >
            <ColorSwatch color={`var(--mantine-color-${series[key].color.replace('.', '-')})`} size={10} />
            {t(series[key].label)}: {number.format(totals[key])}
          </Anchor>
        ))}
      </Group>
      <VisuallyHidden>
        <Table>
          <caption>{t('analytics.tableOf', { title })}</caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">
                {t(data.bucket === 'hour' ? 'analytics.hourUtc' : 'analytics.dayUtc')}
              </Table.Th>
              {keys.map((key) => (
                <Table.Th scope="col" key={key}>
                  {t(series[key].label)}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row, index) => (
              <Table.Tr key={data.volume[index]?.start}>
                <Table.Th scope="row">{row.label}</Table.Th>
                {keys.map((key) => (
                  <Table.Td key={key}>{number.format((row as unknown as Counts<K>)[key])}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </VisuallyHidden>
    </ChartCard>
  );
}

/** A top list as a table: each row opens Mail Explorer searching for it. */
export function TopTable({
  title,
  description,
  column,
  rows,
  range,
}: {
  title: string;
  description: string;
  column: string;
  rows: Array<{ key: string; label: string; search: string; count: number }>;
  range: DrillRange;
}) {
  const { t, i18n } = useTranslation();
  const number = new Intl.NumberFormat(i18n.language);
  return (
    <ChartCard title={title} description={description}>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('analytics.noneInRange')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={0}>
          <Table striped>
            <VisuallyHidden component="caption">{title}</VisuallyHidden>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{column}</Table.Th>
                <Table.Th scope="col" ta="right">
                  {t('analytics.columns.messages')}
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.key}>
                  <Table.Td>
                    <Anchor component={Link} to={mailExplorerHref(range, { q: row.search })} size="sm">
                      <Breakable text={row.label} />
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{number.format(row.count)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </ChartCard>
  );
}

/** Security events per engine: a bar each, and a table of links into Security Events. */
export function EnginesChart({
  engines,
  range,
  caption,
}: {
  engines: AnalyticsDashboard['engines'];
  range: DrillRange;
  caption?: string;
}) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const number = new Intl.NumberFormat(i18n.language);
  const title = t('analytics.engines');
  const named = engines.map((row) => ({ ...row, name: engineText(row.engine, t, i18n.language) }));
  return (
    <ChartCard title={title} description={caption}>
      {engines.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('analytics.noDetections')}
        </Text>
      ) : (
        <>
          <div aria-hidden="true">
            <BarChart
              h={Math.max(120, engines.length * 40)}
              data={named}
              dataKey="name"
              orientation="vertical"
              barChartProps={NOT_FOCUSABLE}
              yAxisProps={{ width: 130 }}
              xAxisProps={countAxis(Math.max(0, ...engines.map((row) => row.count)))}
              series={[{ name: 'count', label: t('analytics.columns.detections'), color: 'blue.6' }]}
              barProps={{
                cursor: 'pointer',
                onClick: (entry: { engine?: string; payload?: { engine?: string } }) => {
                  const engine = entry.payload?.engine ?? entry.engine;
                  if (engine) navigate(securityEventsHref(range, engine));
                },
              }}
            />
          </div>
          <Table>
            <VisuallyHidden component="caption">{title}</VisuallyHidden>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('analytics.columns.engine')}</Table.Th>
                <Table.Th scope="col" ta="right">
                  {t('analytics.columns.detections')}
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {named.map((row) => (
                <Table.Tr key={row.engine}>
                  <Table.Td>
                    <Anchor component={Link} to={securityEventsHref(range, row.engine)} size="sm">
                      {row.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{number.format(row.count)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </ChartCard>
  );
}

const AUTH_CHECKS = [
  ['spf', 'SPF'],
  ['dkim', 'DKIM'],
  ['dmarc', 'DMARC'],
] as const;

/** The share of messages that passed SPF, DKIM and DMARC, as rings with the numbers beside them. */
export function AuthRates({ auth }: { auth: AnalyticsDashboard['auth'] }) {
  const { t, i18n } = useTranslation();
  const percent = new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 1 });
  return (
    <ChartCard title={t('analytics.auth')}>
      <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
        {AUTH_CHECKS.map(([key, name]) => {
          const { pass, total } = auth[key];
          const share = total > 0 ? pass / total : 0;
          return (
            <Group key={key} gap="sm" wrap="nowrap">
              <RingProgress
                size={72}
                thickness={8}
                roundCaps
                aria-hidden="true"
                sections={[
                  {
                    value: share * 100,
                    color: share >= 0.9 ? 'green.6' : share >= 0.5 ? 'yellow.6' : 'red.6',
                  },
                ]}
              />
              <div>
                <Text fw={600} className="nowrap">
                  {name}: {total > 0 ? percent.format(share) : '—'}
                </Text>
                <Text size="sm" c="dimmed">
                  {t('analytics.passed', { pass, total })}
                </Text>
              </div>
            </Group>
          );
        })}
      </SimpleGrid>
    </ChartCard>
  );
}
