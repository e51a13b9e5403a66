import { Button, Group, NumberInput } from '@mantine/core';
import { RETENTION_MAX_DAYS, RETENTION_MIN_DAYS } from '@moat/contracts/quarantine-admin';
import { useState } from 'react';
import { useNotify } from '../../../components/ui/Notifications';
import { useTranslation } from '../../../lib/i18n';
import { useRetention } from '../api/get-retention';
import { useSetRetention } from '../api/set-retention';
import { decisionErrorText } from '../error-text';

/** How many days held mail is kept before the purge job deletes it (the tenant's retention). */
export function RetentionControl() {
  const { t } = useTranslation();
  const notify = useNotify();
  const retention = useRetention();
  const save = useSetRetention();
  const [draft, setDraft] = useState<number | string | null>(null);
  const value = draft ?? retention.data?.days ?? '';
  const days = typeof value === 'number' ? value : Number.NaN;
  const valid = Number.isInteger(days) && days >= RETENTION_MIN_DAYS && days <= RETENTION_MAX_DAYS;

  const submit = () => {
    if (!valid) return;
    save.mutate(days, {
      onSuccess: (data) => {
        setDraft(null);
        notify({
          tone: 'success',
          title: t('quarantine.retention.saved'),
          message: t('quarantine.retention.savedDescription', { count: data.days }),
        });
      },
      onError: (error) =>
        notify({
          tone: 'error',
          title: t('quarantine.retention.failed'),
          message: decisionErrorText(t, error),
        }),
    });
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Group gap="xs" align="flex-end" wrap="wrap">
        <NumberInput
          size="xs"
          w={200}
          label={t('quarantine.retention.label')}
          description={t('quarantine.retention.description')}
          min={RETENTION_MIN_DAYS}
          max={RETENTION_MAX_DAYS}
          allowDecimal={false}
          allowNegative={false}
          disabled={!retention.data}
          value={value}
          onChange={setDraft}
          style={{ flex: '1 1 16rem', maxWidth: '28rem' }}
        />
        <Button
          size="xs"
          type="submit"
          variant="default"
          disabled={!valid || draft === null}
          loading={save.isPending}
        >
          {t('quarantine.retention.save')}
        </Button>
      </Group>
    </form>
  );
}
