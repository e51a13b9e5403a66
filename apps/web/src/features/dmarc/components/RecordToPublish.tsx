import { Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import { type TranslationKey, useTranslation } from '../../../lib/i18n';

/** Long names and records wrap anywhere: the DMARC screens never scroll sideways, even at 360 px. */
export const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', wordBreak: 'break-all' } as const;

/**
 * A DNS TXT record to publish: its name and, when there is one, its value, each with a copy
 * button (what an admin pastes into their DNS host), as every DMARC screen shows one.
 */
export function RecordToPublish({ name, value }: { name: string; value: string | null }) {
  const { t } = useTranslation();
  const copy = (text: string, label: TranslationKey) => (
    <CopyButton value={text}>
      {({ copied, copy: onCopy }) => (
        <Button variant="default" size="xs" onClick={onCopy}>
          {copied ? t('dmarc.record.copied') : t(label)}
        </Button>
      )}
    </CopyButton>
  );
  return (
    <Stack gap={6} mt={4}>
      <Stack gap={2}>
        <Text size="xs" fw={600}>
          {t('dmarc.record.name')}
        </Text>
        <Code block style={WRAP}>
          {name}
        </Code>
      </Stack>
      {value !== null && (
        <Stack gap={2}>
          <Text size="xs" fw={600}>
            {t('dmarc.record.value')}
          </Text>
          <Code block style={WRAP}>
            {value}
          </Code>
        </Stack>
      )}
      <Group gap="xs" wrap="wrap">
        {copy(name, 'dmarc.record.copyName')}
        {value !== null && copy(value, 'dmarc.record.copyValue')}
      </Group>
    </Stack>
  );
}
