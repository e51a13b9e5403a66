import { useMediaQuery } from '@mantine/hooks';
import type { LearningMode } from '@moat/contracts/console';
import { BANNERS_MIN_WIDTH_PX } from '@moat/contracts/constants';
import { useTranslation } from '../../../lib/i18n';
import { LearningBanner } from './LearningBanner';
import { WelcomeBanner } from './WelcomeBanner';
import '../banners.css';

/**
 * The welcome and learning banners (SPEC §2.4 "Banners", §4), at the top of the page in its flow
 * (never over the page's content); not on
 * screens narrower than BANNERS_MIN_WIDTH_PX. `learning` is given only while enableLearningMode is on.
 */
export function Banners({
  userId,
  supportEmail,
  learning,
}: {
  userId: string;
  supportEmail: string | null;
  learning: LearningMode | null;
}) {
  const { t } = useTranslation();
  const wide = useMediaQuery(`(min-width: ${BANNERS_MIN_WIDTH_PX}px)`, false, {
    getInitialValueInEffect: false,
  });
  if (!wide) return null;
  return (
    <aside className="moat-banners" aria-label={t('banners.region')}>
      {learning && <LearningBanner learning={learning} />}
      <WelcomeBanner userId={userId} supportEmail={supportEmail} />
    </aside>
  );
}
