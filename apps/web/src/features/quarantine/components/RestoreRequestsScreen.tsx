import { Button, Checkbox, Group, Paper, Stack, Text } from '@mantine/core';
import { RESTORE_STATUSES, type RestoreStatus } from '@moat/contracts/quarantine';
import type { RestoreRequestItem } from '@moat/contracts/quarantine-admin';
import { useState } from 'react';
import {
  AddressText,
  DateText,
  MessageCell,
  PreviewDrawer,
  RowActions,
  subjectOf,
} from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListControls } from '../../../components/list/use-list-controls';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { useTranslation } from '../../../lib/i18n';
import { useRestoreRequests } from '../api/get-restore-requests';
import { RESTORE_STATUS_LABEL } from '../labels';
import { type PendingDecision, useRequestDecisions } from '../use-request-decisions';
import { StatusBadge, VerdictBadge } from './Badges';
import { DECLINE_COLOR, DeclineDialog } from './DeclineDialog';
import { MessagePreview } from './MessagePreview';

const STATUS_FILTERS = RESTORE_STATUSES.filter((status) => status !== 'quarantined');

/** A request the admin can still decide: approve releases it, decline tells the recipient. */
const isOpen = (request: RestoreRequestItem) => request.status === 'requested';

/**
 * Restore Requests (SPEC §2.4 User Interaction): the recipients' requests with search and a status
 * filter, row selection for bulk approve / decline (decline asks for a reason), and a preview of
 * the held message with the request.
 */
export function RestoreRequestsScreen() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<RestoreStatus | ''>('');
  const controls = useListControls({ status: status || undefined });
  const [selection, setSelection] = useState<{ key: string; ids: string[] }>({ key: '', ids: [] });
  const [previewed, setPreviewed] = useState<RestoreRequestItem | null>(null);
  const [decision, setDecision] = useState<PendingDecision | null>(null);
  const decisions = useRequestDecisions();

  const list = useRestoreRequests({ ...controls.query, status: status || undefined });
  const items = list.data?.items ?? [];
  const openIds = items.filter(isOpen).map((request) => request.id);
  // A new search or filter starts with nothing selected.
  const selected = selection.key === controls.key ? selection.ids : [];
  const setSelected = (ids: string[]) => setSelection({ key: controls.key, ids });
  const selectedOpen = selected.filter((id) => openIds.includes(id));
  const preview = previewed ? (items.find((item) => item.id === previewed.id) ?? previewed) : null;

  const toggle = (id: string, checked: boolean) =>
    setSelected(checked ? [...selected, id] : selected.filter((other) => other !== id));
  const allChecked = openIds.length > 0 && openIds.every((id) => selected.includes(id));
  const someChecked = !allChecked && openIds.some((id) => selected.includes(id));

  const finish = () => {
    setSelected(selected.filter((id) => !decision?.ids.includes(id)));
    setDecision(null);
  };

  return (
    <Stack gap="md">
      <ListToolbar
        search={controls.search}
        onSearchChange={controls.setSearch}
        filters={[
          enumFilter({
            name: 'status',
            label: t('quarantine.list.status'),
            allLabel: t('quarantine.list.allStatuses'),
            values: STATUS_FILTERS,
            labelOf: (value) => t(RESTORE_STATUS_LABEL[value]),
            value: status,
            onChange: setStatus,
          }),
        ]}
      />

      {selectedOpen.length > 0 && (
        <Paper withBorder p="sm" className="bulk-bar">
          <Group gap="sm" justify="space-between" wrap="wrap">
            <Text size="sm" role="status">
              {t('quarantine.list.selected', { count: selectedOpen.length })}
            </Text>
            <Group gap="xs" wrap="wrap">
              <Button size="xs" onClick={() => setDecision({ action: 'approve', ids: selectedOpen })}>
                {t('quarantine.actions.approveSelected')}
              </Button>
              <Button
                size="xs"
                color={DECLINE_COLOR}
                onClick={() => setDecision({ action: 'decline', ids: selectedOpen })}
              >
                {t('quarantine.actions.declineSelected')}
              </Button>
              <Button size="xs" variant="default" onClick={() => setSelected([])}>
                {t('quarantine.actions.clearSelection')}
              </Button>
            </Group>
          </Group>
        </Paper>
      )}

      <ListTable
        list={list}
        page={controls.page}
        onPage={controls.setPage}
        filtered={controls.filtered}
        caption={t('quarantine.requests.caption')}
        emptyTitle={t('quarantine.requests.emptyTitle')}
        emptyDescription={t('quarantine.requests.emptyDescription')}
        minWidth={880}
        rowKey={(request) => request.id}
        rowProps={(request) => ({ selected: selected.includes(request.id) })}
        columns={[
          {
            key: 'select',
            label: t('quarantine.list.selectAll'),
            header: (
              <Checkbox
                aria-label={t('quarantine.list.selectAll')}
                checked={allChecked}
                indeterminate={someChecked}
                disabled={openIds.length === 0}
                onChange={(event) => setSelected(event.currentTarget.checked ? openIds : [])}
              />
            ),
            width: '2.75rem',
            card: 'lead',
            cell: (request) => (
              <Checkbox
                aria-label={t('quarantine.list.selectRow', {
                  subject: subjectOf(t, request.message.subject),
                })}
                checked={selected.includes(request.id)}
                disabled={!isOpen(request)}
                onChange={(event) => toggle(request.id, event.currentTarget.checked)}
              />
            ),
          },
          {
            key: 'message',
            label: t('quarantine.list.message'),
            card: 'title',
            cell: (request) => (
              <MessageCell subject={subjectOf(t, request.message.subject)} sender={request.message.sender} />
            ),
          },
          {
            key: 'recipient',
            label: t('quarantine.list.recipient'),
            width: '10rem',
            cell: (request) => <AddressText address={request.requested_by} />,
          },
          {
            key: 'commentary',
            label: t('quarantine.requests.commentary'),
            width: '12rem',
            cell: (request) => (
              <Text size="sm" lineClamp={3} className="list-text-anywhere">
                {request.commentary}
              </Text>
            ),
          },
          {
            key: 'verdict',
            label: t('quarantine.list.verdict'),
            width: '7rem',
            card: 'badge',
            cell: (request) => <VerdictBadge verdict={request.message.verdict} />,
          },
          {
            key: 'status',
            label: t('quarantine.list.status'),
            width: '7rem',
            card: 'badge',
            cell: (request) => <StatusBadge status={request.status} />,
          },
          {
            key: 'requested',
            label: t('quarantine.requests.requestedAt'),
            width: '6.5rem',
            cell: (request) => <DateText iso={request.created_at} />,
          },
        ]}
        actionsWidth="9rem"
        rowActions={(request) => {
          const subject = subjectOf(t, request.message.subject);
          return (
            <RowActions subject={subject} onPreview={() => setPreviewed(request)}>
              {isOpen(request) && (
                <>
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() => setDecision({ action: 'approve', ids: [request.id] })}
                    aria-label={t('quarantine.actions.approveOf', { subject })}
                  >
                    {t('quarantine.actions.approve')}
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() => setDecision({ action: 'decline', ids: [request.id] })}
                    aria-label={t('quarantine.actions.declineOf', { subject })}
                  >
                    {t('quarantine.actions.decline')}
                  </Button>
                </>
              )}
            </RowActions>
          );
        }}
      />

      <PreviewDrawer opened={preview !== null} onClose={() => setPreviewed(null)}>
        {preview && (
          <Stack gap="md">
            {isOpen(preview) && (
              <Group gap="sm">
                <Button onClick={() => setDecision({ action: 'approve', ids: [preview.id] })}>
                  {t('quarantine.actions.approve')}
                </Button>
                <Button
                  color={DECLINE_COLOR}
                  onClick={() => setDecision({ action: 'decline', ids: [preview.id] })}
                >
                  {t('quarantine.actions.decline')}
                </Button>
              </Group>
            )}
            <MessagePreview
              id={preview.message.id}
              extra={
                <Paper withBorder p="sm" className="preview-request">
                  <Stack gap={4}>
                    <Group gap="xs">
                      <Text size="sm" fw={600}>
                        {t('quarantine.requests.requestBy', { email: preview.requested_by })}
                      </Text>
                      <StatusBadge status={preview.status} />
                    </Group>
                    <Text size="sm" className="preview-wrap">
                      {preview.commentary}
                    </Text>
                    {preview.decline_reason && (
                      <Text size="sm" c="dimmed">
                        {t('quarantine.requests.declineReason', { reason: preview.decline_reason })}
                      </Text>
                    )}
                  </Stack>
                </Paper>
              }
            />
          </Stack>
        )}
      </PreviewDrawer>

      <ConfirmDialog
        opened={decision?.action === 'approve'}
        title={t('quarantine.approve.title', { count: decision?.ids.length ?? 0 })}
        confirmLabel={t('quarantine.actions.approve')}
        pending={decisions.pending}
        onConfirm={() => decision && decisions.decide(decision, undefined, finish)}
        onClose={() => setDecision(null)}
      >
        {t('quarantine.approve.description', { count: decision?.ids.length ?? 0 })}
      </ConfirmDialog>
      {decision?.action === 'decline' && (
        <DeclineDialog
          opened
          count={decision.ids.length}
          pending={decisions.pending}
          onDecline={(reason) => decisions.decide(decision, reason, finish)}
          onClose={() => setDecision(null)}
        />
      )}
    </Stack>
  );
}
