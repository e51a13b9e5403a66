import { Badge } from '@mantine/core';
import type { RestoreStatus, Verdict } from '@moat/contracts/quarantine';
import { useTranslation } from '../../../lib/i18n';
import { RESTORE_STATUS_COLOR, RESTORE_STATUS_LABEL, VERDICT_COLOR, VERDICT_LABEL } from '../labels';

export function StatusBadge({ status }: { status: RestoreStatus }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={RESTORE_STATUS_COLOR[status]} className="quarantine-badge">
      {t(RESTORE_STATUS_LABEL[status])}
    </Badge>
  );
}

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  const { t } = useTranslation();
  return (
    <Badge variant="outline" color={VERDICT_COLOR[verdict]} className="quarantine-badge">
      {t(VERDICT_LABEL[verdict])}
    </Badge>
  );
}
