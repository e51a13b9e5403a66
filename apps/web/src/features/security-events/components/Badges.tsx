import { Badge } from '@mantine/core';
import { useTranslation } from '../../../lib/i18n';
import {
  EVENT_SEVERITY_COLOR,
  EVENT_SEVERITY_LABEL,
  EVENT_VERDICT_COLOR,
  EVENT_VERDICT_LABEL,
  labelOf,
} from '../labels';

/** An event's (or a finding's) verdict; a verdict the screen does not know is shown as written. */
export function VerdictBadge({ verdict }: { verdict: string }) {
  const { t } = useTranslation();
  const color = EVENT_VERDICT_COLOR[verdict as keyof typeof EVENT_VERDICT_COLOR] ?? 'gray';
  return (
    <Badge variant="outline" color={color} className="quarantine-badge">
      {labelOf(EVENT_VERDICT_LABEL, verdict, t)}
    </Badge>
  );
}

export function SeverityBadge({ severity }: { severity: string }) {
  const { t } = useTranslation();
  const color = EVENT_SEVERITY_COLOR[severity as keyof typeof EVENT_SEVERITY_COLOR] ?? 'gray';
  return (
    <Badge variant="light" color={color} className="quarantine-badge">
      {labelOf(EVENT_SEVERITY_LABEL, severity, t)}
    </Badge>
  );
}
