import { Button, Text } from '@mantine/core';
import { useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useForm } from '../../../lib/use-form';
import { logout } from '../api/logout';
import { useReplaceOneTimePassword } from '../api/replace-one-time-password';
import type { SignInStepProps } from '../sign-in-step';
import { validateResetPassword } from '../validation';
import { AuthForm } from './AuthForm';
import { NewPasswordFields } from './NewPasswordFields';

/** The API's field errors of this form, on its fields. */
const SERVER_FIELDS = {
  new_password: { field: 'newPassword', message: { key: 'validation.password_unchanged' } },
} as const;

/** The server's refusal of the one-time password itself as the new one. */
const isUnchanged = (error: unknown) =>
  isApiError(error) && (error.details ?? []).some((detail) => detail.message === 'password_unchanged');

/**
 * The sign-in step of a one-time password (the first admin's, generated at first start): the
 * session it opened can do nothing else until a new password is chosen — at least 8 characters,
 * confirmed, not the one-time password. Signing out instead ends that session.
 */
export function PasswordChangeForm({ email, onStep, onCancel }: SignInStepProps) {
  const { t } = useTranslation();
  const replace = useReplaceOneTimePassword();
  const [signingOut, setSigningOut] = useState(false);
  const form = useForm({
    initialValues: { newPassword: '', confirmPassword: '' },
    validate: validateResetPassword,
  });

  const submit = form.onSubmit(({ newPassword, confirmPassword }) => {
    replace.mutate(
      { new_password: newPassword, confirm_password: confirmPassword },
      {
        onSuccess: onStep,
        onError: (error) => {
          if (!isApiError(error)) return;
          if (isUnchanged(error)) form.setServerErrors(error, SERVER_FIELDS);
          // The session ended meanwhile (idle, signed out elsewhere): sign in again.
          if (error.code === 'forbidden' || error.status === 401) onCancel('auth.login.sessionEnded');
        },
      },
    );
  });

  const signOut = () => {
    setSigningOut(true);
    logout()
      .catch(() => {
        // Signed out or not, the sign-in starts again.
      })
      .finally(() => onCancel(null));
  };

  const fieldError = isUnchanged(replace.error);
  return (
    <AuthForm
      formRef={form.formRef}
      onSubmit={submit}
      title={t('firstSignIn.title')}
      submitLabel={t('firstSignIn.submit')}
      pending={replace.isPending}
      footer={
        <Button variant="subtle" onClick={signOut} loading={signingOut} fullWidth>
          {t('firstSignIn.signOut')}
        </Button>
      }
    >
      <Text size="sm">
        {email ? t('firstSignIn.description', { email }) : t('firstSignIn.descriptionNoEmail')}
      </Text>
      {replace.isError && !fieldError && <ApiErrorAlert error={replace.error} />}
      {/* For password managers: the account the new password belongs to. */}
      {email && <input type="hidden" name="username" autoComplete="username" value={email} readOnly />}
      <NewPasswordFields form={form} />
    </AuthForm>
  );
}
