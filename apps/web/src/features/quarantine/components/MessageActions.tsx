import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import {
  MESSAGE_FEEDBACKS,
  type MessageFeedback,
  type MessageSummary,
  QUARANTINE_ADMIN_API,
} from '@moat/contracts/quarantine-admin';
import { useState } from 'react';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { useNotify } from '../../../components/ui/Notifications';
import { formatDateTime } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';
import { useBlockSender } from '../api/block-sender';
import { useSetMessageFeedback } from '../api/set-message-feedback';
import { decisionErrorText } from '../error-text';
import { FEEDBACK_LABEL } from '../labels';
import type { PendingMessageAction } from './MessageActionDialog';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The sender's address and domain as the block list holds them (lower case); null without an address. */
function senderParts(sender: string): { address: string; domain: string } | null {
  const address = sender.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return { address, domain: address.slice(at + 1) };
}

/**
 * The admin's actions on one held message, in its preview: release (to the recipient or to a
 * chosen address of the organisation), delete, download the original, block the sender or its
 * domain, and 'is spam' / 'not spam' feedback. Release and delete are confirmed by the screen's
 * dialog (`onAction`).
 */
export function MessageActions({
  message,
  onAction,
}: {
  message: MessageSummary;
  onAction: (pending: PendingMessageAction) => void;
}) {
  const { t, i18n } = useTranslation();
  const notify = useNotify();
  const block = useBlockSender();
  const feedback = useSetMessageFeedback();
  const [to, setTo] = useState('');
  const [toError, setToError] = useState<string | null>(null);
  const [blocking, setBlocking] = useState<'sender' | 'domain' | null>(null);
  const sender = senderParts(message.sender);
  const releasable = message.state !== 'restored' && message.state !== 'deleted';

  const releaseTo = () => {
    const address = to.trim();
    if (!EMAIL.test(address)) {
      setToError(t('quarantine.messageActions.invalidAddress'));
      return;
    }
    setToError(null);
    onAction({ action: 'release', messages: [message], to: address });
  };

  const confirmBlock = () => {
    if (!blocking) return;
    block.mutate(
      { id: message.id, scope: blocking },
      {
        onSuccess: ({ value, added }) => {
          notify({
            tone: 'success',
            title: t(
              added ? 'quarantine.messageActions.blocked' : 'quarantine.messageActions.alreadyBlocked',
              {
                value,
              },
            ),
          });
          setBlocking(null);
        },
        onError: (error) =>
          notify({
            tone: 'error',
            title: t('quarantine.messageActions.blockFailed'),
            message: decisionErrorText(t, error),
          }),
      },
    );
  };

  const giveFeedback = (value: MessageFeedback) =>
    feedback.mutate(
      { id: message.id, feedback: value },
      {
        onSuccess: () =>
          notify({
            tone: 'success',
            title: t('quarantine.feedback.recorded'),
            message: t(FEEDBACK_LABEL[value]),
          }),
        onError: (error) =>
          notify({
            tone: 'error',
            title: t('quarantine.feedback.failed'),
            message: decisionErrorText(t, error),
          }),
      },
    );

  const blockValue = blocking === 'domain' ? sender?.domain : sender?.address;

  return (
    <Stack gap="sm" role="group" aria-label={t('quarantine.messageActions.label')}>
      <Group gap="xs" wrap="wrap">
        {releasable && (
          <Button size="xs" onClick={() => onAction({ action: 'release', messages: [message] })}>
            {t('quarantine.messageActions.release')}
          </Button>
        )}
        {message.state !== 'deleted' && (
          <Button
            size="xs"
            color="red"
            variant="light"
            onClick={() => onAction({ action: 'delete', messages: [message] })}
          >
            {t('quarantine.messageActions.delete')}
          </Button>
        )}
        {message.state !== 'deleted' && (
          <Button
            size="xs"
            variant="default"
            component="a"
            href={QUARANTINE_ADMIN_API.messageEml(message.id)}
            download
          >
            {t('quarantine.messageActions.download')}
          </Button>
        )}
      </Group>

      {releasable && (
        <Group gap="xs" align="flex-end" wrap="wrap">
          <TextInput
            size="xs"
            type="email"
            label={t('quarantine.messageActions.releaseToLabel')}
            description={t('quarantine.messageActions.releaseToHint')}
            value={to}
            error={toError}
            onChange={(event) => setTo(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') releaseTo();
            }}
            style={{ flex: '1 1 14rem' }}
          />
          <Button size="xs" variant="default" onClick={releaseTo}>
            {t('quarantine.messageActions.releaseToButton')}
          </Button>
        </Group>
      )}

      <Group gap="xs" wrap="wrap">
        {sender ? (
          <>
            <Button size="xs" variant="default" color="red" onClick={() => setBlocking('sender')}>
              {t('quarantine.messageActions.blockSender')}
            </Button>
            <Button size="xs" variant="default" color="red" onClick={() => setBlocking('domain')}>
              {t('quarantine.messageActions.blockDomain')}
            </Button>
          </>
        ) : (
          <Text size="sm" c="dimmed">
            {t('quarantine.messageActions.noSender')}
          </Text>
        )}
      </Group>

      <Group gap="xs" wrap="wrap" align="center">
        <Text size="sm" fw={500}>
          {t('quarantine.feedback.label')}:
        </Text>
        {MESSAGE_FEEDBACKS.map((value) => (
          <Button
            key={value}
            size="xs"
            variant={message.feedback === value ? 'filled' : 'default'}
            aria-pressed={message.feedback === value}
            loading={feedback.isPending && feedback.variables?.feedback === value}
            onClick={() => giveFeedback(value)}
          >
            {t(value === 'spam' ? 'quarantine.feedback.spam' : 'quarantine.feedback.notSpam')}
          </Button>
        ))}
        {message.feedback && message.feedback_by && message.feedback_at && (
          <Text size="xs" c="dimmed">
            {t('quarantine.feedback.given', {
              feedback: t(FEEDBACK_LABEL[message.feedback]),
              by: message.feedback_by,
              at: formatDateTime(message.feedback_at, i18n.language),
            })}
          </Text>
        )}
      </Group>

      <ConfirmDialog
        opened={blocking !== null}
        title={t('quarantine.messageActions.blockTitle', { value: blockValue ?? '' })}
        confirmLabel={t(
          blocking === 'domain'
            ? 'quarantine.messageActions.blockDomain'
            : 'quarantine.messageActions.blockSender',
        )}
        confirmColor="red"
        pending={block.isPending}
        onConfirm={confirmBlock}
        onClose={() => setBlocking(null)}
      >
        {t(
          blocking === 'domain'
            ? 'quarantine.messageActions.blockDomainDescription'
            : 'quarantine.messageActions.blockSenderDescription',
          { value: blockValue ?? '' },
        )}
      </ConfirmDialog>
    </Stack>
  );
}
