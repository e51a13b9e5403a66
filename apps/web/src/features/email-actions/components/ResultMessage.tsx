import { Group, Loader, Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export type ResultTone = 'error' | 'progress' | 'success' | 'info';

/**
 * The result panel of the public pages: an error (announced at once), progress, a success or an
 * information (announced politely).
 */
export function ResultMessage({ tone, children }: { tone: ResultTone; children: ReactNode }) {
  if (tone === 'progress') {
    return (
      <Group gap="sm" wrap="nowrap" role="status">
        <Loader size="sm" />
        <Text>{children}</Text>
      </Group>
    );
  }
  return (
    <Paper
      withBorder
      p="md"
      role={tone === 'error' ? 'alert' : 'status'}
      className={`result-message result-message--${tone}`}
    >
      {typeof children === 'string' ? (
        <Text c={tone === 'error' ? 'var(--mantine-color-error)' : undefined}>{children}</Text>
      ) : (
        children
      )}
    </Paper>
  );
}
