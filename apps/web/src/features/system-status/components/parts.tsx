import { Badge, Center, Loader, Paper, SimpleGrid, Text } from '@mantine/core';
import type { Queues } from '@moat/contracts/console';
import type { ReactNode } from 'react';
import { formatDateTime } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';

export function Loading({ label }: { label: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={label} />
    </Center>
  );
}

/** On, off or failing, in words as well as colour. */
export function StateBadge({ tone, children }: { tone: 'ok' | 'off' | 'bad' | 'busy'; children: ReactNode }) {
  const color = { ok: 'green', off: 'gray', bad: 'red', busy: 'blue' }[tone];
  return (
    <Badge color={color} variant="light" className="quarantine-badge">
      {children}
    </Badge>
  );
}

/** The queue depths as figures with their meaning; a failure count above zero stands out. */
export function QueueFigures({ queues }: { queues: Queues }) {
  const { t, i18n } = useTranslation();
  const figures: Array<{ key: string; label: string; value: number; bad?: boolean; note?: string }> = [
    { key: 'inbound', label: t('systemStatus.queues.inboundWaiting'), value: queues.inbound_waiting },
    {
      key: 'inboundFailed',
      label: t('systemStatus.queues.inboundFailed'),
      value: queues.inbound_failed,
      bad: true,
    },
    {
      key: 'outbox',
      label: t('systemStatus.queues.outboxWaiting'),
      value: queues.outbox_waiting,
      note: queues.oldest_waiting_at
        ? t('systemStatus.queues.oldest', { date: formatDateTime(queues.oldest_waiting_at, i18n.language) })
        : undefined,
    },
    {
      key: 'outboxFailed',
      label: t('systemStatus.queues.outboxFailed'),
      value: queues.outbox_failed_24h,
      bad: true,
    },
  ];
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }}>
      {figures.map((f) => (
        <Paper key={f.key} withBorder p="sm" radius="md">
          <Text size="xs" c="dimmed">
            {f.label}
          </Text>
          <Text size="xl" fw={700} c={f.bad && f.value > 0 ? 'red.9' : undefined}>
            {f.value.toLocaleString(i18n.language)}
          </Text>
          {f.note && (
            <Text size="xs" c="dimmed">
              {f.note}
            </Text>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  );
}

export { Section } from '../../../components/ui/Section';
