import { Anchor, Badge, Stack, Text } from '@mantine/core';
import { ATTACHMENT_SORTS, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { ATTACHMENT_STATES } from '@moat/contracts/quarantine-admin';
import { heldMessageTracePath } from '@moat/contracts/routes';
import { Link } from 'react-router';
import { ExportCsvButton } from '../../../components/list/ExportCsvButton';
import { AddressText, DateText, MessageCell, subjectOf } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListState } from '../../../components/list/use-list-state';
import { Breakable } from '../../../components/ui/Breakable';
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
        minWidth={840}
        sortable={sortable}
        rowKey={(a) => a.id}
        columns={[
          {
            key: 'received',
            label: t('userInteraction.attachments.columns.received'),
            sort: 'received_at',
            firstDir: 'desc',
            width: '6.5rem',
            cell: (a) => <DateText iso={a.received_at} />,
          },
          {
            key: 'attachment',
            label: t('userInteraction.attachments.columns.attachment'),
            sort: 'filename',
            width: '12rem',
            card: 'title',
            cell: (a) => (
              <>
                <Text size="sm" fw={600}>
                  <Breakable text={a.filename} />
                </Text>
                <Text size="xs" c="dimmed">
                  <Breakable text={a.content_type} /> · {formatBytes(a.size, i18n.language)}
                </Text>
              </>
            ),
          },
          {
            key: 'recipient',
            label: t('userInteraction.attachments.columns.recipient'),
            sort: 'recipient',
            width: '10rem',
            cell: (a) => <AddressText address={a.recipient} />,
          },
          {
            key: 'message',
            label: t('userInteraction.attachments.columns.message'),
            cell: (a) => <MessageCell subject={subjectOf(t, a.subject)} sender={a.sender} />,
          },
          {
            key: 'verdict',
            label: t('userInteraction.attachments.columns.verdict'),
            width: '6.5rem',
            card: 'badge',
            cell: (a) => <Text size="sm">{t(`mailExplorer.verdict.${a.verdict}`)}</Text>,
          },
          {
            key: 'state',
            label: t('userInteraction.attachments.columns.state'),
            width: '7rem',
            cell: (a) => <Text size="sm">{t(`userInteraction.attachments.state.${a.state}`)}</Text>,
          },
          {
            key: 'restore',
            label: t('userInteraction.attachments.columns.restore'),
            width: '7.5rem',
            card: 'badge',
            cell: (a) => (
              <Badge variant="light" color={RESTORE_COLOR[a.restore_status]} className="quarantine-badge">
                {t(`userInteraction.attachments.restore.${a.restore_status}`)}
              </Badge>
            ),
          },
        ]}
        actionsWidth="5.5rem"
        rowActions={(a) => (
          <Anchor
            component={Link}
            to={heldMessageTracePath(a.message_id)}
            size="sm"
            aria-label={t('trace.traceActionOf', { subject: subjectOf(t, a.subject) })}
          >
            {t('trace.traceAction')}
          </Anchor>
        )}
      />
    </Stack>
  );
}
