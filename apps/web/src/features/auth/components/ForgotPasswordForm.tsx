import { Text, TextInput } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { InfoDialog } from '../../../components/ui/InfoDialog';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useForm } from '../../../lib/use-form';
import { useForgotPassword } from '../api/forgot-password';
import { useCaptcha } from '../captcha/use-captcha';
import { validateForgotPassword } from '../validation';
import { AuthForm } from './AuthForm';
import { AuthNotice } from './AuthNotice';
import { BackToLoginLink } from './BackToLoginLink';

/**
 * Forgot password (SPEC §2.1, §8): email and captcha; the success message after sending. An
 * answer with success false shows the reset-error dialog; a failed call shows nothing (the page
 * tells nobody whether an account exists), except a failed captcha, which the user can act on.
 */
export function ForgotPasswordForm() {
  const { t } = useTranslation();
  const forgot = useForgotPassword();
  const captcha = useCaptcha();
  const [failedOpen, setFailedOpen] = useState(false);
  const form = useForm({ initialValues: { email: '' }, validate: validateForgotPassword });

  const submit = form.onSubmit(async ({ email }) => {
    const recaptchaToken = await captcha.takeToken();
    forgot.mutate(
      { email: email.trim(), recaptcha_token: recaptchaToken },
      { onSuccess: ({ success }) => setFailedOpen(!success) },
    );
  });

  if (forgot.data?.success) {
    return (
      <AuthNotice
        title={t('auth.forgotPassword.title')}
        message={t('auth.forgotPassword.success')}
        tone="success"
        link={{ to: ROUTES.auth.login, label: t('common.backToLogin') }}
      />
    );
  }

  const captchaFailed = isApiError(forgot.error) && forgot.error.code === 'captcha_failed';
  return (
    <>
      <AuthForm
        formRef={form.formRef}
        onSubmit={submit}
        title={t('auth.forgotPassword.title')}
        submitLabel={t('auth.forgotPassword.submit')}
        pending={captcha.solving || forgot.isPending}
        footer={<BackToLoginLink />}
      >
        <Text size="sm">{t('auth.forgotPassword.description')}</Text>
        {captchaFailed && <ApiErrorAlert error={forgot.error} />}
        <TextInput
          {...form.inputProps('email')}
          type="email"
          label={t('auth.forgotPassword.email')}
          autoComplete="email"
          required
          error={form.errorOf('email')}
        />
      </AuthForm>
      <InfoDialog
        opened={failedOpen}
        onClose={() => setFailedOpen(false)}
        title={t('auth.forgotPassword.failedTitle')}
      >
        {t('auth.forgotPassword.failed')}
      </InfoDialog>
    </>
  );
}
