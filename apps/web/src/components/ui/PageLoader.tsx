import { Loader, VisuallyHidden } from '@mantine/core';
import { PAGE_LOADER_FADE_MS } from '@moat/contracts/constants';
import { useEffect, useState } from 'react';
import { useTranslation } from '../../lib/i18n';

/**
 * A full-page loader that covers the page until `done`, then fades out over PAGE_LOADER_FADE_MS
 * (SPEC §9) and leaves the DOM.
 */
export function PageLoader({ done }: { done: boolean }) {
  const { t } = useTranslation();
  const [present, setPresent] = useState(true);

  useEffect(() => {
    if (!done) {
      setPresent(true);
      return;
    }
    const timer = window.setTimeout(() => setPresent(false), PAGE_LOADER_FADE_MS);
    return () => window.clearTimeout(timer);
  }, [done]);

  if (!present) return null;
  return (
    <div
      className="page-loader"
      data-done={done || undefined}
      aria-hidden={done || undefined}
      style={{ transitionDuration: `${PAGE_LOADER_FADE_MS}ms` }}
    >
      <Loader />
      {!done && <VisuallyHidden role="status">{t('app.loading')}</VisuallyHidden>}
    </div>
  );
}
