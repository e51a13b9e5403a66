import { Group, List, Text } from '@mantine/core';
import type { DlpHit } from '@moat/contracts/dlp';
import { useTranslation } from '../../../lib/i18n';
import { ActionBadge } from './ActionBadge';

const WRAP = { overflowWrap: 'anywhere' } as const;

/** What DLP found: each kind, how often, where, and its samples masked. */
export function HitsList({ hits }: { hits: DlpHit[] }) {
  const { t } = useTranslation();
  return (
    <List spacing={6} size="sm">
      {hits.map((hit) => (
        <List.Item key={`${hit.type}:${hit.ruleId ?? ''}`}>
          <Group gap="xs" wrap="wrap">
            <Text size="sm" fw={600} style={WRAP}>
              {hit.ruleName}
            </Text>
            <ActionBadge action={hit.action} />
          </Group>
          <Text size="sm" style={WRAP}>
            {t('dlp.hit.found', { count: hit.count, places: hit.places.join(', ') })}
          </Text>
          {hit.samples.length > 0 && (
            <Text size="sm" ff="monospace" c="dimmed" style={WRAP}>
              {hit.samples.join(' · ')}
            </Text>
          )}
        </List.Item>
      ))}
    </List>
  );
}
