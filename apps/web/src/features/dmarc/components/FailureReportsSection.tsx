import { Badge, Code, Group, Select, Stack, Text } from '@mantine/core';
import { FAILURE_TLS_DAYS, type FailureReport } from '@moat/contracts/dmarc';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import { useState } from 'react';
import { ListTable } from '../../../components/list/ListTable';
import { useTranslation } from '../../../lib/i18n';
import { useFailureReports } from '../api/failure-tls';

/** Long values (headers, addresses) wrap anywhere: no sideways scrolling at 360 px. */
const WRAP = { overflowWrap: 'anywhere', wordBreak: 'break-word' } as const;

/** The days a list looks back over, as a choice. */
export function DaysSelect({ value, onChange }: { value: number; onChange: (days: number) => void }) {
  const { t } = useTranslation();
  return (
    <Select
      label={t('dmarc.failure.period')}
      data={FAILURE_TLS_DAYS.map((d) => ({ value: String(d), label: t('dmarc.failure.days', { count: d }) }))}
      value={String(value)}
      allowDeselect={false}
      onChange={(v) => v && onChange(Number(v))}
      style={{ flex: '0 1 11rem' }}
    />
  );
}

/** The redacted sample: the headers kept of the failing message, its body never. */
function Sample({ report }: { report: FailureReport }) {
  const { t } = useTranslation();
  return (
    <Stack gap={6}>
      <Text size="xs" c="dimmed">
        {t('dmarc.failure.sampleNote')}
      </Text>
      {report.sampleHeaders.length === 0 ? (
        <Text size="sm">{t('dmarc.failure.noSample')}</Text>
      ) : (
        <Stack gap={2}>
          {report.sampleHeaders.map((h, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: headers repeat (Received): their place is their identity
            <Text size="xs" key={i} style={WRAP}>
              <Text span fw={600} size="xs">
                {h.name}:
              </Text>{' '}
              {h.value}
            </Text>
          ))}
        </Stack>
      )}
      {report.authenticationResults && (
        <Text size="xs" style={WRAP}>
          <Text span fw={600} size="xs">
            {t('dmarc.failure.receiverResults')}
          </Text>{' '}
          {report.authenticationResults}
        </Text>
      )}
    </Stack>
  );
}

/**
 * Failure reports (RFC 6591): one per message that failed DMARC, as the receiver saw it — where it
 * came from, what failed, what the receiver did — with the sample's headers redacted.
 */
export function FailureReportsSection() {
  const { t, i18n } = useTranslation();
  const [days, setDays] = useState(30);
  const [page, setPage] = useState(1);
  const size = QUARANTINE_PAGE_SIZE;
  const query = useFailureReports({ days, limit: size, offset: (page - 1) * size });
  const domain = query.data?.ownDomains[0] ?? 'example.com';
  const when = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  return (
    <Stack gap="xs" component="section" aria-labelledby="dmarc-failure-title">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Text fw={600} component="h2" size="lg" id="dmarc-failure-title">
          {t('dmarc.failure.title')}
        </Text>
        <DaysSelect
          value={days}
          onChange={(d) => {
            setDays(d);
            setPage(1);
          }}
        />
      </Group>
      <Text size="sm">{t('dmarc.failure.intro')}</Text>
      {query.data && query.data.total === 0 && (
        <Text size="sm">
          {t('dmarc.failure.howTo', { domain })}{' '}
          <Code style={WRAP}>{`ruf=mailto:dmarc-reports@${domain}; fo=1`}</Code>
        </Text>
      )}
      <ListTable
        list={query}
        page={page}
        onPage={setPage}
        filtered={false}
        caption={t('dmarc.failure.caption')}
        emptyTitle={t('dmarc.failure.emptyTitle')}
        emptyDescription={t('dmarc.failure.emptyDescription')}
        minWidth={900}
        rowKey={(row) => row.id}
        columns={[
          {
            key: 'arrival',
            label: t('dmarc.failure.columns.arrival'),
            card: 'title',
            width: '11rem',
            cell: (row) => <Text size="sm">{when(row.arrivalAt ?? row.receivedAt)}</Text>,
          },
          {
            key: 'source',
            label: t('dmarc.failure.columns.source'),
            width: '12rem',
            cell: (row) => (
              <Stack gap={0}>
                <Text size="sm" fw={600} style={WRAP}>
                  {row.sourceIp || t('dmarc.failure.unknownSource')}
                </Text>
                <Text size="xs" c="dimmed" style={WRAP}>
                  {t('dmarc.failure.reportedBy', { reporter: row.reporter })}
                </Text>
              </Stack>
            ),
          },
          {
            key: 'domain',
            label: t('dmarc.failure.columns.domain'),
            cell: (row) => (
              <Stack gap={0}>
                <Text size="sm" style={WRAP}>
                  {row.reportedDomain}
                </Text>
                {row.originalMailFrom && (
                  <Text size="xs" c="dimmed" style={WRAP}>
                    {t('dmarc.failure.mailFrom', { address: row.originalMailFrom })}
                  </Text>
                )}
                {row.dkimDomain && (
                  <Text size="xs" c="dimmed" style={WRAP}>
                    {t('dmarc.failure.dkim', {
                      domain: row.dkimDomain,
                      selector: row.dkimSelector || '—',
                    })}
                  </Text>
                )}
              </Stack>
            ),
          },
          {
            key: 'failed',
            label: t('dmarc.failure.columns.failed'),
            width: '9rem',
            card: 'badge',
            cell: (row) => (
              <Group gap={4}>
                {(row.authFailure || 'dmarc').split(', ').map((f) => (
                  <Badge key={f} variant="light" color="red" className="quarantine-badge">
                    {f.toUpperCase()}
                  </Badge>
                ))}
              </Group>
            ),
          },
          {
            key: 'result',
            label: t('dmarc.failure.columns.result'),
            width: '8rem',
            cell: (row) => <Text size="sm">{deliveryText(t, row.deliveryResult)}</Text>,
          },
        ]}
        details={(row) => <Sample report={row} />}
      />
    </Stack>
  );
}

/** What the receiver did with the failing message, in words (RFC 6591's Delivery-Result). */
function deliveryText(t: ReturnType<typeof useTranslation>['t'], result: string): string {
  switch (result) {
    case 'delivered':
      return t('dmarc.failure.delivery.delivered');
    case 'spam':
      return t('dmarc.failure.delivery.spam');
    case 'policy':
      return t('dmarc.failure.delivery.policy');
    case 'reject':
      return t('dmarc.failure.delivery.reject');
    case '':
      return t('dmarc.failure.delivery.unknown');
    default:
      return result;
  }
}
