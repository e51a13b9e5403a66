import { Card, Group, Stack, Text, Title } from '@mantine/core';
import type { PhishingExplanation } from '@moat/contracts/message-trace';
import { useTranslation } from '../../../lib/i18n';
import { BandBadge, ScoredRules } from './ScoredRules';

/**
 * Why anti-phishing judged the message as it did (issue 35): each piece of evidence in words with
 * its points, added up against the phishing and suspicious marks.
 */
export function PhishingEvidenceSection({ phishing }: { phishing: PhishingExplanation }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const number = (n: number) => n.toLocaleString(lang, { maximumFractionDigits: 1 });
  return (
    <section aria-labelledby="trace-phishing">
      <Title order={2} size="h4" id="trace-phishing" mb="xs">
        {t('trace.phishing.title')}
      </Title>
      <Card withBorder padding="md">
        <Stack gap="sm">
          <Group gap="xs" wrap="wrap">
            <BandBadge
              score={phishing.points}
              low={phishing.thresholds.suspicious}
              high={phishing.thresholds.phishing}
              testId="phishing-points"
            >
              {t('trace.phishing.points', { points: number(phishing.points) })}
            </BandBadge>
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
