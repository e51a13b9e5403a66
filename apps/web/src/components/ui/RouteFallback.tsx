import { Center, Loader, VisuallyHidden } from '@mantine/core';
import { useTranslation } from '../../lib/i18n';

/** Shown while a lazy area loads. */
export function RouteFallback() {
  const { t } = useTranslation();
  return (
    <Center mih="50vh" role="status">
      <Loader />
      <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
    </Center>
  );
}
