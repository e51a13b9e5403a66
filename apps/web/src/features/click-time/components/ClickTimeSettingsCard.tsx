import { Alert, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import type { ClickTimeSettings } from '@moat/contracts/click-time';
import { useId, useState } from 'react';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { messageKeyOf } from '../../../lib/error-messages';
import { useTranslation } from '../../../lib/i18n';
import { useClickTimeSettings, useSaveClickTimeSettings } from '../api/click-time-settings';

/**
 * Click-time protection's choices: links are rewritten in mail delivered with a verdict (on by
 * default), in clean mail too (a tenant-wide choice), and whether a reader may go on past the
 * warning of a suspicious link. Each switch saves at once.
 */
export function ClickTimeSettingsCard() {
  const { t } = useTranslation();
  const headingId = useId();
  const query = useClickTimeSettings();
  const save = useSaveClickTimeSettings();
  const [status, setStatus] = useState<string | null>(null);

  const change = (key: keyof ClickTimeSettings, value: boolean) => {
    if (!query.data) return;
    save.mutate(
      { ...query.data, [key]: value },
      { onSuccess: () => setStatus(t('clickTime.settings.saved')) },
    );
  };
  const settings = query.data;
  const switches: Array<{ key: keyof ClickTimeSettings; label: string; description: string }> = [
    {
      key: 'rewriteFlagged',
      label: t('clickTime.settings.rewriteFlagged'),
      description: t('clickTime.settings.rewriteFlaggedHint'),
    },
    {
      key: 'rewriteClean',
      label: t('clickTime.settings.rewriteClean'),
      description: t('clickTime.settings.rewriteCleanHint'),
    },
    {
      key: 'allowContinue',
      label: t('clickTime.settings.allowContinue'),
      description: t('clickTime.settings.allowContinueHint'),
    },
  ];

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="md">
        <Title order={2} size="h3" id={headingId}>
          {t('clickTime.settings.title')}
        </Title>
        <Text size="sm">{t('clickTime.settings.intro')}</Text>
        <StatusNotice message={status} onClose={() => setStatus(null)} />
        {query.isError && (
          <Alert color="red" variant="light">
            {t(messageKeyOf(query.error))}
          </Alert>
        )}
        {save.isError && (
          <Alert color="red" variant="light">
            {t(messageKeyOf(save.error))}
          </Alert>
        )}
        {switches.map(({ key, label, description }) => (
          <Switch
            key={key}
            label={label}
            description={description}
            checked={settings?.[key] ?? false}
            disabled={!settings || save.isPending}
            onChange={(e) => change(key, e.currentTarget.checked)}
          />
        ))}
      </Stack>
    </Paper>
  );
}
