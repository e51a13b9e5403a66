import {
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  List,
  Loader,
  Stack,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { ROUTES, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { eventTracePath, type SecurityEventDetail } from '@moat/contracts/security-events';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { Field } from '../../../components/ui/Field';
import { FitTable } from '../../../components/ui/FitTable';
import { engineText } from '../../../lib/engine-words';
import { formatDateTime } from '../../../lib/format';
import { ApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useCanOpen } from '../../session/use-can-open';
import { useSecurityEvent } from '../api/get-security-event';
import { DECISION_ACTION_LABEL, EVENT_TYPE_LABEL, labelOf, POLICY_SOURCE_LABEL } from '../labels';
import { SeverityBadge, VerdictBadge } from './Badges';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby={id}>
      <Title order={3} size="h5" id={id} mb="xs">
        {title}
      </Title>
      {children}
    </Card>
  );
}

function DetailBody({ detail }: { detail: SecurityEventDetail }) {
  const { t, i18n } = useTranslation();
  const { event } = detail;
  const trace = eventTracePath(detail.mail_log_id, event.quarantine_message_id);
  const canOpen = useCanOpen();
  // The trace and Quarantined Items are admin pages: not offered to anyone else.
  const traceLink = trace && canOpen(trace) ? trace : null;
  const held = event.quarantine_message_id && canOpen(USER_INTERACTION_ROUTES.quarantineItems);
  const when = (iso: string) => formatDateTime(iso, i18n.language);
  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        {event.subject || event.description || t('events.noSubject')}
      </Title>

      <Section id="event-summary" title={t('events.detail.summary')}>
        <dl className="preview-fields">
          <Field label={t('events.columns.type')}>{labelOf(EVENT_TYPE_LABEL, event.type, t)}</Field>
          <Field label={t('events.detail.when')}>{when(event.created_at)}</Field>
          <Field label={t('events.columns.verdict')}>
            <VerdictBadge verdict={event.verdict} />
          </Field>
          <Field label={t('events.columns.severity')}>
            <SeverityBadge severity={event.severity} />
          </Field>
          <Field label={t('events.detail.engine')}>{engineText(event.engine, t, i18n.language)}</Field>
          <Field label={t('events.detail.recipient')}>{event.recipient || '—'}</Field>
          <Field label={t('events.detail.sender')}>{event.sender || '—'}</Field>
          <Field label={t('events.detail.description')}>{event.description}</Field>
        </dl>
      </Section>

      <Section id="event-findings" title={t('events.detail.findings')}>
        {detail.findings.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('events.detail.noFindings')}
          </Text>
        ) : (
          <FitTable
            caption={t('events.detail.findingsCaption')}
            rows={detail.findings}
            rowKey={(_finding, index) => String(index)}
            columns={[
              {
                key: 'engine',
                label: t('events.detail.finding.engine'),
                cell: (finding) => engineText(finding.engine, t, i18n.language),
                width: '10rem',
              },
              {
                key: 'verdict',
                label: t('events.detail.finding.verdict'),
                cell: (finding) => <VerdictBadge verdict={finding.verdict} />,
                width: '9rem',
              },
              {
                key: 'reason',
                label: t('events.detail.finding.reason'),
                cell: (finding) => <span className="list-text-anywhere">{finding.reason}</span>,
              },
            ]}
          />
        )}
      </Section>

      <Section id="event-decision" title={t('events.detail.decision')}>
        {detail.decision ? (
          <dl className="preview-fields">
            <Field label={t('events.detail.decisionVerdict')}>
              <VerdictBadge verdict={detail.decision.verdict} />
            </Field>
            <Field label={t('events.detail.decisionAction')}>
              {labelOf(DECISION_ACTION_LABEL, detail.decision.action, t)}
            </Field>
            <Field label={t('events.detail.decisionSource')}>
              {labelOf(POLICY_SOURCE_LABEL, detail.decision.source, t)}
            </Field>
          </dl>
        ) : (
          <Text size="sm" c="dimmed">
            {t('events.detail.noDecision')}
          </Text>
        )}
      </Section>

      <Section id="event-history" title={t('events.detail.history')}>
        {detail.history.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('events.detail.noHistory')}
          </Text>
        ) : (
          <List size="sm" spacing="xs" component="ol" aria-labelledby="event-history">
            {detail.history.map((entry, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the story is fixed for one answer
              <List.Item key={index}>
                <Text size="sm" span fw={600}>
                  {when(entry.at)}
                </Text>{' '}
                <Text size="sm" span>
                  {t(`events.detail.historyKind.${entry.kind}`)}
                  {entry.kind === 'event' ? ` (${labelOf(EVENT_TYPE_LABEL, entry.status, t)})` : ''}:{' '}
                  {entry.event_id && entry.event_id !== event.id ? (
                    <Anchor component={Link} to={`${ROUTES.securityEvents}/${entry.event_id}`} size="sm">
                      {entry.description}
                    </Anchor>
                  ) : (
                    entry.description
                  )}
                  {entry.event_id === event.id ? ` ${t('events.detail.thisEvent')}` : ''}
                </Text>
              </List.Item>
            ))}
          </List>
        )}
      </Section>

      <Section id="event-links" title={t('events.detail.links')}>
        {traceLink || held ? (
          <Group gap="md">
            {traceLink && (
              <Anchor component={Link} to={traceLink} size="sm">
                {t('events.detail.trace')}
              </Anchor>
            )}
            {held && (
              <Anchor component={Link} to={USER_INTERACTION_ROUTES.quarantineItems} size="sm">
                {t('events.detail.quarantine')}
              </Anchor>
            )}
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            {t(trace || event.quarantine_message_id ? 'events.detail.adminLinks' : 'events.detail.noLinks')}
          </Text>
        )}
      </Section>
    </Stack>
  );
}

/** One event's page (/security-events/<id>): evidence, policy decision, the message's story and links. */
export function EventDetail({ id }: { id: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  const back = (location.state as { back?: string } | null)?.back ?? '';
  const detail = useSecurityEvent(id);
  return (
    <Stack gap="md">
      <Anchor component={Link} to={`${ROUTES.securityEvents}${back}`} size="sm">
        ← {t('events.detail.back')}
      </Anchor>
      {detail.isPending && (
        <Group role="status" gap="xs">
          <Loader size="sm" />
          <VisuallyHidden>{t('events.detail.loading')}</VisuallyHidden>
        </Group>
      )}
      {detail.isError && (
        <Alert color="red" variant="light" title={t('events.detail.error')}>
          {detail.error instanceof ApiError && detail.error.status === 404 ? (
            <Text size="sm">{t('events.detail.notFound')}</Text>
          ) : (
            <Button variant="light" color="red" size="xs" mt="xs" onClick={() => void detail.refetch()}>
              {t('events.detail.retry')}
            </Button>
          )}
        </Alert>
      )}
      {detail.isSuccess && <DetailBody detail={detail.data} />}
    </Stack>
  );
}
