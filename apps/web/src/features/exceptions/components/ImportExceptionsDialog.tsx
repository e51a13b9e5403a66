import { Alert, Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { type FormEvent, useId, useState } from 'react';
import { messageKeyOf } from '../../../lib/error-messages';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useImportExceptions } from '../api/import-exceptions';

/** A file's text (FileReader: older browsers have no File.text). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}

/** Import a CSV file of entries: all of them or, when a row is wrong, none (each bad row listed). */
export function ImportExceptionsDialog({
  opened,
  onClose,
  onImported,
}: {
  opened: boolean;
  onClose: () => void;
  onImported: (count: number) => void;
}) {
  const { t } = useTranslation();
  const run = useImportExceptions();
  const [file, setFile] = useState<File | null>(null);
  const inputId = useId();
  const close = () => {
    setFile(null);
    run.reset();
    onClose();
  };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!file) return;
    const text = await readText(file);
    run.mutate(text, {
      onSuccess: ({ imported }) => {
        setFile(null);
        onImported(imported);
      },
    });
  };
  const error = run.error;
  const rowErrors = isApiError(error) ? (error.details ?? []) : [];

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('exceptions.importDialog.title')}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <form noValidate onSubmit={submit}>
        <Stack gap="sm">
          <Text size="sm">{t('exceptions.importDialog.help')}</Text>
          <Stack gap={4}>
            <Text component="label" htmlFor={inputId} size="sm" fw={500}>
              {t('exceptions.importDialog.file')}
            </Text>
            <input
              id={inputId}
              type="file"
              accept=".csv,text/csv"
              onChange={(e) => {
                setFile(e.currentTarget.files?.[0] ?? null);
                run.reset();
              }}
            />
          </Stack>
          {error && (
            <Alert color="red" variant="light" role="alert">
              <Text size="sm" fw={600}>
                {rowErrors.length > 0 ? t('exceptions.importDialog.failed') : t(messageKeyOf(error))}
              </Text>
              {rowErrors.length > 0 ? (
                <List size="sm" mt={4}>
                  {rowErrors.slice(0, 50).map((row) => (
                    <List.Item key={`${row.field}:${row.message}`}>
                      {row.field}: {row.message}
                    </List.Item>
                  ))}
                </List>
              ) : (
                isApiError(error) && <Text size="sm">{error.message}</Text>
              )}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {t('exceptions.importDialog.cancel')}
            </Button>
            <Button type="submit" disabled={!file} loading={run.isPending}>
              {t('exceptions.importDialog.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
