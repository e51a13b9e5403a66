import { Alert, Badge, Button, Checkbox, Group, Paper, Stack, Text } from '@mantine/core';
import { VERDICTS, type Verdict } from '@moat/contracts/quarantine';
import type { MessageSummary } from '@moat/contracts/quarantine-admin';
import { LISTED_MESSAGE_STATES, type ListedMessageState } from '@moat/contracts/quarantine-admin';
import { heldMessageTracePath } from '@moat/contracts/routes';
import { useState } from 'react';
import { Link } from 'react-router';
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
import { useNotify } from '../../../components/ui/Notifications';
import { formatBytes } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';
import { useQuarantineMessages } from '../api/get-quarantine-messages';
import { useRetryQuarantineMessage } from '../api/retry-quarantine-message';
import { decisionErrorText } from '../error-text';
import { FEEDBACK_LABEL, MESSAGE_STATE_LABEL, VERDICT_LABEL } from '../labels';
import { VerdictBadge } from './Badges';
import { MessageActionDialog, type PendingMessageAction } from './MessageActionDialog';
import { MessageActions } from './MessageActions';
import { MessagePreview } from './MessagePreview';
import { RetentionControl } from './RetentionControl';

/** A restored message has been released already; a deleted one is gone (malware asks twice). */
const isReleasable = (message: MessageSummary) => message.state !== 'restored' && message.state !== 'deleted';

/**
 * Quarantined Items (SPEC §2.4 User Interaction, issue 11): the held messages with search, verdict
 * and state filters, row selection for bulk release / delete (confirmed, malware twice), a safe
 * preview with the message's actions, and the tenant's retention.
 */
export function QuarantineItemsScreen() {
  const { t, i18n } = useTranslation();
  const notify = useNotify();
  const [verdict, setVerdict] = useState<Verdict | ''>('');
  const [state, setState] = useState<ListedMessageState | ''>('');
  const controls = useListControls({ verdict: verdict || undefined, state: state || undefined });
  const [previewed, setPreviewed] = useState<MessageSummary | null>(null);
  const [selection, setSelection] = useState<{ key: string; ids: string[] }>({ key: '', ids: [] });
  const [pending, setPending] = useState<PendingMessageAction | null>(null);
  const retry = useRetryQuarantineMessage();

  const list = useQuarantineMessages({
    ...controls.query,
    verdict: verdict || undefined,
    state: state || undefined,
  });
  const items = list.data?.items ?? [];
  const preview = previewed ? (items.find((item) => item.id === previewed.id) ?? previewed) : null;
  // A new search, filter or page starts with nothing selected.
  const selectionKey = `${controls.key}|${controls.page}`;
  const pageIds = items.map((item) => item.id);
  const selected = selection.key === selectionKey ? selection.ids.filter((id) => pageIds.includes(id)) : [];
  const setSelected = (ids: string[]) => setSelection({ key: selectionKey, ids });
  const toggle = (id: string, checked: boolean) =>
    setSelected(checked ? [...selected, id] : selected.filter((other) => other !== id));
  const allChecked = pageIds.length > 0 && pageIds.every((id) => selected.includes(id));
  const someChecked = !allChecked && selected.length > 0;
  const selectedMessages = items.filter((item) => selected.includes(item.id));

  const finish = (ids: string[]) => {
    setSelected(selected.filter((id) => !ids.includes(id)));
    if (pending?.action === 'delete' && previewed && ids.includes(previewed.id)) setPreviewed(null);
    setPending(null);
  };

  /** A message the gateway could not process: the admin processes it again (it leaves this list). */
  const retryMessage = (message: MessageSummary) =>
    retry.mutate(message.id, {
      onSuccess: () => {
        notify({
          tone: 'success',
          title: t('quarantine.failed.retried'),
          message: t('quarantine.failed.retriedDescription'),
        });
        setPreviewed(null);
      },
      onError: (error) =>
        notify({
          tone: 'error',
          title: t('quarantine.failed.retryFailed'),
          message: decisionErrorText(t, error),
        }),
    });

  const releaseButton = (message: MessageSummary) =>
    isReleasable(message) && (
      <Button
        size="xs"
        variant="default"
        onClick={() => setPending({ action: 'release', messages: [message] })}
        aria-label={t('quarantine.actions.releaseOf', { subject: subjectOf(t, message.subject) })}
      >
        {t('quarantine.actions.release')}
      </Button>
    );

  return (
    <Stack gap="md">
      <ListToolbar
        search={controls.search}
        onSearchChange={controls.setSearch}
        filters={[
          enumFilter({
            name: 'verdict',
            label: t('quarantine.list.verdict'),
            allLabel: t('quarantine.list.allVerdicts'),
            values: VERDICTS,
            labelOf: (value) => t(VERDICT_LABEL[value]),
            value: verdict,
            onChange: setVerdict,
          }),
          enumFilter({
            name: 'state',
            label: t('quarantine.list.state'),
            allLabel: t('quarantine.list.allStates'),
            values: LISTED_MESSAGE_STATES,
            labelOf: (value) => t(MESSAGE_STATE_LABEL[value]),
            value: state,
            onChange: setState,
          }),
        ]}
      />

      <RetentionControl />

      {selected.length > 0 && (
        <Paper withBorder p="sm" className="bulk-bar">
          <Group
            gap="sm"
            justify="space-between"
            wrap="wrap"
            role="group"
            aria-label={t('quarantine.bulk.label')}
          >
            <Text size="sm" role="status">
              {t('quarantine.list.selected', { count: selected.length })}
            </Text>
            <Group gap="xs" wrap="wrap">
              <Button size="xs" onClick={() => setPending({ action: 'release', messages: selectedMessages })}>
                {t('quarantine.bulk.release', { count: selected.length })}
              </Button>
              <Button
                size="xs"
                color="red"
                onClick={() => setPending({ action: 'delete', messages: selectedMessages })}
              >
                {t('quarantine.bulk.delete', { count: selected.length })}
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
        caption={t('quarantine.messages.caption')}
        emptyTitle={t('quarantine.messages.emptyTitle')}
        emptyDescription={t('quarantine.messages.emptyDescription')}
        minWidth={880}
        rowKey={(message) => message.id}
        rowProps={(message) => ({ selected: selected.includes(message.id) })}
        columns={[
          {
            key: 'select',
            label: t('quarantine.bulk.selectAll'),
            header: (
              <Checkbox
                aria-label={t('quarantine.bulk.selectAll')}
                checked={allChecked}
                indeterminate={someChecked}
                disabled={pageIds.length === 0}
                onChange={(event) => setSelected(event.currentTarget.checked ? pageIds : [])}
              />
            ),
            width: '2.75rem',
            card: 'lead',
            cell: (message) => (
              <Checkbox
                aria-label={t('quarantine.bulk.selectRow', { subject: subjectOf(t, message.subject) })}
                checked={selected.includes(message.id)}
                onChange={(event) => toggle(message.id, event.currentTarget.checked)}
              />
            ),
          },
          {
            key: 'message',
            label: t('quarantine.list.message'),
            card: 'title',
            cell: (message) => (
              <MessageCell subject={subjectOf(t, message.subject)} sender={message.sender} />
            ),
          },
          {
            key: 'recipient',
            label: t('quarantine.list.recipient'),
            width: '10rem',
            cell: (message) => <AddressText address={message.recipient} />,
          },
          {
            key: 'verdict',
            label: t('quarantine.list.verdict'),
            width: '7rem',
            card: 'badge',
            cell: (message) => <VerdictBadge verdict={message.verdict} />,
          },
          {
            key: 'state',
            label: t('quarantine.list.state'),
            width: '7.5rem',
            cell: (message) =>
              message.processing_failed && message.state === 'quarantined' ? (
                <Badge color="red" variant="light" tt="none">
                  {t('quarantine.failed.badge')}
                </Badge>
              ) : message.retracted_at && message.state === 'quarantined' ? (
                // Pulled back out of the mailbox after delivery (retraction): restored like any held message.
                <Badge color="orange" variant="light" tt="none" className="quarantine-badge">
                  {t('retraction.badge')}
                </Badge>
              ) : (
                <Text size="sm">{t(MESSAGE_STATE_LABEL[message.state])}</Text>
              ),
          },
          {
            key: 'feedback',
            label: t('quarantine.feedback.column'),
            width: '6rem',
            cell: (message) => (
              <Text size="sm">{message.feedback ? t(FEEDBACK_LABEL[message.feedback]) : '—'}</Text>
            ),
          },
          {
            key: 'attachments',
            label: t('quarantine.messages.attachments'),
            width: '6.5rem',
            cell: (message) => (
              <Text size="sm">
                {t('quarantine.messages.attachmentCount', {
                  count: message.attachments.length,
                  size: formatBytes(message.size, i18n.language),
                })}
              </Text>
            ),
          },
          {
            key: 'received',
            label: t('quarantine.messages.receivedAt'),
            width: '6.5rem',
            cell: (message) => <DateText iso={message.received_at} />,
          },
        ]}
        actionsWidth="9rem"
        rowActions={(message) => {
          const subject = subjectOf(t, message.subject);
          return (
            <RowActions subject={subject} onPreview={() => setPreviewed(message)}>
              <Button
                component={Link}
                to={heldMessageTracePath(message.id)}
                size="xs"
                variant="subtle"
                aria-label={t('trace.traceActionOf', { subject })}
              >
                {t('trace.traceAction')}
              </Button>
              {releaseButton(message)}
            </RowActions>
          );
        }}
      />

      <PreviewDrawer opened={preview !== null} onClose={() => setPreviewed(null)}>
        {preview && (
          <Stack gap="md">
            {preview.processing_failed && preview.state === 'quarantined' && (
              <Alert color="red" title={t('quarantine.failed.title')}>
                <Text size="sm">{t('quarantine.failed.description')}</Text>
              </Alert>
            )}
            {preview.processing_failed && preview.state === 'quarantined' && (
              <Group>
                <Button loading={retry.isPending} onClick={() => retryMessage(preview)}>
                  {t('quarantine.actions.retry')}
                </Button>
              </Group>
            )}
            <MessageActions message={preview} onAction={setPending} />
            <MessagePreview id={preview.id} />
          </Stack>
        )}
      </PreviewDrawer>

      <MessageActionDialog pending={pending} onClose={() => setPending(null)} onDone={finish} />
    </Stack>
  );
}
