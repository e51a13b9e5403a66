import { CloseButton, Group, Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from '../../../lib/i18n';
import type { BannerPhase } from '../use-banner-phase';

/** One banner of the stack: a titled card with a close button, sliding with its phase. */
export function BannerCard({
  phase,
  label,
  title,
  onClose,
  children,
}: {
  phase: BannerPhase;
  label: string;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  if (phase === 'waiting' || phase === 'gone') return null;
  return (
    <Paper
      component="section"
      aria-label={label}
      className="moat-banner"
      data-phase={phase}
      inert={phase !== 'shown' ? true : undefined}
      withBorder
      shadow="md"
      p="md"
      radius="md"
    >
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Text fw={700}>{title}</Text>
          <CloseButton aria-label={t('banners.close')} onClick={onClose} />
        </Group>
        {children}
      </Stack>
    </Paper>
  );
}
