import { Alert, Badge, Button, Code, Group, List, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import type { DkimSigningDomain } from '@moat/contracts/dkim-signing';
import type {
  DkimDomain,
  DkimPlan,
  DkimProblem,
  DkimResponse,
  DkimRotation,
  DkimSelector,
  DkimSeverity,
  DkimStep,
} from '@moat/contracts/dmarc';
import { useId } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useDkim } from '../api/dkim';
import { useDkimSigning } from '../api/dkim-signing';
import {
  DKIM_PLAN_TEXT,
  DKIM_PROBLEM_TEXT,
  DKIM_REASON_TEXT,
  DKIM_SEEN_TEXT,
  DKIM_STEP_TEXT,
} from '../dkim-labels';
import { DkimSigningPanel } from './DkimSigningPanel';
import { DomainsFrame } from './DomainsFrame';
import { RecordToPublish, WRAP } from './RecordToPublish';

type T = ReturnType<typeof useTranslation>['t'];
type Limits = DkimResponse['limits'];

const SEVERITY: Record<DkimSeverity, { color: string; title: TranslationKey }> = {
  error: { color: 'red', title: 'dmarc.dkim.severity.error' },
  warning: { color: 'yellow', title: 'dmarc.dkim.severity.warning' },
  info: { color: 'blue', title: 'dmarc.dkim.severity.info' },
};

/** The steps' records take the list's whole width, however short the step's words. */
const STEPS = { itemWrapper: { display: 'block' }, itemLabel: { display: 'block' } } as const;
const BADGE = { className: 'quarantine-badge', variant: 'light', size: 'sm', tt: 'none' } as const;

function useDate() {
  const { i18n } = useTranslation();
  const format = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' });
  return (iso: string) => format.format(new Date(iso));
}

function ProblemAlert({ problem, domain, limits }: { problem: DkimProblem; domain: string; limits: Limits }) {
  const { t } = useTranslation();
  const severity = SEVERITY[problem.severity];
  return (
    <Alert
      color={severity.color}
      variant="light"
      title={t(severity.title)}
      classNames={{ title: 'alert-title-text' }}
    >
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {t(DKIM_PROBLEM_TEXT[problem.code], {
          domain,
          selector: problem.selector ?? '',
          name: problem.selector ? `${problem.selector}._domainkey.${domain}` : domain,
          count: problem.count ?? 0,
          min: limits.minRsaBits,
          good: limits.goodRsaBits,
        })}
      </Text>
    </Alert>
  );
}

/** The key's type and size as a badge: green when good, yellow when weak, red when unusable. */
function keyBadge(t: T, s: DkimSelector, limits: Limits): { color: string; text: string } {
  if (s.lookup === 'failed') return { color: 'gray', text: t('dmarc.dkim.key.failed') };
  const key = s.key;
  if (!key) return { color: 'red', text: t('dmarc.dkim.key.none') };
  if (key.revoked) return { color: 'gray', text: t('dmarc.dkim.key.revoked') };
  if (key.type === 'ed25519') return { color: key.bits ? 'teal' : 'red', text: t('dmarc.dkim.key.ed25519') };
  if (key.type === 'rsa') {
    if (key.bits === null) return { color: 'red', text: t('dmarc.dkim.key.rsaUnknown') };
    const color = key.bits < limits.minRsaBits ? 'red' : key.bits < limits.goodRsaBits ? 'yellow' : 'teal';
    return { color, text: t('dmarc.dkim.key.rsa', { bits: key.bits }) };
  }
  return { color: 'red', text: t('dmarc.dkim.key.unknown') };
}

function SelectorCard({ s, domain, limits }: { s: DkimSelector; domain: string; limits: Limits }) {
  const { t } = useTranslation();
  const date = useDate();
  const headingId = useId();
  const badge = keyBadge(t, s, limits);
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="xs">
        <Group gap="xs" wrap="wrap">
          <Title order={4} size="h6" id={headingId} style={{ overflowWrap: 'anywhere' }}>
            {t('dmarc.dkim.selector', { selector: s.selector })}
          </Title>
          <Badge {...BADGE} color={badge.color}>
            {badge.text}
          </Badge>
          {s.key?.testing && (
            <Badge {...BADGE} color="yellow">
              {t('dmarc.dkim.key.testing')}
            </Badge>
          )}
          {s.key?.strict && (
            <Badge {...BADGE} color="gray">
              {t('dmarc.dkim.key.strict')}
            </Badge>
          )}
        </Group>
        <Text size="xs" c="dimmed" ff="monospace" style={WRAP}>
          {t('dmarc.dkim.keyName', { name: s.name })}
        </Text>
        <Stack gap={2}>
          <Text size="sm">
            {t('dmarc.dkim.seenInLabel', { places: s.seenIn.map((p) => t(DKIM_SEEN_TEXT[p])).join(', ') })}
          </Text>
          {s.messages > 0 && (
            <Text size="sm">{t('dmarc.dkim.messages', { count: s.messages, rate: s.passRate ?? 0 })}</Text>
          )}
          {s.firstSeen && s.lastSeen && (
            <Text size="sm" c="dimmed">
              {t('dmarc.dkim.seenBetween', { first: date(s.firstSeen), last: date(s.lastSeen) })}
            </Text>
          )}
          {s.keyFirstSeen && (
            <Text size="sm" c="dimmed">
              {t('dmarc.dkim.keyFirstSeen', { date: date(s.keyFirstSeen) })}
            </Text>
          )}
        </Stack>
        {s.key && (
          <Stack gap={2}>
            <Text size="xs" fw={600}>
              {t('dmarc.dkim.record')}
            </Text>
            <Code block style={{ ...WRAP, maxHeight: '8rem', overflowY: 'auto' }}>
              {s.key.record}
            </Code>
          </Stack>
        )}
        {s.problems.length === 0 ? (
          <Text size="sm">{t('dmarc.dkim.noProblems')}</Text>
        ) : (
          s.problems.map((problem, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: problems are in order and may repeat
            <ProblemAlert key={i} problem={problem} domain={domain} limits={limits} />
          ))
        )}
      </Stack>
    </Paper>
  );
}

const kindOf = (t: T, step: DkimStep) =>
  t(step.value?.includes('k=ed25519') ? 'dmarc.dkim.kind.ed25519' : 'dmarc.dkim.kind.rsa');

function StepItem({ step, rotation }: { step: DkimStep; rotation: DkimRotation }) {
  const { t } = useTranslation();
  const selector = step.code === 'switch' ? rotation.newSelector : rotation.selector;
  const text = t(DKIM_STEP_TEXT[step.code], {
    name: step.name,
    selector,
    days: step.days ?? 0,
    kind: kindOf(t, step),
  });
  return (
    <List.Item>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {text}
      </Text>
      {(step.code === 'publish' || step.code === 'revoke') && (
        <RecordToPublish name={step.name} value={step.value} />
      )}
    </List.Item>
  );
}

function reasonText(t: T, r: DkimRotation, limits: Limits, date: (iso: string) => string) {
  if (r.reason === 'old' && !r.keyFirstSeen)
    return t('dmarc.dkim.reason.old_unknown', { selector: r.selector, days: limits.rotateAfterDays });
  return t(DKIM_REASON_TEXT[r.reason], {
    selector: r.selector,
    bits: r.bits ?? 0,
    good: limits.goodRsaBits,
    date: r.keyFirstSeen ? date(r.keyFirstSeen) : '',
    days: limits.rotateAfterDays,
  });
}

function Plan({
  plan,
  limits,
  domainHeadingId,
}: {
  plan: DkimPlan;
  limits: Limits;
  domainHeadingId: string;
}) {
  const { t } = useTranslation();
  const date = useDate();
  const headingId = useId();
  return (
    <Stack gap="xs" component="section" aria-labelledby={`${headingId} ${domainHeadingId}`}>
      <Title order={3} size="h5" id={headingId}>
        {t('dmarc.dkim.plan.title')}
      </Title>
      <Text size="sm">
        {t(DKIM_PLAN_TEXT[plan.status], { good: limits.goodRsaBits, days: limits.rotateAfterDays })}
      </Text>
      {plan.publish && (
        <List type="ordered" size="sm" spacing="sm" withPadding styles={STEPS}>
          <List.Item>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {plan.publish.value && !plan.publish.value.includes('<')
                ? t('dmarc.dkim.step.publishMoat', { name: plan.publish.name })
                : t('dmarc.dkim.step.publishFirst', {
                    name: plan.publish.name,
                    kind: kindOf(t, plan.publish),
                  })}
            </Text>
            <RecordToPublish name={plan.publish.name} value={plan.publish.value} />
          </List.Item>
        </List>
      )}
      {plan.rotations.map((r) => (
        <Paper key={r.selector} withBorder p="sm" radius="md">
          <Stack gap="xs">
            <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
              {t('dmarc.dkim.plan.rotationTitle', { selector: r.selector, newSelector: r.newSelector })}
            </Text>
            <Text size="sm">{reasonText(t, r, limits, date)}</Text>
            <List type="ordered" size="sm" spacing="sm" withPadding styles={STEPS}>
              {r.steps.map((step) => (
                <StepItem key={step.code} step={step} rotation={r} />
              ))}
            </List>
          </Stack>
        </Paper>
      ))}
      {plan.nextRotation && plan.nextSelector && (
        <Text size="sm" c="dimmed">
          {t('dmarc.dkim.plan.next', { selector: plan.nextSelector, date: date(plan.nextRotation) })}
        </Text>
      )}
    </Stack>
  );
}

function statusBadge(t: T, domain: DkimDomain) {
  const errors = [...domain.problems, ...domain.selectors.flatMap((s) => s.problems)].filter(
    (p) => p.severity === 'error',
  ).length;
  if (domain.plan.status === 'unknown') return { color: 'gray', text: t('dmarc.dkim.status.unknown') };
  if (domain.plan.status === 'publish') return { color: 'red', text: t('dmarc.dkim.status.publish') };
  if (errors > 0) return { color: 'red', text: t('dmarc.dkim.status.problems', { count: errors }) };
  if (domain.plan.status === 'rotate') return { color: 'yellow', text: t('dmarc.dkim.status.rotate') };
  return { color: 'teal', text: t('dmarc.dkim.status.none_due') };
}

function DomainDkim({
  domain,
  limits,
  signing,
  signingQuery,
}: {
  domain: DkimDomain;
  limits: Limits;
  signing: DkimSigningDomain | undefined;
  signingQuery: ReturnType<typeof useDkimSigning>;
}) {
  const { t } = useTranslation();
  const headingId = useId();
  const badge = statusBadge(t, domain);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="md">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Title order={2} size="h4" id={headingId} style={{ overflowWrap: 'anywhere' }}>
            {domain.domain}
          </Title>
          <Badge
            className="quarantine-badge"
            color={badge.color}
            variant="light"
            style={{ textTransform: 'none' }}
          >
            {badge.text}
          </Badge>
        </Group>
        {domain.problems.map((problem, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: problems are in order
          <ProblemAlert key={i} problem={problem} domain={domain.domain} limits={limits} />
        ))}
        {signing ? (
          <DkimSigningPanel domain={signing} headingOf={headingId} />
        ) : signingQuery.isError ? (
          <ApiErrorAlert error={signingQuery.error} />
        ) : (
          signingQuery.isPending && <Loader size="sm" aria-label={t('dmarc.dkimSigning.loading')} />
        )}
        <Stack gap="xs">
          <Title order={3} size="h5">
            {t('dmarc.dkim.selectorsTitle')}
          </Title>
          {domain.selectors.length === 0 ? (
            <Stack gap={4}>
              <Text size="sm" fw={600}>
                {t('dmarc.dkim.noSelectorsTitle')}
              </Text>
              <Text size="sm">{t('dmarc.dkim.noSelectors', { domain: domain.domain })}</Text>
            </Stack>
          ) : (
            domain.selectors.map((s) => (
              <SelectorCard key={s.selector} s={s} domain={domain.domain} limits={limits} />
            ))
          )}
        </Stack>
        <Plan plan={domain.plan} limits={limits} domainHeadingId={headingId} />
      </Stack>
    </Paper>
  );
}

/**
 * DMARC → DKIM Management: each of the tenant's domains' DKIM selectors, as the reports and the
 * mail through Moat show them signing and as DNS publishes them; each key's type, size and
 * problems; and a rotation plan, step by step, with the records to publish.
 */
export function DkimManagementScreen() {
  const { t, i18n } = useTranslation();
  const query = useDkim();
  const signing = useDkimSigning();
  const data = query.data;
  return (
    <DomainsFrame
      intro={t('dmarc.dkim.intro')}
      control={
        <Button
          variant="default"
          onClick={() => {
            void query.refetch();
            void signing.refetch();
          }}
          loading={query.isFetching || signing.isFetching}
        >
          {t('dmarc.dkim.checkAgain')}
        </Button>
      }
      query={query}
      loading={t('dmarc.dkim.loading')}
      noDomains={data !== undefined && data.domains.length === 0}
      empty={{ title: t('dmarc.dkim.emptyTitle'), description: t('dmarc.dkim.emptyDescription') }}
    >
      {data && data.domains.length > 0 && (
        <>
          <Text size="xs" c="dimmed" role="status">
            {t('dmarc.dkim.checkedAt', {
              time: new Intl.DateTimeFormat(i18n.language, {
                dateStyle: 'medium',
                timeStyle: 'short',
              }).format(new Date(data.checkedAt)),
            })}
          </Text>
          {data.domains.map((domain) => (
            <DomainDkim
              key={domain.domain}
              domain={domain}
              limits={data.limits}
              signing={signing.data?.domains.find((d) => d.domain === domain.domain)}
              signingQuery={signing}
            />
          ))}
          <Text size="xs" c="dimmed">
            {t('dmarc.dkim.probed', { selectors: data.probed.join(', ') })}
          </Text>
        </>
      )}
    </DomainsFrame>
  );
}
