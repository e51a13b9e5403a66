import {
  Alert,
  Anchor,
  Badge,
  Button,
  FileButton,
  Group,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import {
  DMARC_API,
  type DmarcRecord,
  type DmarcResult,
  type RecordsQuery,
  rawReportPath,
} from '@moat/contracts/dmarc';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { ListTable } from '../../../components/list/ListTable';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import {
  DRILL_DOWN_DAYS,
  type DrillDownRange,
  decodeDrillDown,
  encodeDrillDown,
} from '../../../lib/drill-down';
import { useTranslation } from '../../../lib/i18n';
import { useDmarcIntake, useDmarcRecords, useReverseNames, useUploadReport } from '../api/dmarc';
import { FailureReportsSection } from './FailureReportsSection';
import { TlsReportsSection } from './TlsReportsSection';

/** What came to the report addresses and the uploads: taken in, already taken in, or refused and why. */
function ReceivedReports() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(1);
  const size = QUARANTINE_PAGE_SIZE;
  const query = useDmarcIntake({ limit: size, offset: (page - 1) * size });
  const outcomeColor = { added: 'green', duplicate: 'blue', refused: 'red' } as const;
  return (
    <ListTable
      list={query}
      page={page}
      onPage={setPage}
      filtered={false}
      caption={t('dmarc.intake.caption')}
      emptyTitle={t('dmarc.intake.emptyTitle')}
      emptyDescription={t('dmarc.intake.emptyDescription')}
      minWidth={800}
      rowKey={(row) => row.id}
      columns={[
        {
          key: 'received',
          label: t('dmarc.intake.columns.received'),
          card: 'title',
          width: '11rem',
          cell: (row) => (
            <Text size="sm">
              {new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(
                new Date(row.receivedAt),
              )}
            </Text>
          ),
        },
        {
          key: 'from',
          label: t('dmarc.intake.columns.from'),
          cell: (row) => (
            <Stack gap={0}>
              <Text size="sm" className="list-text-anywhere">
                {row.source === 'mail' ? row.sender || '—' : t('dmarc.intake.uploaded')}
              </Text>
              {(row.subject || row.fileName) && (
                <Text size="xs" c="dimmed" className="list-text-anywhere">
                  {[row.subject, row.fileName].filter(Boolean).join(' · ')}
                </Text>
              )}
            </Stack>
          ),
        },
        {
          key: 'outcome',
          label: t('dmarc.intake.columns.outcome'),
          cell: (row) => (
            <Stack gap={4}>
              <Badge variant="light" color={outcomeColor[row.outcome]} className="quarantine-badge">
                {t(`dmarc.intake.outcome.${row.outcome}`)}
              </Badge>
              {row.reason && (
                <Text size="xs" className="list-text-anywhere">
                  {row.reason}
                </Text>
              )}
            </Stack>
          ),
        },
      ]}
    />
  );
}

interface ExplorerFilters {
  domain: string;
  ip: string;
  dmarc: '' | DmarcResult;
  range: '' | DrillDownRange;
}

/** The Explorer's filters from a drill-down; values it cannot use are left out. */
function filtersOf(drill: Readonly<Record<string, string>>): ExplorerFilters {
  const range =
    drill.dateRange && drill.dateRange in DRILL_DOWN_DAYS ? (drill.dateRange as DrillDownRange) : '';
  return {
    domain: (drill.domain ?? '').trim().toLowerCase().slice(0, 253),
    ip: (drill.ip ?? '').replace(/[^0-9a-fA-F.:]/g, '').slice(0, 64),
    dmarc: drill.dmarc === 'pass' || drill.dmarc === 'fail' ? drill.dmarc : '',
    range,
  };
}

const drillOf = (f: ExplorerFilters) =>
  Object.fromEntries(
    Object.entries({ domain: f.domain, ip: f.ip, dmarc: f.dmarc, dateRange: f.range }).filter(([, v]) => v),
  );

/** A DKIM or SPF result of a row: aligned with the header From (DMARC's verdict) or not. */
function ResultBadge({ result }: { result: DmarcResult }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={result === 'pass' ? 'green' : 'red'}>
      {t(result === 'pass' ? 'dmarc.explorer.pass' : 'dmarc.explorer.fail')}
    </Badge>
  );
}

/** What the receiver's own checks said: each domain checked and its result. */
function AuthResults({ results }: { results: DmarcRecord['dkimResults'] }) {
  const { t } = useTranslation();
  if (results.length === 0)
    return (
      <Text size="xs" c="dimmed">
        {t('dmarc.explorer.noResult')}
      </Text>
    );
  return (
    <Stack gap={0}>
      {results.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a row's results have no identity but their place
        <Text size="xs" key={i} className="list-text-anywhere">
          {r.domain || '—'}
          {r.selector ? ` (${r.selector})` : ''}: {r.result}
        </Text>
      ))}
    </Stack>
  );
}

/** The row's alignment verdict and the receiver's result of each domain it checked. */
function Check({ aligned, results }: { aligned: DmarcResult; results: DmarcRecord['dkimResults'] }) {
  return (
    <Stack gap={4}>
      <ResultBadge result={aligned} />
      <AuthResults results={results} />
    </Stack>
  );
}

/** Upload of a report file: what was taken in, or why not. */
function UploadReport() {
  const { t } = useTranslation();
  const upload = useUploadReport();
  const done = upload.data;
  return (
    <Stack gap="sm">
      <Group gap="sm" wrap="wrap">
        <FileButton
          accept=".xml,.gz,.zip,.json,.eml,application/xml,text/xml,application/gzip,application/zip,application/json,message/rfc822"
          onChange={(file) => file && upload.mutate(file)}
        >
          {(props) => (
            <Button {...props} loading={upload.isPending}>
              {t('dmarc.explorer.upload')}
            </Button>
          )}
        </FileButton>
        <Text size="sm" c="dimmed">
          {t('dmarc.explorer.uploadHint')}
        </Text>
      </Group>
      {upload.isError && (
        <ApiErrorAlert
          title={t('dmarc.explorer.refused')}
          error={upload.error}
          messageKey="dmarc.explorer.refusedHelp"
          showServerMessage
        />
      )}
      {done && (
        <Alert color={done.duplicate ? 'blue' : 'green'} variant="light" role="status">
          {done.duplicate
            ? t('dmarc.explorer.duplicate', { reporter: done.orgName, domain: done.domain })
            : done.kind === 'failure'
              ? t('dmarc.failure.added', { reporter: done.orgName, domain: done.domain })
              : done.kind === 'tls'
                ? t('dmarc.tls.added', {
                    reporter: done.orgName,
                    domain: done.domain,
                    count: done.messages,
                    formatted: done.messages.toLocaleString(),
                  })
                : t('dmarc.explorer.added', {
                    reporter: done.orgName,
                    domain: done.domain,
                    count: done.rows,
                    messages: done.messages,
                  })}
        </Alert>
      )}
    </Stack>
  );
}

/**
 * DMARC → Reports Explorer: every source the receivers' aggregate reports name, with what they
 * saw (SPF, DKIM, alignment, disposition, count), filtered by domain, address and DMARC result;
 * each row's report as the reporter sent it; and the upload of a report file.
 */
export function ReportsExplorerScreen() {
  const { t, i18n } = useTranslation();
  const [params, setParams] = useSearchParams();
  // The starting filter comes from the drill-down (the navigation's period, the Overview's source).
  const filters = filtersOf(decodeDrillDown(params.get('drillDown')));
  const [draft, setDraft] = useState({ domain: filters.domain, ip: filters.ip });
  const [page, setPage] = useState(1);
  const setFilters = (change: (f: ExplorerFilters) => ExplorerFilters) => {
    const next = new URLSearchParams(params);
    next.set('drillDown', encodeDrillDown(drillOf(change(filters))));
    setParams(next, { replace: true });
  };
  const [from] = useState(() => new Date());
  const since = filters.range
    ? new Date(from.getTime() - DRILL_DOWN_DAYS[filters.range] * 86_400_000).toISOString()
    : undefined;
  const query = useDmarcRecords({
    domain: filters.domain || undefined,
    ip: filters.ip || undefined,
    dmarc: filters.dmarc || undefined,
    from: since,
    limit: QUARANTINE_PAGE_SIZE,
    offset: (page - 1) * QUARANTINE_PAGE_SIZE,
  } as RecordsQuery);
  const data = query.data;
  const reverse = useReverseNames(data?.items.map((r) => r.sourceIp) ?? []);
  const number = (n: number) => n.toLocaleString(i18n.language);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilters((f) => ({ ...f, domain: draft.domain.trim().toLowerCase(), ip: draft.ip.trim() }));
    setPage(1);
  };

  return (
    <Stack gap="lg">
      <Text size="sm">{t('dmarc.explorer.intro')}</Text>
      <UploadReport />
      <form onSubmit={submit}>
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            label={t('dmarc.explorer.domain')}
            value={draft.domain}
            onChange={(e) => setDraft({ ...draft, domain: e.currentTarget.value })}
            maxLength={253}
            style={{ flex: '1 1 12rem', maxWidth: '18rem' }}
          />
          <TextInput
            label={t('dmarc.explorer.ip')}
            placeholder="203.0.113."
            value={draft.ip}
            onChange={(e) => setDraft({ ...draft, ip: e.currentTarget.value.replace(/[^0-9a-fA-F.:]/g, '') })}
            maxLength={64}
            style={{ flex: '1 1 10rem', maxWidth: '14rem' }}
          />
          <Select
            label={t('dmarc.explorer.period')}
            data={[
              { value: '', label: t('dmarc.explorer.anyTime') },
              ...(Object.keys(DRILL_DOWN_DAYS) as DrillDownRange[]).map((r) => ({
                value: r,
                label: t(`dmarc.explorer.range.${r}`),
              })),
            ]}
            value={filters.range}
            allowDeselect={false}
            onChange={(value) => {
              setFilters((f) => ({ ...f, range: (value ?? '') as ExplorerFilters['range'] }));
              setPage(1);
            }}
            style={{ flex: '0 1 11rem' }}
          />
          <Select
            label={t('dmarc.explorer.result')}
            data={[
              { value: '', label: t('dmarc.explorer.anyResult') },
              { value: 'pass', label: t('dmarc.explorer.passed') },
              { value: 'fail', label: t('dmarc.explorer.failed') },
            ]}
            value={filters.dmarc}
            allowDeselect={false}
            onChange={(value) => {
              setFilters((f) => ({ ...f, dmarc: (value ?? '') as '' | DmarcResult }));
              setPage(1);
            }}
            style={{ flex: '0 1 11rem' }}
          />
          <Button type="submit" variant="default">
            {t('dmarc.explorer.apply')}
          </Button>
        </Group>
      </form>
      {data && data.total > 0 && (
        <Text size="sm" fw={600} role="status">
          {t('dmarc.explorer.summary', {
            messages: number(data.messages),
            rate: Math.round((data.passed / Math.max(1, data.messages)) * 1000) / 10,
            count: data.total,
          })}
        </Text>
      )}
      <Group justify="flex-end">
        <ExportCsvButton
          path={DMARC_API.recordsCsv}
          query={{
            domain: filters.domain || undefined,
            ip: filters.ip || undefined,
            dmarc: filters.dmarc || undefined,
            from: since,
          }}
          total={data?.total}
        />
      </Group>
      <ListTable
        list={query}
        page={page}
        onPage={setPage}
        filtered={filters.domain !== '' || filters.ip !== '' || filters.dmarc !== '' || filters.range !== ''}
        caption={t('dmarc.explorer.caption')}
        emptyTitle={t('dmarc.explorer.emptyTitle')}
        emptyDescription={t('dmarc.explorer.emptyDescription')}
        minWidth={1100}
        rowKey={(row) => row.id}
        columns={[
          {
            key: 'source',
            label: t('dmarc.explorer.columns.source'),
            card: 'title',
            width: '9rem',
            cell: (row) => (
              <Stack gap={0}>
                <Text size="sm" fw={600} className="list-text-anywhere">
                  {row.sourceIp}
                </Text>
                {reverse.data?.names[row.sourceIp] && (
                  <Text size="xs" c="dimmed" className="list-text-anywhere">
                    {reverse.data.names[row.sourceIp]}
                  </Text>
                )}
              </Stack>
            ),
          },
          {
            key: 'reporter',
            label: t('dmarc.explorer.columns.reporter'),
            width: '10rem',
            cell: (row) => (
              <Stack gap={0}>
                <Text size="sm" className="list-text-anywhere">
                  {row.orgName}
                </Text>
                <Text size="xs" c="dimmed">
                  {new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' }).formatRange(
                    new Date(row.begin),
                    new Date(row.end),
                  )}
                </Text>
              </Stack>
            ),
          },
          {
            key: 'from',
            label: t('dmarc.explorer.columns.from'),
            cell: (row) => (
              <Stack gap={0}>
                <Text size="sm" className="list-text-anywhere">
                  {row.headerFrom || row.domain}
                </Text>
                {row.envelopeFrom && row.envelopeFrom !== row.headerFrom && (
                  <Text size="xs" c="dimmed" className="list-text-anywhere">
                    {t('dmarc.explorer.envelope', { domain: row.envelopeFrom })}
                  </Text>
                )}
              </Stack>
            ),
          },
          {
            key: 'dmarc',
            label: t('dmarc.explorer.columns.dmarc'),
            width: '5rem',
            cell: (row) => <ResultBadge result={row.dmarc} />,
          },
          {
            key: 'spf',
            label: t('dmarc.explorer.columns.spf'),
            width: '10rem',
            cell: (row) => <Check aligned={row.spf} results={row.spfResults} />,
          },
          {
            key: 'dkim',
            label: t('dmarc.explorer.columns.dkim'),
            width: '10rem',
            cell: (row) => <Check aligned={row.dkim} results={row.dkimResults} />,
          },
          {
            key: 'disposition',
            label: t('dmarc.explorer.columns.disposition'),
            width: '6.5rem',
            cell: (row) => <Text size="sm">{row.disposition}</Text>,
          },
          {
            key: 'count',
            label: t('dmarc.explorer.columns.count'),
            width: '5.5rem',
            cell: (row) => <Text size="sm">{number(row.count)}</Text>,
          },
        ]}
        actionsWidth="6.5rem"
        rowActions={(row) => (
          <Anchor href={rawReportPath(row.reportId)} size="sm" download>
            {t('dmarc.explorer.raw')}
          </Anchor>
        )}
      />
      <Stack gap="xs">
        <Text fw={600} component="h2" size="lg">
          {t('dmarc.intake.title')}
        </Text>
        <Text size="sm">{t('dmarc.intake.intro')}</Text>
        <ReceivedReports />
      </Stack>
      <FailureReportsSection />
      <TlsReportsSection />
    </Stack>
  );
}
