import { Badge, Group, Text } from '@mantine/core';
import type { ScoredRule } from '@moat/contracts/message-trace';
import type { ReactNode } from 'react';

/** Points as the trace shows them: signed, in the reader's locale. */
export const signedPoints = (n: number, lang: string) =>
  `${n > 0 ? '+' : ''}${n.toLocaleString(lang, { maximumFractionDigits: 2 })}`;

/** A scoring engine's rules, or anti-phishing's evidence: each with its points, its words and its name. */
export function ScoredRules({ rules, lang }: { rules: ScoredRule[]; lang: string }) {
  return (
    <ul className="spam-rules">
      {rules.map((rule, index) => (
        // Rules have no id of their own; the server's order is stable.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <li key={`${rule.name}-${index}`}>
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <Text
              size="sm"
              fw={600}
              className="spam-rules__points"
              data-sign={rule.score > 0 ? 'up' : rule.score < 0 ? 'down' : 'none'}
            >
              {signedPoints(rule.score, lang)}
            </Text>
            <div style={{ minWidth: 0 }}>
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {rule.description || rule.name}
              </Text>
              {rule.name && (
                <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {rule.name}
                </Text>
              )}
            </div>
          </Group>
        </li>
      ))}
    </ul>
  );
}

/**
 * A score's badge, coloured by the band it falls in: red from `high` (spam, phishing), orange from
 * `low` (suspicious), green below.
 */
export function BandBadge({
  score,
  low,
  high,
  testId,
  children,
}: {
  score: number;
  low: number;
  high: number;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Badge
      variant="light"
      color={score >= high ? 'red' : score >= low ? 'orange' : 'green'}
      className="quarantine-badge"
      data-testid={testId}
    >
      {children}
    </Badge>
  );
}
