import {
  Alert,
  Badge,
  Button,
  Center,
  Code,
  EmptyState,
  Group,
  Loader,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import {
  type DmarcAlert,
  type DmarcAlertKind,
  DNS_RECORD_KINDS,
  type DnsChange,
  type DnsPollFailure,
  type DnsRecord,
  type DnsRecordKind,
} from '@moat/contracts/dmarc';
import { ROUTES } from '@moat/contracts/routes';
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ListTable } from '../../../components/list/ListTable';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { DRILL_DOWN_DAYS, daysOfRange, decodeDrillDown, encodeDrillDown } from '../../../lib/drill-down';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import {
  useCheckDns,
  useDmarcAlerts,
  useDnsChangeLog,
  useDnsChanges,
  useSaveDmarcAlertSettings,
} from '../api/dns-changes';

const PAGE_SIZE = 25;

/** Long records wrap anywhere: nothing scrolls sideways, even at 360 px. */
const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', wordBreak: 'break-all' } as const;

const KIND_TEXT: Record<DnsRecordKind, TranslationKey> = {
  spf: 'dmarc.dnsChanges.kind.spf',
  dmarc: 'dmarc.dnsChanges.kind.dmarc',
  dkim: 'dmarc.dnsChanges.kind.dkim',
  mx: 'dmarc.dnsChanges.kind.mx',
  mta_sts: 'dmarc.dnsChanges.kind.mta_sts',
  tls_rpt: 'dmarc.dnsChanges.kind.tls_rpt',
};

const KIND_FILTER_TEXT: Record<DnsRecordKind, TranslationKey> = {
  spf: 'dmarc.dnsChanges.kindFilter.spf',
  dmarc: 'dmarc.dnsChanges.kindFilter.dmarc',
  dkim: 'dmarc.dnsChanges.kindFilter.dkim',
  mx: 'dmarc.dnsChanges.kindFilter.mx',
  mta_sts: 'dmarc.dnsChanges.kindFilter.mta_sts',
  tls_rpt: 'dmarc.dnsChanges.kindFilter.tls_rpt',
};

const FAILURE_TEXT: Record<DnsPollFailure, TranslationKey> = {
  timeout: 'dmarc.dnsChanges.failure.timeout',
  servfail: 'dmarc.dnsChanges.failure.servfail',
  refused: 'dmarc.dnsChanges.failure.refused',
  unreachable: 'dmarc.dnsChanges.failure.unreachable',
  failed: 'dmarc.dnsChanges.failure.failed',
};

const ALERT_TITLE: Record<DmarcAlertKind, TranslationKey> = {
  dmarc_record_changed: 'dmarc.dnsChanges.alerts.recordChanged',
  dmarc_new_failing_source: 'dmarc.dnsChanges.alerts.newSource',
  dmarc_pass_rate_drop: 'dmarc.dnsChanges.alerts.passRateDrop',
};
const ALERT_COLOR: Record<DmarcAlertKind, string> = {
  dmarc_record_changed: 'orange',
  dmarc_new_failing_source: 'red',
  dmarc_pass_rate_drop: 'yellow',
};

/** The periods the change log is read over (days), the drill-down's names for them. */
const PERIODS = Object.entries(DRILL_DOWN_DAYS) as Array<[keyof typeof DRILL_DOWN_DAYS, number]>;
const PERIOD_TEXT: Record<keyof typeof DRILL_DOWN_DAYS, TranslationKey> = {
  week: 'dmarc.dnsChanges.period.week',
  month: 'dmarc.dnsChanges.period.month',
  quarter: 'dmarc.dnsChanges.period.quarter',
  year: 'dmarc.dnsChanges.period.year',
};

type T = ReturnType<typeof useTranslation>['t'];

function useFormat() {
  const { i18n } = useTranslation();
  const format = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' });
  return (iso: string) => format.format(new Date(iso));
}

/** A record's name in words: "DMARC", "DKIM key (s1)". */
const kindName = (t: T, kind: DnsRecordKind, selector: string | null) =>
  t(KIND_TEXT[kind], { selector: selector ?? '' });

/** A value as published, or "none published" in words. */
function Value({ value, label, tone }: { value: string | null; label?: string; tone?: 'red' | 'teal' }) {
  const { t } = useTranslation();
  if (value === null)
    return (
      <Text size="sm" c="dimmed" fs="italic" aria-label={label}>
        {t('dmarc.dnsChanges.nonePublished')}
      </Text>
    );
  return (
    <Code
      block
      style={tone ? { ...WRAP, borderInlineStart: `3px solid var(--mantine-color-${tone}-6)` } : WRAP}
      aria-label={label}
    >
      {value}
    </Code>
  );
}

function RecordCard({ record }: { record: DnsRecord }) {
  const { t } = useTranslation();
  const when = useFormat();
  const headingId = useId();
  return (
    <Paper withBorder p="sm" radius="md" component="article" aria-labelledby={headingId}>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text fw={600} size="sm" id={headingId}>
            {kindName(t, record.kind, record.selector)}
          </Text>
          {record.failure && (
            <Badge className="quarantine-badge" color="gray" variant="light" tt="none">
              {t('dmarc.dnsChanges.lastCheckFailed')}
            </Badge>
          )}
        </Group>
        <Text size="xs" c="dimmed" ff="monospace" style={WRAP}>
          {record.name}
        </Text>
        {record.known ? (
          <Value value={record.value} />
        ) : (
          <Text size="sm" c="dimmed">
            {t('dmarc.dnsChanges.notKnown')}
          </Text>
        )}
        {record.failure && (
          <Text size="xs" c="dimmed">
            {t('dmarc.dnsChanges.failedAt', {
              time: when(record.failedAt ?? ''),
              reason: t(FAILURE_TEXT[record.failure]),
            })}
          </Text>
        )}
        <Text size="xs" c="dimmed">
          {record.checkedAt && t('dmarc.dnsChanges.checkedAt', { time: when(record.checkedAt) })}{' '}
          {record.changedAt
            ? t('dmarc.dnsChanges.changedAt', { time: when(record.changedAt) })
            : record.firstSeenAt
              ? t('dmarc.dnsChanges.unchangedSince', { time: when(record.firstSeenAt) })
              : ''}
        </Text>
      </Stack>
    </Paper>
  );
}

/** Each domain's records as last polled. */
function CurrentRecords({ records }: { records: DnsRecord[] }) {
  const { t } = useTranslation();
  const domains = [...new Set(records.map((r) => r.domain))];
  return (
    <Stack gap="md">
      {domains.map((domain) => (
        <Stack key={domain} gap="xs" component="section" aria-label={domain}>
          <Title order={3} size="h5" style={{ overflowWrap: 'anywhere' }}>
            {domain}
          </Title>
          <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }} spacing="sm">
            {records
              .filter((r) => r.domain === domain)
              .sort((a, b) => DNS_RECORD_KINDS.indexOf(a.kind) - DNS_RECORD_KINDS.indexOf(b.kind))
              .map((r) => (
                <RecordCard key={`${r.kind} ${r.name}`} record={r} />
              ))}
          </SimpleGrid>
        </Stack>
      ))}
      {records.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('dmarc.dnsChanges.noRecordsMatch')}
        </Text>
      )}
    </Stack>
  );
}

/** A change as a pair: what was published before (−), and after (+). */
function ChangePair({ change }: { change: DnsChange }) {
  const { t } = useTranslation();
  if (change.first)
    return (
      <Stack gap={4}>
        <Badge className="quarantine-badge" color="blue" variant="light" tt="none">
          {t('dmarc.dnsChanges.firstSeen')}
        </Badge>
        <Value value={change.after} label={t('dmarc.dnsChanges.after')} />
      </Stack>
    );
  return (
    <Stack gap={4}>
      <Group gap={6} wrap="nowrap" align="flex-start">
        <Text size="sm" fw={700} c="red" aria-hidden="true" w="1ch">
          −
        </Text>
        <div style={{ flex: 1, minWidth: 0 }} className="dns-change-before">
          <VisuallyHidden>{t('dmarc.dnsChanges.before')}</VisuallyHidden>
          <Value value={change.before} tone="red" />
        </div>
      </Group>
      <Group gap={6} wrap="nowrap" align="flex-start">
        <Text size="sm" fw={700} c="teal" aria-hidden="true" w="1ch">
          +
        </Text>
        <div style={{ flex: 1, minWidth: 0 }} className="dns-change-after">
          <VisuallyHidden>{t('dmarc.dnsChanges.after')}</VisuallyHidden>
          <Value value={change.after} tone="teal" />
        </div>
      </Group>
    </Stack>
  );
}

function alertText(t: T, a: DmarcAlert, number: (n: number) => string) {
  if (a.record)
    return t('dmarc.dnsChanges.alerts.recordChangedText', {
      record: kindName(t, a.record.kind, a.record.name.split('._domainkey.')[0] ?? null),
      domain: a.domain,
    });
  if (a.source)
    return t('dmarc.dnsChanges.alerts.newSourceText', {
      ip: a.source.ip,
      domain: a.domain,
      failed: number(a.source.failed),
      messages: number(a.source.messages),
    });
  if (a.passRate)
    return t('dmarc.dnsChanges.alerts.passRateDropText', {
      domain: a.domain,
      recent: number(a.passRate.recent),
      prior: number(a.passRate.prior),
      recentMessages: number(a.passRate.recentMessages),
    });
  return '';
}

/** The recent DMARC alerts, and whether the admins are emailed them. */
function RecentAlerts() {
  const { t, i18n } = useTranslation();
  const when = useFormat();
  const alerts = useDmarcAlerts();
  const save = useSaveDmarcAlertSettings();
  const headingId = useId();
  const number = (n: number) => n.toLocaleString(i18n.language);
  const email = save.isPending && save.variables ? save.variables.email : alerts.data?.email;
  return (
    <Stack gap="sm" component="section" aria-labelledby={headingId}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Title order={2} size="h4" id={headingId}>
          {t('dmarc.dnsChanges.alerts.title')}
        </Title>
        {alerts.data && (
          <Switch
            label={t('dmarc.dnsChanges.alerts.email')}
            checked={email ?? true}
            disabled={save.isPending}
            onChange={(e) => save.mutate({ email: e.currentTarget.checked })}
          />
        )}
      </Group>
      <Text size="sm" c="dimmed">
        {t('dmarc.dnsChanges.alerts.intro')}
      </Text>
      {save.isError && <ApiErrorAlert error={save.error} />}
      {alerts.isError && <ApiErrorAlert error={alerts.error} />}
      {alerts.isPending && <Loader size="sm" />}
      {alerts.data && alerts.data.items.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('dmarc.dnsChanges.alerts.none')}
        </Text>
      )}
      {alerts.data?.items.map((a) => (
        <Alert
          key={a.id}
          color={ALERT_COLOR[a.kind]}
          variant="light"
          title={t(ALERT_TITLE[a.kind])}
          classNames={{ title: 'alert-title-text' }}
        >
          <Stack gap={4}>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {alertText(t, a, number)}
            </Text>
            {a.record && (
              <ChangePair
                change={{
                  ...a.record,
                  id: a.id,
                  domain: a.domain,
                  selector: null,
                  first: false,
                  observedAt: a.raisedAt,
                }}
              />
            )}
            <Text size="xs" c="dimmed">
              {when(a.raisedAt)} ·{' '}
              {a.emailed ? t('dmarc.dnsChanges.alerts.emailed') : t('dmarc.dnsChanges.alerts.notEmailed')}
            </Text>
          </Stack>
        </Alert>
      ))}
    </Stack>
  );
}

/**
 * DMARC → DNS Change-Log: each domain's SPF, DMARC, DKIM (the selectors its reports named), MX,
 * MTA-STS and TLS-RPT records as last polled, the log of their changes (before and after), the
 * recent DMARC alerts, and "Check now". The period comes from the navigation's drill-down.
 */
export function DnsChangeLogScreen() {
  const { t } = useTranslation();
  const when = useFormat();
  const [params, setParams] = useSearchParams();
  const drill = decodeDrillDown(params.get('drillDown'));
  const days = daysOfRange(drill.dateRange) ?? DRILL_DOWN_DAYS.month;
  const domain = drill.domain ?? '';
  const kind = DNS_RECORD_KINDS.find((k) => k === drill.kind);
  const [page, setPage] = useState(1);
  const setDrill = (change: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    const kept = Object.fromEntries(
      Object.entries({ ...drill, ...change }).filter((e): e is [string, string] => Boolean(e[1])),
    );
    next.set('drillDown', encodeDrillDown(kept));
    setParams(next, { replace: true });
    setPage(1);
  };
  const query = {
    domain: domain || undefined,
    kind,
    days,
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
  };
  const view = useDnsChanges(query);
  const changes = useDnsChangeLog(query);
  const check = useCheckDns();
  const data = view.data;
  const recordsId = useId();
  const changesId = useId();

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 18rem' }}>
          {t('dmarc.dnsChanges.intro', { minutes: data?.pollMinutes ?? 60 })}
        </Text>
        <Button
          onClick={() => check.mutate()}
          loading={check.isPending}
          disabled={data?.domains.length === 0}
        >
          {t('dmarc.dnsChanges.checkNow')}
        </Button>
      </Group>
      <div role="status" aria-live="polite">
        {check.isSuccess && (
          <Alert color={check.data.changed > 0 ? 'orange' : 'green'} variant="light">
            {t('dmarc.dnsChanges.checked', { count: check.data.domains })}{' '}
            {check.data.changed > 0
              ? t('dmarc.dnsChanges.changed', { count: check.data.changed })
              : t('dmarc.dnsChanges.nothingChanged')}
            {check.data.failed > 0 && ` ${t('dmarc.dnsChanges.checkedFailed', { count: check.data.failed })}`}
          </Alert>
        )}
      </div>
      {check.isError && <ApiErrorAlert error={check.error} showServerMessage />}
      {view.isPending && (
        <Center py="xl" role="status">
          <Loader />
          <VisuallyHidden>{t('dmarc.dnsChanges.loading')}</VisuallyHidden>
        </Center>
      )}
      {view.isError && <ApiErrorAlert error={view.error} />}
      {data && data.domains.length === 0 && (
        <EmptyState
          title={t('dmarc.dnsChanges.noDomainsTitle')}
          description={t('dmarc.dnsChanges.noDomainsDescription', { minutes: data.pollMinutes })}
          withIndicatorBackground
        >
          <Button component={Link} to={`${ROUTES.configuration}/settings`} variant="light">
            {t('dmarc.dnsChanges.openSettings')}
          </Button>
        </EmptyState>
      )}
      {data && data.domains.length > 0 && (
        <>
          <Group gap="sm" align="flex-end" wrap="wrap">
            <Select
              label={t('dmarc.dnsChanges.domain')}
              data={[
                { value: '', label: t('dmarc.dnsChanges.allDomains') },
                ...data.domains.map((d) => ({ value: d, label: d })),
              ]}
              value={domain}
              onChange={(v) => setDrill({ domain: v ?? '' })}
              allowDeselect={false}
              style={{ flex: '1 1 12rem', maxWidth: '18rem' }}
            />
            <Select
              label={t('dmarc.dnsChanges.record')}
              data={[
                { value: '', label: t('dmarc.dnsChanges.allRecords') },
                ...DNS_RECORD_KINDS.map((k) => ({ value: k, label: t(KIND_FILTER_TEXT[k]) })),
              ]}
              value={kind ?? ''}
              onChange={(v) => setDrill({ kind: v ?? '' })}
              allowDeselect={false}
              style={{ flex: '1 1 10rem', maxWidth: '14rem' }}
            />
            <Select
              label={t('dmarc.dnsChanges.periodLabel')}
              data={PERIODS.map(([name]) => ({ value: name, label: t(PERIOD_TEXT[name]) }))}
              value={PERIODS.find(([, d]) => d === days)?.[0] ?? 'month'}
              onChange={(v) => setDrill({ dateRange: v ?? 'month' })}
              allowDeselect={false}
              style={{ flex: '1 1 10rem', maxWidth: '14rem' }}
            />
          </Group>

          <Stack gap="sm" component="section" aria-labelledby={recordsId}>
            <Title order={2} size="h4" id={recordsId}>
              {t('dmarc.dnsChanges.currentTitle')}
            </Title>
            <Text size="xs" c="dimmed">
              {data.polledAt
                ? t('dmarc.dnsChanges.polledAt', { time: when(data.polledAt), minutes: data.pollMinutes })
                : t('dmarc.dnsChanges.neverPolled', { minutes: data.pollMinutes })}
            </Text>
            {data.records.length === 0 && !data.polledAt ? (
              <EmptyState
                title={t('dmarc.dnsChanges.notPolledTitle')}
                description={t('dmarc.dnsChanges.notPolledDescription', { minutes: data.pollMinutes })}
                withIndicatorBackground
              />
            ) : (
              <CurrentRecords records={data.records} />
            )}
          </Stack>

          <RecentAlerts />

          <Stack gap="sm" component="section" aria-labelledby={changesId}>
            <Title order={2} size="h4" id={changesId}>
              {t('dmarc.dnsChanges.logTitle')}
            </Title>
            <ListTable
              list={changes}
              page={page}
              onPage={setPage}
              filtered={Boolean(domain || kind)}
              caption={t('dmarc.dnsChanges.logCaption')}
              emptyTitle={t('dmarc.dnsChanges.logEmptyTitle')}
              emptyDescription={t('dmarc.dnsChanges.logEmptyDescription', { minutes: data.pollMinutes })}
              minWidth={900}
              rowKey={(row) => row.id}
              columns={[
                {
                  key: 'when',
                  label: t('dmarc.dnsChanges.columns.when'),
                  card: 'title',
                  width: '11rem',
                  cell: (row) => <Text size="sm">{when(row.observedAt)}</Text>,
                },
                {
                  key: 'domain',
                  label: t('dmarc.dnsChanges.columns.domain'),
                  width: '11rem',
                  cell: (row) => (
                    <Text size="sm" className="list-text-anywhere">
                      {row.domain}
                    </Text>
                  ),
                },
                {
                  key: 'record',
                  label: t('dmarc.dnsChanges.columns.record'),
                  width: '12rem',
                  cell: (row) => (
                    <Stack gap={0}>
                      <Text size="sm" fw={600}>
                        {kindName(t, row.kind, row.selector)}
                      </Text>
                      <Text size="xs" c="dimmed" className="list-text-anywhere">
                        {row.name}
                      </Text>
                    </Stack>
                  ),
                },
                {
                  key: 'change',
                  label: t('dmarc.dnsChanges.columns.change'),
                  cell: (row) => <ChangePair change={row} />,
                },
              ]}
            />
          </Stack>
        </>
      )}
      {data && data.domains.length === 0 && <RecentAlerts />}
    </Stack>
  );
}
