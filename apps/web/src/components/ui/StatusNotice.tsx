import { Alert } from '@mantine/core';
import { useTranslation } from '../../lib/i18n';

/**
 * What an action just did, in a live region (read out when it appears): the one place a screen
 * says "done". With `onClose`, the notice has a close button (list screens); without, it stays
 * until the form is changed again (settings forms).
 */
export function StatusNotice({ message, onClose }: { message: string | null | false; onClose?: () => void }) {
  const { t } = useTranslation();
  return (
    <div role="status" aria-live="polite">
      {message && (
        <Alert
          color="green"
          variant="light"
          withCloseButton={Boolean(onClose)}
          onClose={onClose}
          closeButtonLabel={t('common.close')}
        >
          {message}
        </Alert>
      )}
    </div>
  );
}
