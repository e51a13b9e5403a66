import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { type FormEvent, useState } from 'react';
import { useTranslation } from '../../../lib/i18n';

const REASON_MAX_LENGTH = 2_000;

/** Declining is red: shade 9 keeps white text above 4.5:1 in both schemes. */
export const DECLINE_COLOR = 'red.9';

/** Declining needs a reason: it is emailed to the recipient. */
export function DeclineDialog({
  opened,
  count,
  pending,
  onDecline,
  onClose,
}: {
  opened: boolean;
  /** How many requests are declined at once. */
  count: number;
  pending: boolean;
  onDecline: (reason: string) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [reason, setReason] = useState('');
  const [invalid, setInvalid] = useState(false);

  const close = () => {
    setReason('');
    setInvalid(false);
    onClose();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = reason.trim();
    if (!value) {
      setInvalid(true);
      return;
    }
    onDecline(value);
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('quarantine.decline.title', { count })}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <form noValidate onSubmit={submit}>
        <Stack gap="md">
          <Text size="sm">{t('quarantine.decline.description')}</Text>
          <Textarea
            label={t('quarantine.decline.reason')}
            value={reason}
            onChange={(event) => {
              setReason(event.currentTarget.value);
              setInvalid(false);
            }}
            error={invalid ? t('quarantine.decline.reasonRequired') : undefined}
            required
            rows={4}
            maxLength={REASON_MAX_LENGTH}
            data-autofocus
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" color={DECLINE_COLOR} loading={pending}>
              {t('quarantine.actions.decline')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
