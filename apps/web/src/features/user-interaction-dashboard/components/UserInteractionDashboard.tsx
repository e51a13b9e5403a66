import {
  Alert,
  Card,
  Group,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  Title,
} from '@mantine/core';
import type { AlertSettings } from '@moat/contracts/phishing-reports';
import { useId, useMemo, useState } from 'react';
import { useTranslation } from '../../../lib/i18n';
import { useAlertSettings } from '../api/get-alert-settings';
import { useUserInteractionSummary } from '../api/get-user-interaction-summary';
import { useSaveAlertSettings } from '../api/save-alert-settings';

const RANGES = ['7', '30', '90'] as const;
type RangeDays = (typeof RANGES)[number];
const DAY_MS = 86_400_000;

/** A duration in words: "45 s", "12 min", "3.5 h", "2.1 d". */
function durationOf(seconds: number, locale: string): string {
  const n = (v: number) => new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(v);
  if (seconds < 60) return `${n(seconds)} s`;
  if (seconds < 3600) return `${n(seconds / 60)} min`;
  if (seconds < DAY_MS / 1000) return `${n(seconds / 3600)} h`;
  return `${n(seconds / 86_400)} d`;
}

/** A number with its label; the card is a group named by the label, so it reads as one. */
function Stat({ label, value, muted = false }: { label: string; value: string; muted?: boolean }) {
  const id = useId();
  return (
    <Card withBorder padding="md" role="group" aria-labelledby={id}>
      <Text size="sm" c="dimmed" id={id}>
        {label}
      </Text>
      {/* A number stands out; words (no value yet) read as a plain line, not three bold ones. */}
      {muted ? (
        <Text size="sm" mt={4}>
          {value}
        </Text>
      ) : (
        <Text size="xl" fw={700}>
          {value}
        </Text>
      )}
    </Card>
  );
}

/** A bar of a per-day count, as wide as its share of the busiest day. */
function Bar({ value, max, color }: { value: number; max: number; color: string }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <div className="ui-bar" aria-hidden="true">
        <div
          className="ui-bar__fill"
          style={{ width: `${max ? (value / max) * 100 : 0}%`, background: color }}
        />
      </div>
      <Text size="sm" w="3ch" ta="end">
        {value}
      </Text>
    </Group>
  );
}

const SETTING_KEYS: Array<keyof AlertSettings> = [
  'alert_restore_requests',
  'alert_reports',
  'alert_malware_holds',
];

function AlertSwitches() {
  const { t } = useTranslation();
  const settings = useAlertSettings();
  const save = useSaveAlertSettings();
  return (
    <Card withBorder padding="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('alerts.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('alerts.description')}
        </Text>
        {settings.data ? (
          SETTING_KEYS.map((key) => (
            <Switch
              key={key}
              label={t(`alerts.${key}`)}
              checked={(save.isPending && save.variables ? save.variables : settings.data)[key]}
              disabled={save.isPending}
              onChange={(event) => save.mutate({ ...settings.data, [key]: event.currentTarget.checked })}
            />
          ))
        ) : settings.isError ? (
          <Text size="sm" c="red">
            {t('userInteraction.loadFailed')}
          </Text>
        ) : (
          <Loader size="sm" />
        )}
        <div role="status" aria-live="polite">
          {save.isSuccess && <Text size="sm">{t('alerts.saved')}</Text>}
          {save.isError && (
            <Text size="sm" c="red">
              {t('alerts.saveFailed')}
            </Text>
          )}
        </div>
      </Stack>
    </Card>
  );
}

/**
 * The User Interaction dashboard (/user-interaction/dashboard): restore requests and reports per
 * day, what waits now, how long decisions take, and which alerts the admins get.
 */
export function UserInteractionDashboard() {
  const { t, i18n } = useTranslation();
  const [range, setRange] = useState<RangeDays>('30');
  const { from, to } = useMemo(() => {
    const end = Math.ceil(Date.now() / DAY_MS) * DAY_MS;
    return {
      from: new Date(end - Number(range) * DAY_MS).toISOString(),
      to: new Date(end).toISOString(),
    };
  }, [range]);
  const summary = useUserInteractionSummary(from, to);
  const perDayId = useId();
  const data = summary.data;
  const number = (v: number) => new Intl.NumberFormat(i18n.language).format(v);
  const max = data ? Math.max(0, ...data.days.map((d) => Math.max(d.restore_requests, d.reports))) : 0;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <SegmentedControl
          fullWidth
          aria-label={t('userInteraction.range')}
          value={range}
          onChange={(value) => setRange(value as RangeDays)}
          data={RANGES.map((r) => ({ value: r, label: t(`userInteraction.ranges.${r}`) }))}
        />
      </Group>
      {summary.isError && (
        <Alert color="red" variant="light">
          {t('userInteraction.loadFailed')}
        </Alert>
      )}
      {summary.isPending && <Loader />}
      {data && (
        <SimpleGrid cols={{ base: 2, md: 3 }}>
          <Stat label={t('userInteraction.waitingRequests')} value={number(data.waiting_requests)} />
          <Stat label={t('userInteraction.openReports')} value={number(data.open_reports)} />
          <Stat label={t('userInteraction.requestsInRange')} value={number(data.totals.restore_requests)} />
          <Stat label={t('userInteraction.reportsInRange')} value={number(data.totals.reports)} />
          <Stat
            label={t('userInteraction.medianDecision')}
            muted={data.decision.median_seconds === null}
            value={
              data.decision.median_seconds === null
                ? t('userInteraction.noDecisions')
                : durationOf(data.decision.median_seconds, i18n.language)
            }
          />
          <Stat
            label={t('userInteraction.averageDecision')}
            muted={data.decision.average_seconds === null}
            value={
              data.decision.average_seconds === null
                ? t('userInteraction.noDecisions')
                : durationOf(data.decision.average_seconds, i18n.language)
            }
          />
        </SimpleGrid>
      )}
      <AlertSwitches />
      {data && (
        <Card withBorder padding="md">
          {/* The caption as the card's heading; the table's columns share the card's width. */}
          <Title order={2} size="h4" id={perDayId} mb="xs">
            {t('userInteraction.perDay')}
          </Title>
          <Table aria-labelledby={perDayId} className="list-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('userInteraction.day')}</Table.Th>
                <Table.Th>{t('userInteraction.requestsInRange')}</Table.Th>
                <Table.Th>{t('userInteraction.reportsInRange')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...data.days].reverse().map((d) => (
                <Table.Tr key={d.day}>
                  <Table.Td>
                    <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                      {d.day}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Bar value={d.restore_requests} max={max} color="var(--mantine-color-blue-filled)" />
                  </Table.Td>
                  <Table.Td>
                    <Bar value={d.reports} max={max} color="var(--mantine-color-orange-filled)" />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      )}
    </Stack>
  );
}
