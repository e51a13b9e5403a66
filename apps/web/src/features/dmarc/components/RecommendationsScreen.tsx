import { Anchor, Badge, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { Recommendation, RecommendationSeverity, RecommendationsResponse } from '@moat/contracts/dmarc';
import { ROUTES } from '@moat/contracts/routes';
import { useId } from 'react';
import { Link } from 'react-router';
import { drillDownHref, rangeOfDays } from '../../../lib/drill-down';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useDmarcRecommendations, useReverseNames } from '../api/dmarc';
import { DomainsFrame } from './DomainsFrame';
import { OnlyDomain, PeriodControl, useDrillPeriod } from './Period';
import { RecordToPublish, WRAP } from './RecordToPublish';

const SEVERITY: Record<RecommendationSeverity, { color: string; label: TranslationKey; mark: string }> = {
  action: { color: 'red', label: 'dmarc.recommendations.severity.action', mark: '!' },
  warning: { color: 'yellow', label: 'dmarc.recommendations.severity.warning', mark: '!' },
  info: { color: 'blue', label: 'dmarc.recommendations.severity.info', mark: 'i' },
  done: { color: 'green', label: 'dmarc.recommendations.severity.done', mark: '✓' },
};

type DomainAdvice = RecommendationsResponse['domains'][number];

/** Where a step goes on from: the Explorer's sources, SPF or DKIM Management. */
function FollowUp({ step, domain, range }: { step: Recommendation; domain: string; range?: string }) {
  const { t } = useTranslation();
  if (step.code === 'fix_source' && step.sourceIp)
    return (
      <Anchor
        component={Link}
        size="sm"
        to={drillDownHref(`${ROUTES.dmarc}/rua-explorer`, {
          domain,
          ip: step.sourceIp,
          dmarc: 'fail',
          dateRange: range,
        })}
      >
        {t('dmarc.recommendations.seeSource')}
      </Anchor>
    );
  if (step.code === 'spf_problem')
    return (
      <Anchor component={Link} size="sm" to={`${ROUTES.dmarc}/spf-management`}>
        {t('dmarc.recommendations.openSpf')}
      </Anchor>
    );
  if (step.code === 'dkim_problem')
    return (
      <Anchor component={Link} size="sm" to={`${ROUTES.dmarc}/dkim-management`}>
        {t('dmarc.recommendations.openDkim')}
      </Anchor>
    );
  if (step.code === 'keep_monitoring' || step.code === 'no_reports_yet')
    return (
      <Anchor
        component={Link}
        size="sm"
        to={drillDownHref(`${ROUTES.dmarc}/overview`, { domain, dateRange: range })}
      >
        {t('dmarc.recommendations.openOverview')}
      </Anchor>
    );
  return null;
}

function Step({
  step,
  domain,
  range,
  reverseName,
}: {
  step: Recommendation;
  domain: string;
  range?: string;
  reverseName?: string | null;
}) {
  const { t } = useTranslation();
  const severity = SEVERITY[step.severity];
  const words = {
    ...step.params,
    source: step.sourceIp ? (reverseName ? `${step.sourceIp} (${reverseName})` : step.sourceIp) : '',
    next: step.params.next ? t(`dmarc.recommendations.policyWord.${step.params.next}` as TranslationKey) : '',
  };
  const why =
    step.code === 'fix_source'
      ? [
          t('dmarc.recommendations.codes.fix_source.why', words),
          step.params.dkimDomains ? t('dmarc.recommendations.fixSourceDkim', words) : '',
          step.params.spfDomains ? t('dmarc.recommendations.fixSourceSpf', words) : '',
          t('dmarc.recommendations.fixSourceHow', words),
        ]
          .filter(Boolean)
          .join(' ')
      : t(`dmarc.recommendations.codes.${step.code}.why` as TranslationKey, words);
  return (
    <Paper withBorder p="sm" radius="md" component="li" style={{ listStyle: 'none' }}>
      <Group align="flex-start" gap="sm" wrap="nowrap">
        <ThemeIcon color={severity.color} variant="light" radius="xl" aria-hidden="true">
          {severity.mark}
        </ThemeIcon>
        <Stack gap={6} style={{ flex: 1, minWidth: 0 }}>
          <Group gap="xs" wrap="wrap">
            <Text fw={600} size="sm">
              {t(`dmarc.recommendations.codes.${step.code}.title` as TranslationKey, words)}
            </Text>
            <Badge variant="light" color={severity.color} size="sm" className="quarantine-badge">
              {t(severity.label)}
            </Badge>
          </Group>
          <Text size="sm">{why}</Text>
          {step.record && <RecordToPublish name={step.record.name} value={step.record.value} />}
          <FollowUp step={step} domain={domain} range={range} />
        </Stack>
      </Group>
    </Paper>
  );
}

function DomainSteps({ advice, days }: { advice: DomainAdvice; days: number }) {
  const { t, i18n } = useTranslation();
  const headingId = useId();
  const range = rangeOfDays(days);
  const reverse = useReverseNames(advice.recommendations.flatMap((r) => (r.sourceIp ? [r.sourceIp] : [])));
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" gap="sm" wrap="wrap">
          <Title order={2} size="h4" id={headingId} style={WRAP}>
            {advice.domain}
          </Title>
          <Text size="sm" c="dimmed">
            {[
              advice.policy
                ? t('dmarc.recommendations.policy', { policy: advice.policy })
                : t('dmarc.recommendations.noPolicy'),
              advice.alignedRate === null
                ? null
                : t('dmarc.recommendations.aligned', {
                    rate: advice.alignedRate.toLocaleString(i18n.language),
                  }),
            ]
              .filter(Boolean)
              .join(' · ')}
          </Text>
        </Group>
        <Stack gap="xs" component="ol" p={0} m={0}>
          {advice.recommendations.map((step, i) => (
            <Step
              // biome-ignore lint/suspicious/noArrayIndexKey: the steps are in order and have no identity of their own
              key={i}
              step={step}
              domain={advice.domain}
              range={range}
              reverseName={step.sourceIp ? reverse.data?.names[step.sourceIp] : null}
            />
          ))}
        </Stack>
      </Stack>
    </Paper>
  );
}

/**
 * DMARC → Recommendations: per domain, what to change next, most urgent first, each computed
 * from the domain's record and reports and explained with its figures: publish a record, send
 * reports here, fix a real sender failing alignment, move from `none` to `quarantine` to `reject`
 * once the aligned share has held, SPF and DKIM problems.
 */
export function RecommendationsScreen() {
  const { t } = useTranslation();
  const { days, only, choose } = useDrillPeriod();
  const query = useDmarcRecommendations(days);
  const data = query.data;
  const domains = data?.domains.filter((d) => !only || d.domain === only) ?? [];
  return (
    <DomainsFrame
      intro={
        data
          ? t('dmarc.recommendations.intro', {
              quarantine: data.thresholds.quarantine,
              reject: data.thresholds.reject,
              minDays: data.thresholds.minDays,
            })
          : t('dmarc.recommendations.introShort')
      }
      control={<PeriodControl days={days} onChange={choose} />}
      query={query}
      loading={t('dmarc.recommendations.loading')}
      noDomains={data !== undefined && domains.length === 0}
      empty={{ title: t('dmarc.overview.emptyTitle'), description: t('dmarc.overview.emptyDescription') }}
    >
      <OnlyDomain domain={only} path={`${ROUTES.dmarc}/domain-recommendations`} days={days} />
      {domains.map((advice) => (
        <DomainSteps key={advice.domain} advice={advice} days={days} />
      ))}
    </DomainsFrame>
  );
}
