import { Anchor, Badge, Stack, Table, Text } from '@mantine/core';
import { ATTACHMENT_SORTS, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { ATTACHMENT_STATES } from '@moat/contracts/quarantine-admin';
import { heldMessageTracePath } from '@moat/contracts/routes';
import { Link } from 'react-router';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { DateCell, MessageCell, subjectOf } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { SortableTh } from '../../../components/list/SortableTh';
import { useListState } from '../../../components/list/use-list-state';
import { formatBytes } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';
import { useModifiedAttachments } from '../api/get-modified-attachments';

const RESTORE_COLOR = {
  quarantined: 'gray',
  requested: 'orange',
  approved: 'blue',
  declined: 'red',
  restored: 'green',
} as const;

/**
 * Modified Attachments (/user-interaction/modified-attachments): every attachment removed from a
 * delivered message, with its message, recipient, verdict and whether it was restored.
 */
export function ModifiedAttachmentsScreen() {
  const { t, i18n } = useTranslation();
  const state = useListState({
    sorts: ATTACHMENT_SORTS,
    defaultSort: 'received_at',
    filters: { state: ATTACHMENT_STATES },
  });
  const list = useModifiedAttachments(state.query);
  const { sortable } = state;
  return (
    <Stack gap="md">
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        range={state.rangeControl}
        filters={[
          enumFilter({
            name: 'state',
            label: t('userInteraction.attachments.columns.state'),
            allLabel: t('userInteraction.attachments.allStates'),
            values: ATTACHMENT_STATES,
            labelOf: (value) => t(`userInteraction.attachments.state.${value}`),
            value: state.filters.state,
            onChange: (value) => state.setFilter('state', value),
          }),
        ]}
        actions={
          <ExportCsvButton
            path={USER_INTERACTION_API.modifiedAttachmentsExport}
            query={state.exportQuery}
            total={list.data?.total}
          />
        }
      />
      <ListTable
        list={list}
        {...state.paging}
        caption={t('userInteraction.attachments.caption')}
        emptyTitle={t('userInteraction.attachments.emptyTitle')}
        emptyDescription={t('userInteraction.attachments.emptyDescription')}
        minWidth={960}
        head={
          <>
            <SortableTh
              column="received_at"
              label={t('userInteraction.attachments.columns.received')}
              firstDir="desc"
              {...sortable}
            />
            <SortableTh
              column="filename"
              label={t('userInteraction.attachments.columns.attachment')}
              {...sortable}
            />
            <SortableTh
              column="recipient"
              label={t('userInteraction.attachments.columns.recipient')}
              {...sortable}
            />
            <Table.Th>{t('userInteraction.attachments.columns.message')}</Table.Th>
            <Table.Th>{t('userInteraction.attachments.columns.verdict')}</Table.Th>
            <Table.Th>{t('userInteraction.attachments.columns.state')}</Table.Th>
            <Table.Th>{t('userInteraction.attachments.columns.restore')}</Table.Th>
          </>
        }
      >
        {(list.data?.items ?? []).map((a) => (
          <Table.Tr key={a.id}>
            <DateCell iso={a.received_at} />
            <Table.Td>
              <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                {a.filename}
              </Text>
              <Text size="xs" c="dimmed">
                {a.content_type} · {formatBytes(a.size, i18n.language)}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{a.recipient}</Text>
            </Table.Td>
            <Table.Td className="quarantine-table__message">
              <MessageCell subject={subjectOf(t, a.subject)} sender={a.sender} />
            </Table.Td>
            <Table.Td>
              <Text size="sm">{t(`mailExplorer.verdict.${a.verdict}`)}</Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{t(`userInteraction.attachments.state.${a.state}`)}</Text>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={RESTORE_COLOR[a.restore_status]} className="quarantine-badge">
                {t(`userInteraction.attachments.restore.${a.restore_status}`)}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Anchor
                component={Link}
                to={heldMessageTracePath(a.message_id)}
                size="sm"
                aria-label={t('trace.traceActionOf', { subject: subjectOf(t, a.subject) })}
              >
                {t('trace.traceAction')}
              </Anchor>
            </Table.Td>
          </Table.Tr>
        ))}
      </ListTable>
    </Stack>
  );
}
