import { Code, Stack, Table, Text } from '@mantine/core';
import { AUDIT_ACTOR_TYPES, AUDIT_API, AUDIT_SORTS, type AuditEntry } from '@moat/contracts/audit';
import { useQuery } from '@tanstack/react-query';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { DateCell } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { SortableTh } from '../../../components/list/SortableTh';
import { useListState } from '../../../components/list/use-list-state';
import { useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { useAuditLog } from '../api/get-audit-log';

/** What changed, as `key: value` pairs on one line each (the recorded details). */
function detailsText(details: AuditEntry['details']): string {
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('\n');
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
    filters: { actor: 'text', actor_type: AUDIT_ACTOR_TYPES, action: 'text', target: 'text' },
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
          {
            name: 'action',
            label: t('systemLogs.columns.action'),
            placeholder: t('systemLogs.actionPlaceholder'),
            value: state.filters.action,
            onChange: (value) => state.setFilter('action', value),
          },
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
        minWidth={1100}
        head={
          <>
            <SortableTh
              column="created_at"
              label={t('systemLogs.columns.when')}
              firstDir="desc"
              {...sortable}
            />
            <SortableTh column="actor" label={t('systemLogs.columns.actor')} {...sortable} />
            <SortableTh column="action" label={t('systemLogs.columns.action')} {...sortable} />
            <Table.Th>{t('systemLogs.columns.target')}</Table.Th>
            <Table.Th>{t('systemLogs.columns.details')}</Table.Th>
            <Table.Th>{t('systemLogs.columns.ip')}</Table.Th>
          </>
        }
      >
        {(list.data?.items ?? []).map((entry) => (
          <Table.Tr key={entry.id}>
            <DateCell iso={entry.created_at} />
            <Table.Td>
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {entry.actor}
              </Text>
              {entry.actor_type !== 'user' && (
                <Text size="xs" c="dimmed">
                  {t(`systemLogs.actorTypes.${entry.actor_type}`)}
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              <Code>{entry.action}</Code>
            </Table.Td>
            <Table.Td className="quarantine-table__message">
              {entry.target_type || entry.target_id ? (
                <>
                  <Text size="xs" c="dimmed">
                    {entry.target_type}
                  </Text>
                  <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                    {entry.target_id}
                  </Text>
                </>
              ) : (
                <Text size="sm" c="dimmed">
                  —
                </Text>
              )}
            </Table.Td>
            <Table.Td className="quarantine-table__message">
              <Text
                size="xs"
                ff="monospace"
                style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
                lineClamp={4}
              >
                {detailsText(entry.details) || '—'}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm" ff="monospace">
                {entry.ip ?? '—'}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </ListTable>
    </Stack>
  );
}
