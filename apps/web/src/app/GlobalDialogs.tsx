import { Modal, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { InfoDialog } from '../components/ui/InfoDialog';
import { useTranslation } from '../lib/i18n';

/** SPEC §8 "Global": a trial that has expired blocks the console: 700 px, not closable, no cancel. */
export function TrialExpiredDialog() {
  const { t } = useTranslation();
  return (
    <Modal
      opened
      onClose={() => {}}
      title={t('globalErrors.trialExpired.title')}
      size={DIALOG_WIDTH.trialExpired}
      withCloseButton={false}
      closeOnClickOutside={false}
      closeOnEscape={false}
      centered
    >
      <Text>{t('globalErrors.trialExpired.description')}</Text>
    </Modal>
  );
}

/** SPEC §8 "Global": a call the user's role may not make. */
export function InsufficientPrivilegesDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <InfoDialog opened onClose={onClose} title={t('globalErrors.insufficientPrivileges.title')}>
      {t('globalErrors.insufficientPrivileges.description')}
    </InfoDialog>
  );
}
