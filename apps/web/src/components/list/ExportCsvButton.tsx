import { Button } from '@mantine/core';
import { buildUrl, type QueryParams } from '../../lib/http';
import { useTranslation } from '../../lib/i18n';

/**
 * Downloads the list as CSV under its current filters and sort: a plain link to the export
 * endpoint (a GET the session cookie authorises), so the browser saves the file itself.
 */
export function ExportCsvButton({
  path,
  query,
  total,
}: {
  path: string;
  query: QueryParams;
  /** How many rows the list holds; nothing to export (or not known yet) disables the button. */
  total: number | undefined;
}) {
  const { t } = useTranslation();
  if (!total) {
    return (
      <Button size="sm" variant="default" disabled>
        {t('list.exportCsv')}
      </Button>
    );
  }
  return (
    <Button component="a" href={buildUrl(path, query)} download size="sm" variant="default">
      {t('list.exportCsv')}
    </Button>
  );
}
