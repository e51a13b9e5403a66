import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Group,
  Loader,
  SimpleGrid,
  Stack,
  Text,
  Timeline,
  Title,
} from '@mantine/core';
import type { MessageTrace, TraceEntry } from '@moat/contracts/message-trace';
import { MESSAGE_TRACE_ROUTES } from '@moat/contracts/routes';
import { useLocation, useSearchParams } from 'react-router';
import { formatBytes, formatDateTime } from '../../../lib/format';
import { isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { LinkClicksSection } from '../../click-time/components/LinkClicksSection';
import {
  authResultOf,
  DELIVERY_LABEL,
  MAIL_ACTION_LABEL,
  MAIL_VERDICT_COLOR,
  MAIL_VERDICT_LABEL,
} from '../../mail-explorer/labels';
import { RetractMessageCard } from '../../retraction/components/RetractMessageCard';
import { useHeldMessageTrace } from '../api/get-held-message-trace';
import { useMessageTrace } from '../api/get-message-trace';
import { PhishingEvidenceSection } from './PhishingEvidenceSection';
import { SpamScoreSection } from './SpamScoreSection';

const OUTCOME_COLOR: Record<TraceEntry['outcome'], string> = {
  good: 'green',
  warn: 'orange',
  bad: 'red',
  info: 'blue',
};
const KIND_LABEL: Record<TraceEntry['kind'], TranslationKey> = {
  received: 'trace.kind.received',
  authentication: 'trace.kind.authentication',
  engine: 'trace.kind.engine',
  decision: 'trace.kind.decision',
  delivery: 'trace.kind.delivery',
  hold: 'trace.kind.hold',
  request: 'trace.kind.request',
  release: 'trace.kind.release',
  event: 'trace.kind.event',
};

/** The Mail Explorer row id of `/mail-explorer/message/:id`, or null. */
function mailLogIdOf(pathname: string): string | null {
  const prefix = `${MESSAGE_TRACE_ROUTES.root}/`;
  if (!pathname.startsWith(prefix)) return null;
  const id = decodeURIComponent(pathname.slice(prefix.length).replace(/\/+$/, ''));
  return id === '' ? null : id;
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

function TraceView({ trace }: { trace: MessageTrace }) {
  const { t, i18n } = useTranslation();
  const m = trace.message;
  return (
    <Stack gap="lg">
      <Alert
        color={MAIL_VERDICT_COLOR[m.verdict]}
        title={
          <Group gap="xs">
            <span>{t('trace.verdict')}</span>
            <Badge variant="outline" color={MAIL_VERDICT_COLOR[m.verdict]} className="quarantine-badge">
              {t(MAIL_VERDICT_LABEL[m.verdict])}
            </Badge>
          </Group>
        }
        // The title in the text colour: the tint's own shade is below 4.5:1 on the light background.
        classNames={{ title: 'alert-title-text' }}
        data-testid="trace-explanation"
      >
        {trace.explanation}
      </Alert>

      <Card withBorder padding="md">
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm">
          <Field label={t('trace.summary.subject')}>{m.subject || '—'}</Field>
          <Field label={t('trace.summary.from')}>
            {m.sender_name ? `${m.sender_name} <${m.sender}>` : m.sender}
          </Field>
          <Field label={t('trace.summary.to')}>{m.recipient}</Field>
          <Field label={t('trace.summary.received')}>{formatDateTime(m.received_at, i18n.language)}</Field>
          {m.action && <Field label={t('trace.summary.action')}>{t(MAIL_ACTION_LABEL[m.action])}</Field>}
          <Field label={t('trace.summary.delivery')}>{t(DELIVERY_LABEL[m.delivery])}</Field>
          <Field label={t('trace.summary.size')}>{formatBytes(m.size, i18n.language)}</Field>
          {m.message_id && <Field label={t('trace.summary.messageId')}>{m.message_id}</Field>}
        </SimpleGrid>
      </Card>

      {trace.auth ? (
        <section aria-labelledby="trace-auth">
          <Title order={2} size="h4" id="trace-auth" mb="xs">
            {t('trace.authentication')}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
            {(['spf', 'dkim', 'dmarc'] as const).map((check) => {
              const { label, color } = authResultOf(trace.auth![check].result);
              return (
                <Card key={check} withBorder padding="sm">
                  <Group gap="xs">
                    <Text fw={600} size="sm">
                      {check.toUpperCase()}
                    </Text>
                    <Badge variant="light" color={color} className="quarantine-badge">
                      {label ? t(label) : trace.auth![check].result}
                    </Badge>
                  </Group>
                  {trace.auth![check].reason && (
                    <Text size="xs" c="dimmed" mt={4} style={{ overflowWrap: 'anywhere' }}>
                      {trace.auth![check].reason}
                    </Text>
                  )}
                </Card>
              );
            })}
          </SimpleGrid>
        </section>
      ) : (
        !m.mail_log_id && <Text size="sm">{t('trace.heldOnly')}</Text>
      )}

      {trace.phishing && <PhishingEvidenceSection phishing={trace.phishing} />}

      {m.inbound_id && <LinkClicksSection inboundId={m.inbound_id} recipient={m.recipient} />}

      {m.mail_log_id && m.delivery === 'sent' && <RetractMessageCard mailLogId={m.mail_log_id} />}

      {trace.spam && (
        <SpamScoreSection
          spam={trace.spam}
          by={m.mail_log_id ? { mailLogId: m.mail_log_id } : { heldId: m.quarantine_message_id ?? '' }}
        />
      )}

      <section aria-labelledby="trace-timeline">
        <Title order={2} size="h4" id="trace-timeline" mb="sm">
          {t('trace.timeline')}
        </Title>
        <Timeline bulletSize={14} lineWidth={2} active={trace.timeline.length}>
          {trace.timeline.map((entry, index) => (
            <Timeline.Item
              // The timeline is rebuilt whole on every answer: its order is its identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: entries have no id of their own
              key={index}
              color={OUTCOME_COLOR[entry.outcome]}
              title={
                <Group gap="xs" wrap="wrap">
                  <Badge
                    size="xs"
                    variant="light"
                    color={OUTCOME_COLOR[entry.outcome]}
                    className="quarantine-badge"
                  >
                    {t(KIND_LABEL[entry.kind])}
                  </Badge>
                  <Text size="sm" fw={600} component="span" style={{ overflowWrap: 'anywhere' }}>
                    {entry.title}
                  </Text>
                </Group>
              }
              data-kind={entry.kind}
            >
              {entry.detail && (
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {entry.detail}
                </Text>
              )}
              <Text size="xs" c="dimmed">
                {entry.at ? formatDateTime(entry.at, i18n.language) : t('trace.notRecorded')}
                {' · '}
                {t(`trace.outcome.${entry.outcome}`)}
              </Text>
            </Timeline.Item>
          ))}
        </Timeline>
      </section>
    </Stack>
  );
}

/**
 * The message trace (/mail-explorer/message/:id, /mail-explorer/message?held=id): one message's
 * timeline from its SMTP session to its delivery or release, with the verdict in plain words.
 */
export function MessageTraceScreen() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const mailLogId = mailLogIdOf(pathname);
  const heldId = mailLogId ? null : params.get('held') || null;
  const byRow = useMessageTrace(mailLogId);
  const byHeld = useHeldMessageTrace(heldId);
  const query = mailLogId ? byRow : byHeld;

  let body: React.ReactNode;
  if (!mailLogId && !heldId) {
    body = <Text>{t('trace.noId')}</Text>;
  } else if (query.isPending) {
    body = (
      <Center py="xl" role="status">
        <Loader aria-label={t('trace.loading')} />
      </Center>
    );
  } else if (query.isError) {
    const status = isApiError(query.error) ? query.error.status : 0;
    body =
      status === 404 || status === 400 ? (
        <Alert color="gray" title={t('trace.notFound')}>
          {t('trace.notFoundDescription')}
        </Alert>
      ) : (
        <Alert color="red" title={t('trace.error')}>
          <Button size="xs" variant="light" onClick={() => void query.refetch()}>
            {t('trace.retry')}
          </Button>
        </Alert>
      );
  } else {
    body = <TraceView trace={query.data} />;
  }

  return <Stack gap="md">{body}</Stack>;
}
