import { Button, EmptyState } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { Link } from 'react-router';
import { useTranslation } from '../../lib/i18n';

/**
 * The no-access page (SPEC §2.5): where the shell's guards send a user who opened a page their
 * role or permissions do not give them (an admin-only page, Policy without policy access).
 */
export function NoAccessScreen() {
  const { t } = useTranslation();
  return (
    <EmptyState
      title={t('shell.noAccess.title')}
      description={t('shell.noAccess.description')}
      withIndicatorBackground
    >
      <Button component={Link} to={ROUTES.dashboard} variant="light">
        {t('shell.noAccess.toOverview')}
      </Button>
    </EmptyState>
  );
}
