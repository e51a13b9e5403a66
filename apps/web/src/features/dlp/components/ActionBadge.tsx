import { Badge } from '@mantine/core';
import type { DlpAction } from '@moat/contracts/dlp';
import { useTranslation } from '../../../lib/i18n';
import { ACTION_COLOR, ACTION_LABEL } from '../labels';

/** What DLP does with a hit of a type or rule, in words; "Off" when it is not checked. */
export function ActionBadge({ action, off = false }: { action: DlpAction; off?: boolean }) {
  const { t } = useTranslation();
  return (
    <Badge
      className="quarantine-badge"
      variant="light"
      size="sm"
      tt="none"
      color={off ? 'gray' : ACTION_COLOR[action]}
    >
      {off ? t('dlp.off') : t(ACTION_LABEL[action])}
    </Badge>
  );
}
