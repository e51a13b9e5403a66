import { Stack, Text } from '@mantine/core';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_API,
  AUDIT_SORTS,
  type AuditAction,
  type AuditEntry,
  type AuditTargetType,
} from '@moat/contracts/audit';
import { useQuery } from '@tanstack/react-query';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { AddressText, DateText } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListState } from '../../../components/list/use-list-state';
import { type TFunction, useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { useAuditLog } from '../api/get-audit-log';
import {
  AUDIT_ACTION_LABEL,
  AUDIT_DETAIL_LABEL,
  AUDIT_TARGET_LABEL,
  detailInWords,
  humanName,
} from '../labels';

/** The actions of the filter, in the order of their words. */
const ACTIONS_BY_WORDS = (t: TFunction) =>
  [...AUDIT_ACTIONS].sort((a, b) => auditActionText(a, t).localeCompare(auditActionText(b, t)));

/** An action in words; one this console does not know (an older or newer server) by its name. */
export function auditActionText(action: string, t: TFunction): string {
  return Object.hasOwn(AUDIT_ACTION_LABEL, action)
    ? t(AUDIT_ACTION_LABEL[action as AuditAction])
    : humanName(action);
}

/** Who acted: their address, or the kind of actor in words (Moat, an operator's command). */
function ActorCell({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation();
  const kind = t(`systemLogs.actorTypes.${entry.actor_type}`);
  // Without an address the actor is only its kind ("user", "system", "cli"): said in words.
  const address =
    entry.actor && entry.actor !== entry.actor_type && entry.actor.includes('@') ? entry.actor : null;
  return (
    <>
      {address ? <AddressText address={address} /> : <Text size="sm">{kind}</Text>}
      {address && entry.actor_type !== 'user' && (
        <Text size="xs" c="dimmed">
          {kind}
        </Text>
      )}
    </>
  );
}

/** What was acted on, in words; the record's own id stays in the CSV export. */
function TargetCell({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation();
  if (!entry.target_type) {
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  }
  const type = entry.target_type;
  // A record's own id (a UUID, a number) means nothing to a reader; an address or a domain does.
  const readable =
    entry.target_id && !/^[0-9a-f-]{8,}$|^[0-9]+$/i.test(entry.target_id) ? entry.target_id : null;
  return (
    <>
      <Text size="sm" title={readable ? undefined : (entry.target_id ?? undefined)}>
        {Object.hasOwn(AUDIT_TARGET_LABEL, type)
          ? t(AUDIT_TARGET_LABEL[type as AuditTargetType])
          : humanName(type)}
      </Text>
      {readable && <AddressText address={readable} size="xs" />}
    </>
  );
}

/** What changed, one "name: value" line each, in words. */
function DetailsCell({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation();
  const lines = Object.entries(entry.details);
  if (lines.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  }
  return (
    <dl className="audit-details">
      {lines.map(([name, value]) => (
        <div key={name} className="audit-details__line">
          <dt>{Object.hasOwn(AUDIT_DETAIL_LABEL, name) ? t(AUDIT_DETAIL_LABEL[name]!) : humanName(name)}</dt>
          <dd>{detailInWords(name, value, t)}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * System Settings → System Logs: the tenant's audit log — who did what to what, when and from
 * where — with actor, action, target and date filters, paging and CSV export. Read-only.
 */
export function SystemLogsScreen() {
  const { t } = useTranslation();
  const state = useListState({
    sorts: AUDIT_SORTS,
    defaultSort: 'created_at',
    filters: { actor: 'text', actor_type: AUDIT_ACTOR_TYPES, action: AUDIT_ACTIONS, target: 'text' },
  });
  const list = useAuditLog(state.query);
  const role = useQuery(currentUserQueryOptions()).data?.role;
  const { sortable } = state;

  return (
    <Stack gap="md">
      <Text size="sm">{t(role === 'admin' ? 'systemLogs.intro' : 'systemLogs.introOwn')}</Text>
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        searchPlaceholder={t('systemLogs.searchPlaceholder')}
        range={state.rangeControl}
        filters={[
          {
            name: 'actor',
            label: t('systemLogs.columns.actor'),
            placeholder: t('systemLogs.actorPlaceholder'),
            value: state.filters.actor,
            onChange: (value) => state.setFilter('actor', value),
          },
          enumFilter({
            name: 'actor_type',
            label: t('systemLogs.actorType'),
            allLabel: t('systemLogs.allActorTypes'),
            values: AUDIT_ACTOR_TYPES,
            labelOf: (value) => t(`systemLogs.actorTypes.${value}`),
            value: state.filters.actor_type,
            onChange: (value) => state.setFilter('actor_type', value),
          }),
          enumFilter({
            name: 'action',
            label: t('systemLogs.columns.action'),
            allLabel: t('systemLogs.allActions'),
            values: ACTIONS_BY_WORDS(t),
            labelOf: (value) => auditActionText(value, t),
            value: state.filters.action,
            onChange: (value) => state.setFilter('action', value),
          }),
          {
            name: 'target',
            label: t('systemLogs.columns.target'),
            placeholder: t('systemLogs.targetPlaceholder'),
            value: state.filters.target,
            onChange: (value) => state.setFilter('target', value),
          },
        ]}
        actions={
          <ExportCsvButton path={AUDIT_API.export} query={state.exportQuery} total={list.data?.total} />
        }
      />
      <ListTable
        list={list}
        {...state.paging}
        caption={t('systemLogs.caption')}
        emptyTitle={t('systemLogs.emptyTitle')}
        emptyDescription={t('systemLogs.emptyDescription')}
        minWidth={840}
        sortable={sortable}
        rowKey={(entry) => entry.id}
        columns={[
          {
            key: 'when',
            label: t('systemLogs.columns.when'),
            sort: 'created_at',
            firstDir: 'desc',
            width: '6.5rem',
            cell: (entry) => <DateText iso={entry.created_at} />,
          },
          {
            key: 'actor',
            label: t('systemLogs.columns.actor'),
            sort: 'actor',
            width: '11rem',
            cell: (entry) => <ActorCell entry={entry} />,
          },
          {
            key: 'action',
            label: t('systemLogs.columns.action'),
            sort: 'action',
            width: '12rem',
            card: 'title',
            cell: (entry) => (
              <Text size="sm" fw={600}>
                {auditActionText(entry.action, t)}
              </Text>
            ),
          },
          {
            key: 'target',
            label: t('systemLogs.columns.target'),
            width: '10rem',
            cell: (entry) => <TargetCell entry={entry} />,
          },
          {
            key: 'details',
            label: t('systemLogs.columns.details'),
            cell: (entry) => <DetailsCell entry={entry} />,
          },
          {
            key: 'ip',
            label: t('systemLogs.columns.ip'),
            width: '7.5rem',
            cell: (entry) => (
              <Text size="sm" ff="monospace" className="list-text-anywhere">
                {entry.ip ?? '—'}
              </Text>
            ),
          },
        ]}
      />
    </Stack>
  );
}
