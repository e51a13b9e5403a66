import { useEffect } from 'react';
import { useTranslation } from './i18n';

/** Sets the browser tab title to "<title> - <app name>" while the calling page is shown. */
export function useDocumentTitle(title: string): void {
  const { t } = useTranslation();
  const full = t('app.documentTitle', { title });
  useEffect(() => {
    document.title = full;
  }, [full]);
}
