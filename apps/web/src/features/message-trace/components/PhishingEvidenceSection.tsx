import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { PhishingExplanation } from '@moat/contracts/message-trace';
import { useTranslation } from '../../../lib/i18n';

/**
 * Why anti-phishing judged the message as it did (issue 35): each piece of evidence in words with
 * its points, added up against the phishing and suspicious marks.
 */
export function PhishingEvidenceSection({ phishing }: { phishing: PhishingExplanation }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const number = (n: number) => n.toLocaleString(lang, { maximumFractionDigits: 1 });
  const band =
    phishing.points >= phishing.thresholds.phishing
      ? 'phishing'
      : phishing.points >= phishing.thresholds.suspicious
        ? 'suspicious'
        : 'clean';
  return (
    <section aria-labelledby="trace-phishing">
      <Title order={2} size="h4" id="trace-phishing" mb="xs">
        {t('trace.phishing.title')}
      </Title>
      <Card withBorder padding="md">
        <Stack gap="sm">
          <Group gap="xs" wrap="wrap">
            <Badge
              variant="light"
              color={band === 'phishing' ? 'red' : band === 'suspicious' ? 'orange' : 'green'}
              className="quarantine-badge"
              data-testid="phishing-points"
            >
              {t('trace.phishing.points', { points: number(phishing.points) })}
            </Badge>
            <Text size="sm" c="dimmed">
              {t('trace.phishing.thresholds', {
                suspicious: number(phishing.thresholds.suspicious),
                phishing: number(phishing.thresholds.phishing),
              })}
            </Text>
          </Group>
          <ul className="spam-rules">
            {phishing.rules.map((rule, index) => (
              // Two pieces of evidence may share a rule name only in rows written by hand; the order is stable.
              // biome-ignore lint/suspicious/noArrayIndexKey: evidence has no id of its own
              <li key={index}>
                <Group gap="xs" wrap="nowrap" align="flex-start">
                  <Text size="sm" fw={600} className="spam-rules__points" data-sign="up">
                    +{number(rule.score)}
                  </Text>
                  <div style={{ minWidth: 0 }}>
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {rule.description}
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
        </Stack>
      </Card>
    </section>
  );
}
