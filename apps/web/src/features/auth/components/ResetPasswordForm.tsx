import { ROUTES } from '@moat/contracts/routes';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { useForm } from '../../../lib/use-form';
import { useResetPassword } from '../api/reset-password';
import { validateResetPassword } from '../validation';
import { AuthForm } from './AuthForm';
import { AuthNotice } from './AuthNotice';
import { BackToLoginLink } from './BackToLoginLink';
import { NewPasswordFields } from './NewPasswordFields';

export function ResetPasswordForm({ token }: { token: string }) {
  const { t } = useTranslation();
  const reset = useResetPassword();
  const form = useForm({
    initialValues: { newPassword: '', confirmPassword: '' },
    validate: validateResetPassword,
  });

  const submit = form.onSubmit(({ newPassword }) => {
    reset.mutate({ token, newPassword });
  });

  if (reset.data?.success) {
    return (
      <AuthNotice
        title={t('auth.resetPassword.title')}
        message={t('auth.resetPassword.success')}
        tone="success"
        link={{ to: ROUTES.auth.login, label: t('common.goToLogin') }}
      />
    );
  }

  return (
    <AuthForm
      formRef={form.formRef}
      onSubmit={submit}
      title={t('auth.resetPassword.title')}
      submitLabel={t('auth.resetPassword.submit')}
      pending={reset.isPending}
      footer={<BackToLoginLink />}
    >
      {reset.isError && <ApiErrorAlert error={reset.error} showServerMessage />}
      {reset.data?.success === false && <ApiErrorAlert error={null} messageKey="errors.api.bad_request" />}
      <NewPasswordFields form={form} />
    </AuthForm>
  );
}
