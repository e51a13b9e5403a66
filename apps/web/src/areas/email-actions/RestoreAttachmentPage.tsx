import { Paper, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../../lib/use-document-title';

/** email-actions/restore-attachment: a placeholder child route (SPEC §2.2 shows nothing more). */
export function RestoreAttachmentPage() {
  const { t } = useTranslation();
  const title = t('emailActions.restoreAttachment.title');
  useDocumentTitle(title);
  return (
    <Paper withBorder p="lg" radius="md">
      <Title order={1} size="h2">
        {title}
      </Title>
    </Paper>
  );
}
