import { Button } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { useRouteError } from 'react-router';
import { ApiErrorAlert } from '../components/ui/ApiErrorAlert';
import { CenteredPage } from '../components/ui/CenteredPage';
import { MessagePanel } from '../components/ui/MessagePanel';
import { useTranslation } from '../lib/i18n';

/** What a route shows when its loader or component fails: the mapped message and a way on. */
export function RouteErrorPage() {
  const { t } = useTranslation();
  const error = useRouteError();
  return (
    <CenteredPage>
      <MessagePanel
        title={t('errors.route.title')}
        description={t('errors.route.description')}
        link={{ to: ROUTES.auth.login, label: t('common.goToLogin') }}
      >
        <ApiErrorAlert error={error} />
        <Button onClick={() => window.location.reload()}>{t('common.reload')}</Button>
      </MessagePanel>
    </CenteredPage>
  );
}
