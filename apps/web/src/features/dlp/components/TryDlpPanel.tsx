import { Alert, Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { useTestDlp } from '../api/dlp';
import { HitsList } from './HitsList';

/** Paste a text and see what the organisation's rules find in it (nothing is stored or sent). */
export function TryDlpPanel() {
  const { t } = useTranslation();
  const test = useTestDlp();
  const [text, setText] = useState('');
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    test.mutate(text);
  };
  return (
    <form onSubmit={onSubmit} aria-label={t('dlp.try.title')}>
      <Stack gap="sm">
        <Text size="sm">{t('dlp.try.intro')}</Text>
        <Textarea
          label={t('dlp.try.text')}
          autosize
          minRows={4}
          maxRows={14}
          maxLength={100_000}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <Group>
          <Button type="submit" size="xs" disabled={text.trim() === ''} loading={test.isPending}>
            {t('dlp.try.run')}
          </Button>
        </Group>
        {test.isError && <ApiErrorAlert error={test.error} showServerMessage />}
        {test.data &&
          (test.data.hits.length === 0 ? (
            <Alert color="green" variant="light">
              {t('dlp.try.nothing')}
            </Alert>
          ) : (
            <div role="status" aria-live="polite">
              <HitsList hits={test.data.hits} />
            </div>
          ))}
      </Stack>
    </form>
  );
}
