import { ROUTES } from '@moat/contracts/routes';
import type { ReactNode } from 'react';
import type { TranslationKey } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';
import { PageFrame } from '../shell/PageFrame';

/** A screen of the User Interaction area: Home / User Interaction / its title. */
export function UserInteractionFrame({
  titleKey,
  children,
}: {
  titleKey: TranslationKey;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const title = t(titleKey);
  return (
    <PageFrame
      title={title}
      trail={[
        { label: t('common.home'), to: ROUTES.dashboard },
        { label: t('shell.areas.userInteraction'), to: ROUTES.userInteraction },
        { label: title },
      ]}
    >
      {children}
    </PageFrame>
  );
}
