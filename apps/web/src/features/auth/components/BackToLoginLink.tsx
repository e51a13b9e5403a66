import { Anchor } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export function BackToLoginLink() {
  const { t } = useTranslation();
  return (
    <Anchor component={Link} to={ROUTES.auth.login} size="sm">
      {t('common.backToLogin')}
    </Anchor>
  );
}
