import { Anchor } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { Link } from 'react-router';
import { useTranslation } from '../../../lib/i18n';

export function BackToLoginLink() {
  const { t } = useTranslation();
  return (
    <Anchor component={Link} to={ROUTES.auth.login} size="sm">
      {t('common.backToLogin')}
    </Anchor>
  );
}
