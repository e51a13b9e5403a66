import { Button, Progress, Text } from '@mantine/core';
import type { LearningMode } from '@moat/contracts/console';
import { useState } from 'react';
import { lazyDialog } from '../../../components/ui/lazy-dialog';
import { useTranslation } from '../../../lib/i18n';
import { useBannerPhase } from '../use-banner-phase';
import { BannerCard } from './BannerCard';

const LearningDetailsDialog = lazyDialog(() =>
  import('./LearningDetailsDialog').then((m) => m.LearningDetailsDialog),
);

/** Below this, learning is still going on and the banner shows (SPEC §4 "Banners"). */
export const LEARNING_COMPLETE = 100;

/**
 * The learning-mode banner (SPEC §2.4, §4): the learning progress and a dialog whose title, text
 * and link the server supplies. Shown only while progress_number is under 100.
 */
export function LearningBanner({ learning }: { learning: LearningMode }) {
  const { t } = useTranslation();
  const { phase, dismiss } = useBannerPhase(learning.progress_number < LEARNING_COMPLETE);
  const [details, setDetails] = useState(false);

  return (
    <>
      <BannerCard
        phase={phase}
        label={t('banners.learning.label')}
        title={t('banners.learning.title')}
        onClose={dismiss}
      >
        <Text size="sm">{t('banners.learning.progress', { progress: learning.progress_number })}</Text>
        <Progress value={learning.progress_number} aria-label={t('banners.learning.progressLabel')} />
        <Button
          variant="light"
          size="compact-sm"
          onClick={() => setDetails(true)}
          style={{ alignSelf: 'flex-start' }}
        >
          {t('banners.learning.details')}
        </Button>
      </BannerCard>
      <LearningDetailsDialog learning={learning} opened={details} onClose={() => setDetails(false)} />
    </>
  );
}
