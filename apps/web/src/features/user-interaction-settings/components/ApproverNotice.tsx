import { Alert, Anchor } from '@mantine/core';
import { INTERACTION_SETTINGS_ROUTES } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { useQuarantineSettings } from '../api/quarantine-settings';

/**
 * Above Restore Requests: when the organisation named who decides them and the signed-in admin is
 * not one of them, who is (the API refuses anyone else's decision).
 */
export function ApproverNotice() {
  const { t } = useTranslation();
  const settings = useQuarantineSettings();
  const me = useQuery(currentUserQueryOptions()).data;
  const s = settings.data;
  if (!s || !me || s.approvers !== 'named' || s.approver_ids.includes(me.id)) return null;
  const names = s.approver_candidates
    .filter((c) => s.approver_ids.includes(c.id))
    .map((c) => c.name || c.email)
    .join(', ');
  return (
    <Alert color="blue" variant="light" title={t('interactionSettings.approverNotice.title')}>
      {t('interactionSettings.approverNotice.text', { names })}{' '}
      <Anchor component={Link} to={INTERACTION_SETTINGS_ROUTES.quarantine} size="sm" underline="always">
        {t('interactionSettings.approverNotice.link')}
      </Anchor>
    </Alert>
  );
}
