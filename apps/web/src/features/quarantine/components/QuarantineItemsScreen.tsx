import { Alert, Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { VERDICTS, type Verdict } from '@moat/contracts/quarantine';
import type { MessageSummary } from '@moat/contracts/quarantine-admin';
import { LISTED_MESSAGE_STATES, type ListedMessageState } from '@moat/contracts/quarantine-admin';
import { heldMessageTracePath } from '@moat/contracts/routes';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import {
  DateCell,
  MessageCell,
  PreviewDrawer,
  RowActions,
  subjectOf,
} from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListControls } from '../../../components/list/use-list-controls';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { useNotify } from '../../../components/ui/Notifications';
import { formatBytes } from '../../../lib/format';
import { useDeleteQuarantineMessage } from '../api/delete-quarantine-message';
import { useQuarantineMessages } from '../api/get-quarantine-messages';
import { useReleaseQuarantineMessage } from '../api/release-quarantine-message';
import { useRetryQuarantineMessage } from '../api/retry-quarantine-message';
import { decisionErrorText } from '../error-text';
import { MESSAGE_STATE_LABEL, VERDICT_LABEL } from '../labels';
import { VerdictBadge } from './Badges';
import { MessagePreview } from './MessagePreview';

/** Malware is never released; a restored message has been released already; a deleted one is gone. */
const isReleasable = (message: MessageSummary) =>
  message.verdict !== 'malware' && message.state !== 'restored' && message.state !== 'deleted';

/**
 * Quarantined Items (SPEC §2.4 User Interaction): the held messages with search, verdict and state
 * filters, a safe preview, and release with a confirmation.
 */
export function QuarantineItemsScreen() {
  const { t, i18n } = useTranslation();
  const notify = useNotify();
  const [verdict, setVerdict] = useState<Verdict | ''>('');
  const [state, setState] = useState<ListedMessageState | ''>('');
  const controls = useListControls({ verdict: verdict || undefined, state: state || undefined });
  const [previewed, setPreviewed] = useState<MessageSummary | null>(null);
  const [releasing, setReleasing] = useState<MessageSummary | null>(null);
  const [deleting, setDeleting] = useState<MessageSummary | null>(null);
  const release = useReleaseQuarantineMessage();
  const retry = useRetryQuarantineMessage();
  const remove = useDeleteQuarantineMessage();

  const list = useQuarantineMessages({
    ...controls.query,
    verdict: verdict || undefined,
    state: state || undefined,
  });
  const items = list.data?.items ?? [];
  const preview = previewed ? (items.find((item) => item.id === previewed.id) ?? previewed) : null;

  const confirmRelease = () => {
    if (!releasing) return;
    release.mutate(releasing.id, {
      onSuccess: () => {
        notify({
          tone: 'success',
          title: t('quarantine.notify.released'),
          message: t('quarantine.notify.releasedTo', { email: releasing.recipient }),
        });
        setReleasing(null);
      },
      onError: (error) =>
        notify({
          tone: 'error',
          title: t('quarantine.notify.releaseFailed'),
          message: decisionErrorText(t, error),
        }),
    });
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

  const confirmDelete = () => {
    if (!deleting) return;
    remove.mutate(deleting.id, {
      onSuccess: () => {
        notify({
          tone: 'success',
          title: t('quarantine.failed.deleted'),
          message: subjectOf(t, deleting.subject),
        });
        setDeleting(null);
        setPreviewed(null);
      },
      onError: (error) =>
        notify({
          tone: 'error',
          title: t('quarantine.failed.deleteFailed'),
          message: decisionErrorText(t, error),
        }),
    });
  };

  const releaseButton = (message: MessageSummary, compact: boolean) =>
    isReleasable(message) && (
      <Button
        size={compact ? 'xs' : 'sm'}
        // Releasing a message nobody could scan is not the first thing to offer.
        variant={compact || message.processing_failed ? 'default' : 'filled'}
        onClick={() => setReleasing(message)}
        aria-label={
          compact ? t('quarantine.actions.releaseOf', { subject: subjectOf(t, message.subject) }) : undefined
        }
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

      <ListTable
        list={list}
        page={controls.page}
        onPage={controls.setPage}
        filtered={controls.filtered}
        caption={t('quarantine.messages.caption')}
        emptyTitle={t('quarantine.messages.emptyTitle')}
        emptyDescription={t('quarantine.messages.emptyDescription')}
        minWidth={900}
        head={
          <>
            <Table.Th>{t('quarantine.list.message')}</Table.Th>
            <Table.Th>{t('quarantine.list.recipient')}</Table.Th>
            <Table.Th>{t('quarantine.list.verdict')}</Table.Th>
            <Table.Th>{t('quarantine.list.state')}</Table.Th>
            <Table.Th>{t('quarantine.messages.attachments')}</Table.Th>
            <Table.Th>{t('quarantine.messages.receivedAt')}</Table.Th>
          </>
        }
      >
        {items.map((message) => {
          const subject = subjectOf(t, message.subject);
          return (
            <Table.Tr key={message.id}>
              <Table.Td className="quarantine-table__message">
                <MessageCell subject={subject} sender={message.sender} />
              </Table.Td>
              <Table.Td>
                <Text size="sm">{message.recipient}</Text>
              </Table.Td>
              <Table.Td>
                <VerdictBadge verdict={message.verdict} />
              </Table.Td>
              <Table.Td>
                {message.processing_failed && message.state === 'quarantined' ? (
                  <Badge color="red" variant="light" tt="none">
                    {t('quarantine.failed.badge')}
                  </Badge>
                ) : (
                  <Text size="sm">{t(MESSAGE_STATE_LABEL[message.state])}</Text>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {t('quarantine.messages.attachmentCount', {
                    count: message.attachments.length,
                    size: formatBytes(message.size, i18n.language),
                  })}
                </Text>
              </Table.Td>
              <DateCell iso={message.received_at} />
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
                {releaseButton(message, true)}
              </RowActions>
            </Table.Tr>
          );
        })}
      </ListTable>

      <PreviewDrawer opened={preview !== null} onClose={() => setPreviewed(null)}>
        {preview && (
          <Stack gap="md">
            {preview.processing_failed && preview.state === 'quarantined' && (
              <Alert color="red" title={t('quarantine.failed.title')}>
                <Text size="sm">{t('quarantine.failed.description')}</Text>
              </Alert>
            )}
            <Group>
              {preview.processing_failed && preview.state === 'quarantined' && (
                <Button loading={retry.isPending} onClick={() => retryMessage(preview)}>
                  {t('quarantine.actions.retry')}
                </Button>
              )}
              {isReleasable(preview) && releaseButton(preview, false)}
              {preview.state !== 'deleted' && preview.state !== 'restored' && (
                <Button color="red" variant="light" onClick={() => setDeleting(preview)}>
                  {t('quarantine.actions.delete')}
                </Button>
              )}
            </Group>
            <MessagePreview id={preview.id} />
          </Stack>
        )}
      </PreviewDrawer>

      <ConfirmDialog
        opened={deleting !== null}
        title={t('quarantine.failed.deleteTitle')}
        confirmLabel={t('quarantine.actions.delete')}
        pending={remove.isPending}
        onConfirm={confirmDelete}
        onClose={() => setDeleting(null)}
      >
        {t('quarantine.failed.deleteDescription', {
          subject: deleting ? subjectOf(t, deleting.subject) : '',
        })}
      </ConfirmDialog>

      <ConfirmDialog
        opened={releasing !== null}
        title={t('quarantine.release.title')}
        confirmLabel={t('quarantine.actions.release')}
        pending={release.isPending}
        onConfirm={confirmRelease}
        onClose={() => setReleasing(null)}
      >
        {t('quarantine.release.description', {
          subject: releasing ? subjectOf(t, releasing.subject) : '',
          email: releasing?.recipient ?? '',
        })}
      </ConfirmDialog>
    </Stack>
  );
}
