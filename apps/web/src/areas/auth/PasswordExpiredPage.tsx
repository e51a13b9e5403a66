import { ROUTES } from '@moat/contracts/routes';
import { useNavigate, useParams } from 'react-router';
import { PasswordExpiredForm } from '../../features/auth/components/PasswordExpiredForm';
import { useTranslation } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

export function PasswordExpiredPage() {
  const { t } = useTranslation();
  useDocumentTitle(t('auth.passwordExpired.title'));
  const navigate = useNavigate();
  const { email = '' } = useParams();
  return (
    <PasswordExpiredForm email={email} onChanged={() => navigate(ROUTES.auth.login, { replace: true })} />
  );
}
