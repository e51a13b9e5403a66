import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import type { ReactNode } from 'react';
import { useTranslation } from '../../lib/i18n';

/** A dialog that only tells something: a title, a text and an OK button. */
export function InfoDialog({
  opened,
  onClose,
  title,
  children,
  size = DIALOG_WIDTH.small,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  size?: number;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={title}
      size={size}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <Stack gap="md">
        {typeof children === 'string' ? <Text>{children}</Text> : children}
        <Group justify="flex-end">
          <Button onClick={onClose} data-autofocus>
            {t('common.ok')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
