import { Badge, Code, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import type { TlsFailureDetail, TlsReportItem } from '@moat/contracts/dmarc';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import { useState } from 'react';
import { ListTable } from '../../../components/list/ListTable';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useTlsReports } from '../api/failure-tls';
import { DaysSelect } from './FailureReportsSection';

const WRAP = { overflowWrap: 'anywhere', wordBreak: 'break-word' } as const;

/** RFC 8460's result types, in words; another is shown as the reporter wrote it. */
const RESULT_TEXT: Record<string, TranslationKey> = {
  'starttls-not-supported': 'dmarc.tls.result.starttlsNotSupported',
  'certificate-host-mismatch': 'dmarc.tls.result.certificateHostMismatch',
  'certificate-expired': 'dmarc.tls.result.certificateExpired',
  'certificate-not-trusted': 'dmarc.tls.result.certificateNotTrusted',
  'validation-failure': 'dmarc.tls.result.validationFailure',
  'tlsa-invalid': 'dmarc.tls.result.tlsaInvalid',
  'dnssec-invalid': 'dmarc.tls.result.dnssecInvalid',
  'dane-required': 'dmarc.tls.result.daneRequired',
  'sts-policy-fetch-error': 'dmarc.tls.result.stsPolicyFetchError',
  'sts-policy-invalid': 'dmarc.tls.result.stsPolicyInvalid',
  'sts-webpki-invalid': 'dmarc.tls.result.stsWebpkiInvalid',
};

const POLICY_TEXT: Record<string, TranslationKey> = {
  sts: 'dmarc.tls.policy.sts',
  tlsa: 'dmarc.tls.policy.tlsa',
  'no-policy-found': 'dmarc.tls.policy.none',
};

/** One failure of a report: what went wrong, how often, between which servers. */
function Failure({ detail }: { detail: TlsFailureDetail }) {
  const { t, i18n } = useTranslation();
  const key = RESULT_TEXT[detail.resultType];
  return (
    <Stack gap={0}>
      <Text size="sm" style={WRAP}>
        <Text span fw={600} size="sm">
          {key ? t(key) : detail.resultType}
        </Text>
        {' · '}
        {t('dmarc.tls.sessions', {
          count: detail.failedSessions,
          formatted: detail.failedSessions.toLocaleString(i18n.language),
        })}
      </Text>
      <Text size="xs" c="dimmed" style={WRAP}>
        {t('dmarc.tls.between', {
          from: detail.sendingMtaIp || '—',
          to:
            [detail.receivingMxHostname, detail.receivingIp && `(${detail.receivingIp})`]
              .filter(Boolean)
              .join(' ') || '—',
        })}
      </Text>
      {(detail.failureReasonCode || detail.additionalInformation) && (
        <Text size="xs" c="dimmed" style={WRAP}>
          {[detail.failureReasonCode, detail.additionalInformation].filter(Boolean).join(' · ')}
        </Text>
      )}
    </Stack>
  );
}

/** A report's policies and their failures (a row's details). */
function Policies({ report }: { report: TlsReportItem }) {
  const { t } = useTranslation();
  const failures = report.policies.flatMap((p) => p.failureDetails);
  const more = report.policies.reduce((n, p) => n + (p.moreFailureDetails ?? 0), 0);
  return (
    <Stack gap={6}>
      {report.policies.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a report's policies have no identity but their place
        <Text size="xs" key={i} style={WRAP}>
          <Text span fw={600} size="xs">
            {POLICY_TEXT[p.type] ? t(POLICY_TEXT[p.type]!) : p.type}
          </Text>
          {p.mxHosts.length > 0 && ` · ${t('dmarc.tls.mxHosts', { hosts: p.mxHosts.join(', ') })}`}
        </Text>
      ))}
      {failures.length === 0 ? (
        <Text size="xs" c="dimmed">
          {t('dmarc.tls.noFailures')}
        </Text>
      ) : (
        failures.map((d, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: failure details have no identity but their place
          <Failure key={i} detail={d} />
        ))
      )}
      {more > 0 && (
        <Text size="xs" c="dimmed">
          {t('dmarc.tls.moreDetails', { count: more })}
        </Text>
      )}
    </Stack>
  );
}

/**
 * SMTP TLS reports (RFC 8460): what sending servers (Google, Microsoft, …) saw when they delivered
 * to the domains' MX hosts over TLS — per domain the sessions that succeeded and failed, and each
 * report with its policy and its failures.
 */
export function TlsReportsSection() {
  const { t, i18n } = useTranslation();
  const [days, setDays] = useState(30);
  const [page, setPage] = useState(1);
  const size = QUARANTINE_PAGE_SIZE;
  const query = useTlsReports({ days, limit: size, offset: (page - 1) * size });
  const number = (n: number) => n.toLocaleString(i18n.language);
  const domain = query.data?.ownDomains[0] ?? 'example.com';
  const day = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' }).format(new Date(iso));
  return (
    <Stack gap="xs" component="section" aria-labelledby="dmarc-tls-title">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Text fw={600} component="h2" size="lg" id="dmarc-tls-title">
          {t('dmarc.tls.title')}
        </Text>
        <DaysSelect
          value={days}
          onChange={(d) => {
            setDays(d);
            setPage(1);
          }}
        />
      </Group>
      <Text size="sm">{t('dmarc.tls.intro')}</Text>
      {query.data && query.data.total === 0 && (
        <Text size="sm">
          {t('dmarc.tls.howTo', { name: `_smtp._tls.${domain}` })}{' '}
          <Code style={WRAP}>{`v=TLSRPTv1; rua=mailto:dmarc-reports@${domain}`}</Code>
        </Text>
      )}
      {query.data && query.data.domains.length > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
          {query.data.domains.map((d) => {
            const total = d.successful + d.failed;
            const rate = total === 0 ? 100 : Math.round((d.successful / total) * 1000) / 10;
            return (
              <Paper key={d.domain} withBorder p="sm" radius="md">
                <Stack gap={4}>
                  <Group justify="space-between" wrap="nowrap" gap="xs">
                    <Text fw={600} style={WRAP}>
                      {d.domain}
                    </Text>
                    <Badge
                      className="quarantine-badge"
                      variant="light"
                      color={d.failed === 0 ? 'green' : rate >= 99 ? 'yellow' : 'red'}
                    >
                      {t('dmarc.tls.rate', { rate })}
                    </Badge>
                  </Group>
                  <Text size="sm">
                    {t('dmarc.tls.domainSummary', {
                      ok: number(d.successful),
                      failed: number(d.failed),
                      count: d.reports,
                    })}
                  </Text>
                </Stack>
              </Paper>
            );
          })}
        </SimpleGrid>
      )}
      <ListTable
        list={query}
        page={page}
        onPage={setPage}
        filtered={false}
        caption={t('dmarc.tls.caption')}
        emptyTitle={t('dmarc.tls.emptyTitle')}
        emptyDescription={t('dmarc.tls.emptyDescription')}
        minWidth={800}
        rowKey={(row) => row.id}
        columns={[
          {
            key: 'period',
            label: t('dmarc.tls.columns.period'),
            card: 'title',
            width: '11rem',
            cell: (row) => <Text size="sm">{day(row.begin)}</Text>,
          },
          {
            key: 'reporter',
            label: t('dmarc.tls.columns.reporter'),
            cell: (row) => (
              <Stack gap={0}>
                <Text size="sm" style={WRAP}>
                  {row.orgName}
                </Text>
                <Text size="xs" c="dimmed" style={WRAP}>
                  {row.domain}
                </Text>
              </Stack>
            ),
          },
          {
            key: 'ok',
            label: t('dmarc.tls.columns.ok'),
            width: '8rem',
            cell: (row) => <Text size="sm">{number(row.successful)}</Text>,
          },
          {
            key: 'failed',
            label: t('dmarc.tls.columns.failed'),
            width: '8rem',
            card: 'badge',
            cell: (row) => (
              <Badge className="quarantine-badge" variant="light" color={row.failed === 0 ? 'green' : 'red'}>
                {t('dmarc.tls.failedCount', { count: row.failed, formatted: number(row.failed) })}
              </Badge>
            ),
          },
        ]}
        details={(row) => <Policies report={row} />}
      />
    </Stack>
  );
}
