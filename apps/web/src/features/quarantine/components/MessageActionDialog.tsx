import { Alert, Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import type { MessageBulkResult, MessageSummary } from '@moat/contracts/quarantine-admin';
import { useState } from 'react';
import { useNotify } from '../../../components/ui/Notifications';
import { useTranslation } from '../../../lib/i18n';
import { useBulkQuarantineMessages } from '../api/bulk-quarantine-messages';
import { decisionErrorText } from '../error-text';
import { BULK_SKIP_REASON_LABEL } from '../labels';

/** A release or deletion waiting for its confirmation: these messages, optionally to a chosen address. */
export interface PendingMessageAction {
  action: 'release' | 'delete';
  messages: MessageSummary[];
  /** Release to this address (one of the tenant's own domains) instead of the original recipients. */
  to?: string;
}

/**
 * Asks before releasing or deleting held messages, stating how many; releasing malware needs a
 * second, explicit confirmation (a box to tick). Tells the outcome per kind in a notification.
 */
export function MessageActionDialog({
  pending,
  onClose,
  onDone,
}: {
  pending: PendingMessageAction | null;
  onClose: () => void;
  /** After the call reached the server, with the ids acted on. */
  onDone: (ids: string[]) => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={pending !== null}
      onClose={onClose}
      title={
        pending
          ? t(pending.action === 'release' ? 'quarantine.bulk.releaseTitle' : 'quarantine.bulk.deleteTitle', {
              count: pending.messages.length,
            })
          : ''
      }
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      {/* Keyed so that the malware box starts unticked for each new action. */}
      {pending && (
        <DialogBody
          key={pending.messages.map((m) => m.id).join()}
          pending={pending}
          onClose={onClose}
          onDone={onDone}
        />
      )}
    </Modal>
  );
}

function DialogBody({
  pending,
  onClose,
  onDone,
}: {
  pending: PendingMessageAction;
  onClose: () => void;
  onDone: (ids: string[]) => void;
}) {
  const { t } = useTranslation();
  const notify = useNotify();
  const bulk = useBulkQuarantineMessages();
  const [malwareConfirmed, setMalwareConfirmed] = useState(false);
  const count = pending.messages.length;
  const malware =
    pending.action === 'release' ? pending.messages.filter((m) => m.verdict === 'malware').length : 0;
  const blocked = malware > 0 && !malwareConfirmed;

  const report = ({ results }: MessageBulkResult) => {
    const of = (outcome: string) => results.filter((r) => r.outcome === outcome);
    const done = of(pending.action === 'release' ? 'released' : 'deleted').length;
    const skipped = of('skipped');
    const missing = of('not_found').length;
    if (done > 0) {
      notify({
        tone: 'success',
        title: t(pending.action === 'release' ? 'quarantine.bulk.released' : 'quarantine.bulk.deleted', {
          count: done,
        }),
        message: pending.to ? t('quarantine.notify.releasedTo', { email: pending.to }) : undefined,
      });
    }
    if (skipped.length > 0 || missing > 0) {
      const reasons = [...new Set(skipped.map((r) => r.reason).filter((r) => r !== null))];
      notify({
        tone: 'error',
        title:
          skipped.length > 0
            ? t('quarantine.bulk.skipped', { count: skipped.length })
            : t('quarantine.bulk.notFound', { count: missing }),
        message: [
          ...reasons.map((reason) => t(BULK_SKIP_REASON_LABEL[reason])),
          ...(skipped.length > 0 && missing > 0 ? [t('quarantine.bulk.notFound', { count: missing })] : []),
        ].join('; '),
      });
    }
  };

  const confirm = () => {
    if (blocked) return;
    bulk.mutate(
      {
        ids: pending.messages.map((m) => m.id),
        action: pending.action,
        ...(pending.to ? { to: pending.to } : {}),
        ...(malware > 0 ? { confirm_malware: true } : {}),
      },
      {
        onSuccess: (result) => {
          report(result);
          onDone(pending.messages.map((m) => m.id));
        },
        onError: (error) =>
          notify({ tone: 'error', title: t('quarantine.bulk.failed'), message: decisionErrorText(t, error) }),
      },
    );
  };

  const description =
    pending.action === 'delete'
      ? t('quarantine.bulk.deleteDescription', { count })
      : pending.to
        ? t('quarantine.bulk.releaseToDescription', { count, email: pending.to })
        : t('quarantine.bulk.releaseDescription', { count });

  return (
    <Stack gap="md">
      <Text>{description}</Text>
      {malware > 0 && (
        <Alert color="red" variant="light" title={t('quarantine.bulk.malwareTitle')}>
          <Stack gap="sm">
            <Text size="sm">{t('quarantine.bulk.malwareDescription', { count: malware })}</Text>
            <Checkbox
              color="red"
              label={t('quarantine.bulk.malwareConfirm', { count: malware })}
              checked={malwareConfirmed}
              onChange={(event) => setMalwareConfirmed(event.currentTarget.checked)}
            />
          </Stack>
        </Alert>
      )}
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onClose} data-autofocus>
          {t('common.cancel')}
        </Button>
        <Button
          color={pending.action === 'delete' || malware > 0 ? 'red' : undefined}
          onClick={confirm}
          loading={bulk.isPending}
          disabled={blocked}
        >
          {t(
            pending.action === 'release' ? 'quarantine.bulk.confirmRelease' : 'quarantine.bulk.confirmDelete',
          )}
        </Button>
      </Group>
    </Stack>
  );
}
