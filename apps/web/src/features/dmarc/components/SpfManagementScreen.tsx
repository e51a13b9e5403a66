import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  List,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { SpfChange, SpfDomain, SpfNode, SpfProblem, SpfSeverity } from '@moat/contracts/dmarc';
import { useId } from 'react';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';
import { useSpf } from '../api/spf';
import { SPF_CHANGE_TEXT, SPF_FAILURE_TEXT, SPF_NODE_STATUS_TEXT, SPF_PROBLEM_TEXT } from '../spf-labels';
import { DomainsFrame } from './DomainsFrame';
import { WRAP } from './RecordToPublish';

const SEVERITY: Record<SpfSeverity, { color: string; title: TranslationKey }> = {
  error: { color: 'red', title: 'dmarc.spf.severity.error' },
  warning: { color: 'yellow', title: 'dmarc.spf.severity.warning' },
  info: { color: 'blue', title: 'dmarc.spf.severity.info' },
};

/** "N of limit" as a bar: green well within, yellow near the limit, red past it. */
function Meter({ label, count, limit, help }: { label: string; count: number; limit: number; help: string }) {
  const color = count > limit ? 'red' : count >= limit - 1 ? 'yellow' : 'teal';
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      <Progress.Root
        size="lg"
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={count}
        aria-valuetext={label}
      >
        <Progress.Section value={Math.min(100, (count / limit) * 100)} color={color} withAria={false} />
      </Progress.Root>
      <Text size="xs" c="dimmed">
        {help}
      </Text>
    </Stack>
  );
}

function ProblemAlert({ problem, limits }: { problem: SpfProblem; limits: SpfLimits }) {
  const { t } = useTranslation();
  const severity = SEVERITY[problem.severity];
  const limit = problem.code === 'too_many_void_lookups' ? limits.voidLookups : limits.lookups;
  return (
    <Alert
      color={severity.color}
      variant="light"
      title={t(severity.title)}
      classNames={{ title: 'alert-title-text' }}
    >
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {t(SPF_PROBLEM_TEXT[problem.code], {
          domain: problem.domain,
          term: problem.term ?? '',
          count: problem.count ?? 0,
          limit,
        })}
      </Text>
    </Alert>
  );
}

function changeText(t: ReturnType<typeof useTranslation>['t'], c: SpfChange) {
  return t(SPF_CHANGE_TEXT[c.code], {
    term: c.term ?? '',
    replacement: c.replacement ?? '',
    domain: c.domain ?? '',
    count: c.count ?? 0,
  });
}

function CorrectedRecord({
  domain,
  limits,
  domainHeadingId,
}: {
  domain: SpfDomain;
  limits: SpfLimits;
  domainHeadingId: string;
}) {
  const { t } = useTranslation();
  const headingId = useId();
  const corrected = domain.corrected;
  if (!corrected) return null;
  return (
    <Stack gap="xs" component="section" aria-labelledby={`${headingId} ${domainHeadingId}`}>
      <Title order={3} size="h5" id={headingId}>
        {t('dmarc.spf.corrected')}
      </Title>
      <Text size="sm">{t('dmarc.spf.correctedIntro', { domain: domain.domain })}</Text>
      <Code block style={WRAP}>
        {corrected.record}
      </Code>
      <Group gap="sm" wrap="wrap">
        <CopyButton value={corrected.record}>
          {({ copied, copy }) => (
            <Button variant="default" size="xs" onClick={copy}>
              {copied ? t('dmarc.spf.copied') : t('dmarc.spf.copy')}
            </Button>
          )}
        </CopyButton>
        <Text size="sm" c={corrected.lookups > limits.lookups ? 'red' : 'dimmed'}>
          {t('dmarc.spf.correctedLookups', { count: corrected.lookups, limit: limits.lookups })}
        </Text>
      </Group>
      <Text size="sm" fw={600}>
        {t('dmarc.spf.changesTitle')}
      </Text>
      <List size="sm" spacing={4}>
        {corrected.changes.map((c, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the changes are in order and have no identity of their own
          <List.Item key={i} style={{ overflowWrap: 'anywhere' }}>
            {changeText(t, c)}
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}

/** One include (or redirect): what it costs, what it publishes, and what it includes in turn. */
function TreeNode({ node }: { node: SpfNode }) {
  const { t } = useTranslation();
  return (
    <List.Item>
      <Stack gap={2}>
        <Group gap="xs" wrap="wrap">
          <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
            {t(node.via === 'redirect' ? 'dmarc.spf.via.redirect' : 'dmarc.spf.via.include', {
              domain: node.domain,
            })}
          </Text>
          <Badge
            className="quarantine-badge"
            variant="light"
            color={node.lookups > 1 ? 'grape' : 'gray'}
            size="sm"
            tt="none"
          >
            {t('dmarc.spf.nodeLookups', { count: node.lookups })}
          </Badge>
          {node.voidLookups > 0 && (
            <Badge className="quarantine-badge" variant="light" color="yellow" size="sm" tt="none">
              {t('dmarc.spf.nodeVoid', { count: node.voidLookups })}
            </Badge>
          )}
          {node.beyondLimit && (
            <Badge className="quarantine-badge" variant="light" color="red" size="sm" tt="none">
              {t('dmarc.spf.beyondLimit')}
            </Badge>
          )}
          {node.status !== 'ok' && (
            <Badge
              className="quarantine-badge"
              variant="light"
              color="red"
              size="sm"
              style={{ textTransform: 'none' }}
            >
              {t(SPF_NODE_STATUS_TEXT[node.status])}
            </Badge>
          )}
        </Group>
        {node.record && (
          <Text size="xs" c="dimmed" ff="monospace" style={WRAP}>
            {node.record}
          </Text>
        )}
        {node.children.length > 0 && <Tree nodes={node.children} />}
      </Stack>
    </List.Item>
  );
}

function Tree({ nodes, label }: { nodes: SpfNode[]; label?: string }) {
  return (
    <List size="sm" spacing={6} withPadding listStyleType="disc" aria-label={label}>
      {nodes.map((node, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a domain may be included twice; the place tells them apart
        <TreeNode key={`${node.domain}-${i}`} node={node} />
      ))}
    </List>
  );
}

type SpfLimits = { lookups: number; voidLookups: number };

function statusBadge(t: ReturnType<typeof useTranslation>['t'], domain: SpfDomain) {
  if (!domain.checked) return { color: 'gray', text: t('dmarc.spf.status.unchecked') };
  if (domain.records.length === 0) return { color: 'red', text: t('dmarc.spf.status.noRecord') };
  const errors = domain.problems.filter((p) => p.severity === 'error').length;
  if (errors > 0) return { color: 'red', text: t('dmarc.spf.status.problems', { count: errors }) };
  const warnings = domain.problems.filter((p) => p.severity === 'warning').length;
  if (warnings > 0) return { color: 'yellow', text: t('dmarc.spf.status.warnings', { count: warnings }) };
  return { color: 'teal', text: t('dmarc.spf.status.ok') };
}

/** One domain's SPF: as published, counted, its problems, its includes, and what to publish instead. */
function DomainSpf({ domain, limits }: { domain: SpfDomain; limits: SpfLimits }) {
  const { t } = useTranslation();
  const headingId = useId();
  const treeId = useId();
  const badge = statusBadge(t, domain);
  const lookups = t(domain.complete ? 'dmarc.spf.lookups' : 'dmarc.spf.lookupsAtLeast', {
    count: domain.lookups,
    limit: limits.lookups,
  });
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

        {!domain.checked && (
          <Alert
            color="gray"
            variant="light"
            title={t('dmarc.spf.status.unchecked')}
            classNames={{ title: 'alert-title-text' }}
          >
            <Text size="sm">
              {t('dmarc.spf.unchecked', {
                domain: domain.domain,
                reason: t(SPF_FAILURE_TEXT[domain.failure ?? 'failed']),
              })}
            </Text>
          </Alert>
        )}

        {domain.records.length > 0 && (
          <Stack gap={4}>
            <Text size="sm" fw={600}>
              {domain.records.length > 1
                ? t('dmarc.spf.publishedMany', { count: domain.records.length })
                : t('dmarc.spf.published')}
            </Text>
            {domain.records.map((record, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: two records may read the same
              <Code block key={i} style={WRAP}>
                {record}
              </Code>
            ))}
          </Stack>
        )}

        {domain.tree && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <Meter
              label={lookups}
              count={domain.lookups}
              limit={limits.lookups}
              help={t('dmarc.spf.lookupsHelp', { limit: limits.lookups })}
            />
            <Meter
              label={t('dmarc.spf.voidLookups', { count: domain.voidLookups, limit: limits.voidLookups })}
              count={domain.voidLookups}
              limit={limits.voidLookups}
              help={t('dmarc.spf.voidHelp', { limit: limits.voidLookups })}
            />
          </SimpleGrid>
        )}

        {domain.checked && (
          <Stack gap="xs">
            <Title order={3} size="h5">
              {t('dmarc.spf.problemsTitle')}
            </Title>
            {domain.problems.length === 0 ? (
              <Text size="sm" c="var(--mantine-color-teal-text)">
                {t('dmarc.spf.noProblems')}
              </Text>
            ) : (
              domain.problems.map((problem, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: problems are in order and may repeat
                <ProblemAlert key={i} problem={problem} limits={limits} />
              ))
            )}
          </Stack>
        )}

        <CorrectedRecord domain={domain} limits={limits} domainHeadingId={headingId} />

        {domain.tree && (
          <Stack gap="xs" component="section" aria-labelledby={`${treeId} ${headingId}`}>
            <Title order={3} size="h5" id={treeId}>
              {t('dmarc.spf.treeTitle')}
            </Title>
            {domain.tree.children.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('dmarc.spf.treeEmpty')}
              </Text>
            ) : (
              <Tree nodes={domain.tree.children} label={t('dmarc.spf.treeCaption')} />
            )}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/**
 * DMARC → SPF Management: each of the tenant's domains' SPF record, looked up now: as published,
 * its DNS lookups against the limit of ten (and the void ones against two), the tree of what it
 * includes, its problems named, and a corrected record to copy with the reason for each change.
 */
export function SpfManagementScreen() {
  const { t, i18n } = useTranslation();
  const query = useSpf();
  const data = query.data;
  return (
    <DomainsFrame
      intro={t('dmarc.spf.intro')}
      control={
        <Button variant="default" onClick={() => void query.refetch()} loading={query.isFetching}>
          {t('dmarc.spf.checkAgain')}
        </Button>
      }
      query={query}
      loading={t('dmarc.spf.loading')}
      noDomains={data !== undefined && data.domains.length === 0}
      empty={{ title: t('dmarc.spf.emptyTitle'), description: t('dmarc.spf.emptyDescription') }}
    >
      {data && data.domains.length > 0 && (
        <>
          <Text size="xs" c="dimmed" role="status">
            {t('dmarc.spf.checkedAt', {
              time: new Intl.DateTimeFormat(i18n.language, {
                dateStyle: 'medium',
                timeStyle: 'short',
              }).format(new Date(data.checkedAt)),
            })}
          </Text>
          {data.domains.map((domain) => (
            <DomainSpf key={domain.domain} domain={domain} limits={data.limits} />
          ))}
        </>
      )}
    </DomainsFrame>
  );
}
