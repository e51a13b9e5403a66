import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { PhishingExplanation } from '@moat/contracts/message-trace';
import { useTranslation } from '../../../lib/i18n';
import { ScoredRules } from './ScoredRules';

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
          <ScoredRules rules={phishing.rules} lang={lang} />
        </Stack>
      </Card>
    </section>
  );
}
