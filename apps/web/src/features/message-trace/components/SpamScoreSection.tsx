import { Alert, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { SpamExplanation } from '@moat/contracts/message-trace';
import type { SpamLabel } from '@moat/contracts/spam-learning';
import { engineText } from '../../../lib/engine-words';
import { useTranslation } from '../../../lib/i18n';
import { useLearnMessage } from '../api/learn-message';
import { BandBadge, ScoredRules, signedPoints } from './ScoredRules';

/**
 * Why the message's spam score is what it is (issue 13): each scoring engine's rules with their
 * points, the thresholds, and the admin's "spam / not spam" that teaches the engine.
 */
/** How one engine's score counted: as it is, weighted, or not at all (its rules were within the make-up). */
const spamEngineKey = (weight: number) =>
  weight === 1
    ? 'trace.spam.engine'
    : weight === 0
      ? 'trace.spam.engineNotCounted'
      : 'trace.spam.engineWeighted';

export function SpamScoreSection({
  spam,
  by,
}: {
  spam: SpamExplanation;
  by: { mailLogId: string } | { heldId: string };
}) {
  const { t, i18n } = useTranslation();
  const learn = useLearnMessage(by);
  const mark = (label: SpamLabel) => learn.mutate(label);
  const lang = i18n.language;
  return (
    <section aria-labelledby="trace-spam">
      <Title order={2} size="h4" id="trace-spam" mb="xs">
        {t('trace.spam.title')}
      </Title>
      <Card withBorder padding="md">
        <Stack gap="sm">
          <Group gap="xs" wrap="wrap">
            <BandBadge
              score={spam.score}
              low={spam.thresholds.suspicious}
              high={spam.thresholds.spam}
              testId="spam-score"
            >
              {t('trace.spam.score', {
                score: spam.score.toLocaleString(lang, { maximumFractionDigits: 2 }),
              })}
            </BandBadge>
            <Text size="sm" c="dimmed">
              {t('trace.spam.thresholds', {
                suspicious: spam.thresholds.suspicious.toLocaleString(lang),
                spam: spam.thresholds.spam.toLocaleString(lang),
              })}
            </Text>
          </Group>
          {spam.engines.map((engine) => (
            <Stack key={engine.engine} gap={6} data-engine={engine.engine}>
              <Text size="sm" fw={600}>
                {t(spamEngineKey(engine.weight), {
                  engine: engineText(engine.engine, t, lang),
                  score: signedPoints(engine.score, lang),
                  weight: engine.weight.toLocaleString(lang),
                })}
              </Text>
              {engine.rules.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {t('trace.spam.noRules')}
                </Text>
              ) : (
                <ScoredRules rules={engine.rules} lang={lang} />
              )}
            </Stack>
          ))}
          {spam.learnable ? (
            <Group gap="xs" wrap="wrap">
              {spam.learned && (
                <Text size="sm" data-testid="spam-learned">
                  {t(spam.learned === 'spam' ? 'trace.spam.learnedSpam' : 'trace.spam.learnedHam')}
                </Text>
              )}
              <Button
                size="xs"
                variant="default"
                loading={learn.isPending && learn.variables === 'spam'}
                disabled={spam.learned === 'spam'}
                onClick={() => mark('spam')}
              >
                {t('trace.spam.markSpam')}
              </Button>
              <Button
                size="xs"
                variant="default"
                loading={learn.isPending && learn.variables === 'ham'}
                disabled={spam.learned === 'ham'}
                onClick={() => mark('ham')}
              >
                {t('trace.spam.markHam')}
              </Button>
            </Group>
          ) : (
            <Text size="sm" c="dimmed">
              {t('trace.spam.notLearnable')}
            </Text>
          )}
          {learn.isError && (
            <Alert color="red" role="alert">
              {learn.error.message}
            </Alert>
          )}
        </Stack>
      </Card>
    </section>
  );
}
