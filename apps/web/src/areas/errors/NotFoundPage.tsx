import { ROUTES } from '@moat/contracts/routes';
import { CenteredPage } from '../../components/ui/CenteredPage';
import { MessagePanel } from '../../components/ui/MessagePanel';
import { usePublicFeatures } from '../../features/public-settings/api/get-public-features';
import { useTranslation } from '../../lib/i18n';

/** The not-found message; the checkpoint theme has its own wording (SPEC §2.3). */
export function NotFoundMessage() {
  const { t } = useTranslation();
  const features = usePublicFeatures();
  const title = features.data?.checkpointTheme
    ? t('errors.notFound.checkpointTitle')
    : t('errors.notFound.title');
  return (
    <MessagePanel
      title={title}
      description={t('errors.notFound.description')}
      link={{ to: ROUTES.auth.login, label: t('common.goToLogin') }}
    />
  );
}

/** Any path no route matches. */
export function NotFoundPage() {
  return (
    <CenteredPage>
      <NotFoundMessage />
    </CenteredPage>
  );
}
