import { Alert } from '@mantine/core';
import { useTranslation } from '../../lib/i18n';

/**
 * What an action just did, in a live region (read out when it appears), with a close button:
 * the one place a list screen says "done".
 */
export function StatusNotice({ message, onClose }: { message: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <div role="status" aria-live="polite">
      {message && (
        <Alert
          color="green"
          variant="light"
          withCloseButton
          onClose={onClose}
          closeButtonLabel={t('common.close')}
        >
          {message}
        </Alert>
      )}
    </div>
  );
}
