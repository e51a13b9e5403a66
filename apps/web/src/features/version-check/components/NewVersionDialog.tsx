import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { useTranslation } from '../../../lib/i18n';

/** SPEC §4 "Version check": a dialog that cannot be closed; Reload loads the new version. */
export function NewVersionDialog({ opened, onReload }: { opened: boolean; onReload: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={() => {}}
      title={t('versionCheck.title')}
      size={DIALOG_WIDTH.small}
      withCloseButton={false}
      closeOnClickOutside={false}
      closeOnEscape={false}
      centered
    >
      <Stack gap="md">
        <Text>{t('versionCheck.description')}</Text>
        <Group justify="flex-end">
          <Button onClick={onReload} data-autofocus>
            {t('versionCheck.reload')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
