import {
  Anchor,
  Badge,
  Button,
  Center,
  Code,
  CopyButton,
  EmptyState,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  ThemeIcon,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import {
  OVERVIEW_DAYS,
  type Recommendation,
  type RecommendationSeverity,
  type RecommendationsResponse,
} from '@moat/contracts/dmarc';
import { ROUTES } from '@moat/contracts/routes';
import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import {
  daysOfRange,
  decodeDrillDown,
  drillDownHref,
  encodeDrillDown,
  rangeOfDays,
} from '../../../lib/drill-down';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useDmarcRecommendations, useReverseNames } from '../api/dmarc';

const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', wordBreak: 'break-all' } as const;

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
          {step.record && (
            <Stack gap={4}>
              <Text size="xs" fw={600}>
                {t('dmarc.recommendations.recordName')}
              </Text>
              <Code block style={WRAP}>
                {step.record.name}
              </Code>
              <Text size="xs" fw={600}>
                {t('dmarc.recommendations.recordValue')}
              </Text>
              <Code block style={WRAP}>
                {step.record.value}
              </Code>
              <Group>
                <CopyButton value={step.record.value}>
                  {({ copied, copy }) => (
                    <Button variant="default" size="xs" onClick={copy}>
                      {copied ? t('dmarc.recommendations.copied') : t('dmarc.recommendations.copy')}
                    </Button>
                  )}
                </CopyButton>
              </Group>
            </Stack>
          )}
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
  const [params, setParams] = useSearchParams();
  const drill = decodeDrillDown(params.get('drillDown'));
  const days = daysOfRange(drill.dateRange) ?? 30;
  const query = useDmarcRecommendations(days);
  const data = query.data;
  const only = drill.domain?.toLowerCase();
  const domains = data?.domains.filter((d) => !only || d.domain === only) ?? [];
  const choose = (value: string) => {
    const range = rangeOfDays(Number(value));
    const next = new URLSearchParams(params);
    next.set('drillDown', encodeDrillDown({ ...drill, ...(range ? { dateRange: range } : {}) }));
    setParams(next, { replace: true });
  };
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 18rem' }}>
          {data
            ? t('dmarc.recommendations.intro', {
                quarantine: data.thresholds.quarantine,
                reject: data.thresholds.reject,
                minDays: data.thresholds.minDays,
              })
            : t('dmarc.recommendations.introShort')}
        </Text>
        <SegmentedControl
          aria-label={t('dmarc.overview.period')}
          fullWidth
          style={{ flex: '0 1 22rem' }}
          value={String(days)}
          onChange={choose}
          data={OVERVIEW_DAYS.map((d) => ({ value: String(d), label: t(`dmarc.overview.days.${d}`) }))}
        />
      </Group>
      {only && (
        <Group gap="xs">
          <Text size="sm">{t('dmarc.overview.onlyDomain', { domain: only })}</Text>
          <Anchor
            component={Link}
            to={drillDownHref(`${ROUTES.dmarc}/domain-recommendations`, { dateRange: rangeOfDays(days) })}
            size="sm"
          >
            {t('dmarc.overview.allDomains')}
          </Anchor>
        </Group>
      )}
      {query.isPending && (
        <Center py="xl" role="status">
          <Loader />
          <VisuallyHidden>{t('dmarc.recommendations.loading')}</VisuallyHidden>
        </Center>
      )}
      {query.isError && <ApiErrorAlert error={query.error} />}
      {data && domains.length === 0 && (
        <EmptyState
          title={t('dmarc.overview.emptyTitle')}
          description={t('dmarc.overview.emptyDescription')}
          withIndicatorBackground
        >
          <Button component={Link} to={`${ROUTES.configuration}/settings`} variant="light">
            {t('dmarc.overview.emptyAction')}
          </Button>
        </EmptyState>
      )}
      {domains.map((advice) => (
        <DomainSteps key={advice.domain} advice={advice} days={days} />
      ))}
    </Stack>
  );
}
