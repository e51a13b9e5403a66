import { ROUTES } from '@moat/contracts/routes';
import { useSearchParams } from 'react-router';
import { AuthNotice } from '../../features/auth/components/AuthNotice';
import { ResetPasswordForm } from '../../features/auth/components/ResetPasswordForm';
import { useTranslation } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

export function ResetPasswordPage() {
  const { t } = useTranslation();
  useDocumentTitle(t('auth.resetPassword.title'));
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token');

  if (!token) {
    return (
      <AuthNotice
        title={t('auth.resetPassword.title')}
        message={t('auth.resetPassword.missingToken')}
        tone="error"
        link={{ to: ROUTES.auth.forgotPassword, label: t('auth.resetPassword.requestNewLink') }}
      />
    );
  }
  return <ResetPasswordForm token={token} />;
}
