import { ForgotPasswordForm } from '../../features/auth/components/ForgotPasswordForm';
import { useTranslation } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

export function ForgotPasswordPage() {
  const { t } = useTranslation();
  useDocumentTitle(t('auth.forgotPassword.title'));
  return <ForgotPasswordForm />;
}
