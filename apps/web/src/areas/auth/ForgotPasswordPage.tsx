import { useTranslation } from 'react-i18next';
import { ForgotPasswordForm } from '../../features/auth/components/ForgotPasswordForm';
import { useDocumentTitle } from '../../lib/use-document-title';

export function ForgotPasswordPage() {
  const { t } = useTranslation();
  useDocumentTitle(t('auth.forgotPassword.title'));
  return <ForgotPasswordForm />;
}
