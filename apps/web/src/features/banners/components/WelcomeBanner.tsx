import { Anchor, Button, Collapse, Group, Text } from '@mantine/core';
import { useId, useState } from 'react';
import { useTranslation } from '../../../lib/i18n';
import { useBannerPhase } from '../use-banner-phase';
import { hideWelcomeBanner, isWelcomeBannerHidden } from '../welcome-dismissal';
import { BannerCard } from './BannerCard';

/**
 * The welcome banner (SPEC §2.4 "Banners"): read more, contact support (a mail to the
 * deployment's support address), and don't show again (remembered for this user in this browser).
 */
export function WelcomeBanner({ userId, supportEmail }: { userId: string; supportEmail: string | null }) {
  const { t } = useTranslation();
  const [hidden] = useState(() => isWelcomeBannerHidden(userId));
  const { phase, dismiss } = useBannerPhase(!hidden);
  const [more, setMore] = useState(false);
  const moreId = useId();

  return (
    <BannerCard
      phase={phase}
      label={t('banners.welcome.label')}
      title={t('banners.welcome.title')}
      onClose={dismiss}
    >
      <Text size="sm">{t('banners.welcome.text')}</Text>
      <Collapse expanded={more} id={moreId}>
        <Text size="sm">{t('banners.welcome.more')}</Text>
      </Collapse>
      <Group gap="xs" justify="space-between" wrap="wrap">
        <Button
          variant="subtle"
          size="compact-sm"
          aria-expanded={more}
          aria-controls={moreId}
          onClick={() => setMore((open) => !open)}
        >
          {more ? t('banners.welcome.readLess') : t('banners.welcome.readMore')}
        </Button>
        {supportEmail ? (
          <Anchor size="sm" href={`mailto:${supportEmail}`}>
            {t('banners.welcome.contactSupport')}
          </Anchor>
        ) : (
          <Text size="sm" c="dimmed">
            {t('banners.welcome.noSupportAddress')}
          </Text>
        )}
        <Button
          variant="default"
          size="compact-sm"
          onClick={() => {
            hideWelcomeBanner(userId);
            dismiss();
          }}
        >
          {t('banners.welcome.dontShowAgain')}
        </Button>
      </Group>
    </BannerCard>
  );
}
