import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import type { MyMessage } from '@moat/contracts/my-quarantine';
import { useState } from 'react';
import { DateText, MessageCell, PreviewDrawer, subjectOf } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { ListToolbar } from '../../../components/list/ListToolbar';
import { useListState } from '../../../components/list/use-list-state';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { useTranslation } from '../../../lib/i18n';
import { StatusBadge, VerdictBadge } from '../../quarantine/components/Badges';
import { LoadedPreview } from '../../quarantine/components/MessagePreview';
import { useMyMessage, useMyMessages, useRestoreMine } from '../api/my-quarantine';
import { MySendersSection, SenderActions } from './MySendersSection';

const SORTS = ['received_at'] as const;

/** What the user may do with one message, as the policy says; a button, or why not. */
function RestoreAction({
  m,
  onAsk,
  onDone,
}: {
  m: MyMessage;
  onAsk: () => void;
  onDone: (text: string) => void;
}) {
  const { t } = useTranslation();
  const restore = useRestoreMine();
  const { mode, status } = m.restore;
  if (status === 'restored' || status === 'requested' || status === 'approved') return null;
  if (mode === 'none') {
    return (
      <Text size="xs" c="dimmed">
        {t('myQuarantine.notRestorable')}
      </Text>
    );
  }
  if (mode === 'automatic') {
    return (
      <Stack gap={4} align="flex-end">
        <Button
          size="xs"
          variant="light"
          loading={restore.isPending}
          aria-label={t('myQuarantine.restoreOf', { subject: subjectOf(t, m.subject) })}
          onClick={() =>
            restore.mutate({ id: m.id, commentary: '' }, { onSuccess: (r) => onDone(r.message) })
          }
        >
          {t('myQuarantine.restore')}
        </Button>
        {restore.isError && <ApiErrorAlert error={restore.error} showServerMessage />}
      </Stack>
    );
  }
  return (
    <Button
      size="xs"
      variant="light"
      onClick={onAsk}
      aria-label={t('myQuarantine.requestOf', { subject: subjectOf(t, m.subject) })}
    >
      {t('myQuarantine.request')}
    </Button>
  );
}

/** Asks an admin to release a message, with the user's words (request modes). */
function RequestDialog({
  m,
  onClose,
  onDone,
}: {
  m: MyMessage;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const { t } = useTranslation();
  const restore = useRestoreMine();
  const [words, setWords] = useState('');
  const [checked, setChecked] = useState(false);
  return (
    <Modal
      opened
      onClose={onClose}
      title={t('myQuarantine.requestTitle')}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setChecked(true);
          if (!words.trim()) return;
          restore.mutate({ id: m.id, commentary: words }, { onSuccess: (r) => onDone(r.message) });
        }}
      >
        <Stack gap="sm">
          <Text size="sm">{t('myQuarantine.requestText', { subject: subjectOf(t, m.subject) })}</Text>
          <Textarea
            label={t('myQuarantine.why')}
            value={words}
            maxLength={2000}
            rows={3}
            onChange={(event) => setWords(event.currentTarget.value)}
            error={checked && !words.trim() ? t('myQuarantine.whyRequired') : undefined}
            required
            data-autofocus
          />
          {restore.isError && <ApiErrorAlert error={restore.error} showServerMessage />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={restore.isPending}>
              {t('myQuarantine.send')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function MyPreview({ id }: { id: string }) {
  return <LoadedPreview message={useMyMessage(id)} />;
}

/**
 * A user's own quarantine (issue 12, SPEC §6): the messages held for their address, each with a
 * preview and what the policy lets them do — restore it, ask an admin, or nothing — and their own
 * allowed and blocked senders.
 */
export function MyQuarantineScreen() {
  const { t } = useTranslation();
  const state = useListState({ sorts: SORTS, defaultSort: 'received_at', filters: {} });
  const list = useMyMessages(state.query);
  const [previewing, setPreviewing] = useState<string | null>(null);
  const [asking, setAsking] = useState<MyMessage | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const previewed = list.data?.items.find((m) => m.id === previewing);

  return (
    <Stack gap="md">
      <Text size="sm">{t('myQuarantine.intro')}</Text>
      <StatusNotice message={status} onClose={() => setStatus(null)} />
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        searchPlaceholder={t('myQuarantine.searchPlaceholder')}
        filters={[]}
      />
      <ListTable
        list={list}
        {...state.paging}
        caption={t('myQuarantine.caption')}
        emptyTitle={t('myQuarantine.emptyTitle')}
        emptyDescription={t('myQuarantine.emptyDescription')}
        minWidth={760}
        rowKey={(m) => m.id}
        columns={[
          {
            key: 'message',
            label: t('myQuarantine.columns.message'),
            card: 'title',
            cell: (m) => (
              <MessageCell
                subject={subjectOf(t, m.subject)}
                sender={m.sender_name ? `${m.sender_name} <${m.sender}>` : m.sender}
              />
            ),
          },
          {
            key: 'received',
            label: t('myQuarantine.columns.received'),
            width: '6.5rem',
            cell: (m) => <DateText iso={m.received_at} />,
          },
          {
            key: 'verdict',
            label: t('myQuarantine.columns.verdict'),
            width: '7rem',
            card: 'badge',
            cell: (m) => <VerdictBadge verdict={m.verdict} />,
          },
          {
            key: 'status',
            label: t('myQuarantine.columns.status'),
            width: '8rem',
            card: 'badge',
            cell: (m) => <StatusBadge status={m.restore.status} />,
          },
        ]}
        actionsWidth="9rem"
        rowActions={(m) => (
          <>
            <Button
              size="xs"
              variant="subtle"
              onClick={() => setPreviewing(m.id)}
              aria-label={t('myQuarantine.previewOf', { subject: subjectOf(t, m.subject) })}
            >
              {t('myQuarantine.preview')}
            </Button>
            <RestoreAction m={m} onAsk={() => setAsking(m)} onDone={setStatus} />
          </>
        )}
      />
      <PreviewDrawer opened={previewing !== null} onClose={() => setPreviewing(null)}>
        {previewing && (
          <Stack gap="md">
            {previewed?.sender && (
              <SenderActions
                sender={previewed.sender}
                onDone={(text) => {
                  setPreviewing(null);
                  setStatus(text);
                }}
              />
            )}
            <MyPreview id={previewing} />
          </Stack>
        )}
      </PreviewDrawer>
      {asking && (
        <RequestDialog
          m={asking}
          onClose={() => setAsking(null)}
          onDone={(text) => {
            setAsking(null);
            setStatus(text);
          }}
        />
      )}
      <MySendersSection />
    </Stack>
  );
}
