import { Anchor, Modal, Stack, Text } from '@mantine/core';
import type { LearningMode } from '@moat/contracts/console';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { useTranslation } from '../../../lib/i18n';
import { safeExternalHref } from '../safe-href';

/** The learning-mode banner's dialog: the title, text and link the server supplies (SPEC §4). */
export function LearningDetailsDialog({
  learning,
  opened,
  onClose,
}: {
  learning: LearningMode;
  opened: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const href = safeExternalHref(learning.modal_popup_href);
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={learning.modal_popup_title}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <Stack gap="md">
        <Text>{learning.modal_popup_text}</Text>
        {href && (
          <Anchor href={href} target="_blank" rel="noopener noreferrer">
            {learning.modal_popup_href_text}
          </Anchor>
        )}
      </Stack>
    </Modal>
  );
}
