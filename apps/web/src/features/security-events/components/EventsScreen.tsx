import { Button, Stack, Text } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import {
  EVENT_SEVERITIES,
  EVENT_SORTS,
  EVENT_TYPES,
  EVENT_VERDICTS,
  SECURITY_EVENTS_API,
  type SecurityEvent,
} from '@moat/contracts/security-events';
import { Link, useLocation } from 'react-router';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { AddressText, DateText } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListState } from '../../../components/list/use-list-state';
import { type TFunction, useTranslation } from '../../../lib/i18n';
import { useSecurityEvents } from '../api/get-security-events';
import { EVENT_SEVERITY_LABEL, EVENT_TYPE_LABEL, EVENT_VERDICT_LABEL, labelOf } from '../labels';
import { SeverityBadge, VerdictBadge } from './Badges';
import { EventDetail } from './EventDetail';

/** `/security-events/<id>`: the id of the event a page shows, if it is one event's page. */
function eventIdOf(pathname: string): string | null {
  const rest = pathname.replace(/\/+$/, '').slice(ROUTES.securityEvents.length);
  const match = /^\/([0-9a-f-]{36})$/i.exec(rest);
  return match ? match[1]! : null;
}

const subjectOfEvent = (event: SecurityEvent, t: TFunction) =>
  event.subject || event.description || t('events.noSubject');

/** The subject (or, without one, the description), and the description under a subject. */
function SubjectCell({ event, clamp }: { event: SecurityEvent; clamp: boolean }) {
  const { t } = useTranslation();
  return (
    <>
      <Text size="sm" fw={600} lineClamp={clamp ? 2 : undefined} className="list-text-anywhere">
        {subjectOfEvent(event, t)}
      </Text>
      {event.subject && (
        <Text size="xs" c="dimmed" lineClamp={clamp ? 2 : 3} className="list-text-anywhere">
          {event.description}
        </Text>
      )}
    </>
  );
}

/** The list of events (/security-events): filters, sort, time range and CSV export, all in the address. */
function EventsList() {
  const { t } = useTranslation();
  const location = useLocation();
  const state = useListState({
    sorts: EVENT_SORTS,
    defaultSort: 'created_at',
    filters: {
      type: EVENT_TYPES,
      verdict: EVENT_VERDICTS,
      severity: EVENT_SEVERITIES,
      engine: 'text',
      recipient: 'text',
      sender: 'text',
    },
  });
  const { type, verdict, severity } = state.filters;
  const list = useSecurityEvents(state.query);
  const { sortable } = state;

  return (
    <Stack gap="md">
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        range={state.rangeControl}
        filters={[
          enumFilter({
            name: 'type',
            label: t('events.columns.type'),
            allLabel: t('events.allTypes'),
            values: EVENT_TYPES,
            labelOf: (value) => t(EVENT_TYPE_LABEL[value]),
            value: type,
            onChange: (value) => state.setFilter('type', value),
          }),
          enumFilter({
            name: 'verdict',
            label: t('events.columns.verdict'),
            allLabel: t('events.allVerdicts'),
            values: EVENT_VERDICTS,
            labelOf: (value) => t(EVENT_VERDICT_LABEL[value]),
            value: verdict,
            onChange: (value) => state.setFilter('verdict', value),
          }),
          enumFilter({
            name: 'severity',
            label: t('events.columns.severity'),
            allLabel: t('events.allSeverities'),
            values: EVENT_SEVERITIES,
            labelOf: (value) => t(EVENT_SEVERITY_LABEL[value]),
            value: severity,
            onChange: (value) => state.setFilter('severity', value),
          }),
          {
            name: 'recipient',
            label: t('events.recipientFilter'),
            placeholder: t('events.recipientPlaceholder'),
            value: state.filters.recipient,
            onChange: (value) => state.setFilter('recipient', value),
          },
          {
            name: 'sender',
            label: t('events.senderFilter'),
            placeholder: t('events.senderPlaceholder'),
            value: state.filters.sender,
            onChange: (value) => state.setFilter('sender', value),
          },
        ]}
        actions={
          <ExportCsvButton
            path={SECURITY_EVENTS_API.export}
            query={state.exportQuery}
            total={list.data?.total}
          />
        }
      />

      <ListTable
        list={list}
        {...state.paging}
        caption={t('events.caption')}
        emptyTitle={t('events.emptyTitle')}
        emptyDescription={t('events.emptyDescription')}
        minWidth={840}
        sortable={sortable}
        rowKey={(event) => event.id}
        columns={[
          {
            key: 'time',
            label: t('events.columns.time'),
            sort: 'created_at',
            firstDir: 'desc',
            width: '6.5rem',
            cell: (event) => <DateText iso={event.created_at} />,
          },
          {
            key: 'type',
            label: t('events.columns.type'),
            sort: 'type',
            width: '8rem',
            cell: (event) => <Text size="sm">{labelOf(EVENT_TYPE_LABEL, event.type, t)}</Text>,
          },
          {
            key: 'severity',
            label: t('events.columns.severity'),
            sort: 'severity',
            firstDir: 'desc',
            width: '6rem',
            card: 'badge',
            cell: (event) => <SeverityBadge severity={event.severity} />,
          },
          {
            key: 'verdict',
            label: t('events.columns.verdict'),
            sort: 'verdict',
            width: '7rem',
            card: 'badge',
            cell: (event) => <VerdictBadge verdict={event.verdict} />,
          },
          {
            key: 'recipient',
            label: t('events.columns.recipient'),
            sort: 'recipient',
            width: '10rem',
            cell: (event) => <AddressText address={event.recipient} />,
          },
          {
            key: 'sender',
            label: t('events.columns.sender'),
            sort: 'sender',
            width: '10rem',
            cell: (event) => <AddressText address={event.sender} />,
          },
          {
            key: 'subject',
            label: t('events.columns.subject'),
            card: 'title',
            cell: (event) => <SubjectCell event={event} clamp />,
            cardCell: (event) => <SubjectCell event={event} clamp={false} />,
          },
        ]}
        actionsWidth="5.5rem"
        rowActions={(event) => (
          <Button
            component={Link}
            to={`${ROUTES.securityEvents}/${event.id}`}
            state={{ back: location.search }}
            size="xs"
            variant="light"
            aria-label={t('events.openOf', { subject: subjectOfEvent(event, t) })}
          >
            {t('events.open')}
          </Button>
        )}
      />
    </Stack>
  );
}

/**
 * Events (/security-events, SPEC §2.4): the list, or one event's page (/security-events/<id>,
 * linkable) with its evidence, policy decision and the message's story.
 */
export function EventsScreen() {
  const { pathname } = useLocation();
  const id = eventIdOf(pathname);
  return id ? <EventDetail id={id} /> : <EventsList />;
}
