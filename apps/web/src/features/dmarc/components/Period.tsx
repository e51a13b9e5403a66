import { Anchor, Group, SegmentedControl, Text } from '@mantine/core';
import { OVERVIEW_DAYS } from '@moat/contracts/dmarc';
import { Link, useSearchParams } from 'react-router';
import {
  daysOfRange,
  decodeDrillDown,
  drillDownHref,
  encodeDrillDown,
  rangeOfDays,
} from '../../../lib/drill-down';
import { useTranslation } from '../../../lib/i18n';

/**
 * The period and domain a DMARC screen shows, from its drill-down (the navigation opens on the
 * last month): the choice of period is written back to the address, so a link keeps it.
 */
export function useDrillPeriod() {
  const [params, setParams] = useSearchParams();
  const drill = decodeDrillDown(params.get('drillDown'));
  const days = daysOfRange(drill.dateRange) ?? 30;
  const choose = (value: string) => {
    const range = rangeOfDays(Number(value));
    const next = new URLSearchParams(params);
    next.set('drillDown', encodeDrillDown({ ...drill, ...(range ? { dateRange: range } : {}) }));
    setParams(next, { replace: true });
  };
  return { days, range: rangeOfDays(days), only: drill.domain?.toLowerCase(), choose };
}

/** The period's choice: 7, 30 or 90 days, or a year. */
export function PeriodControl({ days, onChange }: { days: number; onChange: (value: string) => void }) {
  const { t } = useTranslation();
  return (
    <SegmentedControl
      aria-label={t('dmarc.overview.period')}
      fullWidth
      style={{ flex: '0 1 22rem' }}
      value={String(days)}
      onChange={onChange}
      data={OVERVIEW_DAYS.map((d) => ({ value: String(d), label: t(`dmarc.overview.days.${d}`) }))}
    />
  );
}

/** "Showing one domain only", with the way back to all of them on `path`. */
export function OnlyDomain({
  domain,
  path,
  days,
}: {
  domain: string | undefined;
  path: string;
  days: number;
}) {
  const { t } = useTranslation();
  if (!domain) return null;
  return (
    <Group gap="xs">
      <Text size="sm">{t('dmarc.overview.onlyDomain', { domain })}</Text>
      <Anchor component={Link} to={drillDownHref(path, { dateRange: rangeOfDays(days) })} size="sm">
        {t('dmarc.overview.allDomains')}
      </Anchor>
    </Group>
  );
}
