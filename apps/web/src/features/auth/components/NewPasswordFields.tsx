import { PasswordInput } from '@mantine/core';
import { useTranslation } from '../../../lib/i18n';
import type { InputBinding } from '../../../lib/use-form';

type Field = 'newPassword' | 'confirmPassword';

/** New password and its confirmation, shared by reset-password and password-expired. */
export function NewPasswordFields({
  form,
}: {
  form: { inputProps: (name: Field) => InputBinding; errorOf: (name: Field) => string | undefined };
}) {
  const { t } = useTranslation();
  return (
    <>
      <PasswordInput
        {...form.inputProps('newPassword')}
        label={t('auth.passwordFields.newPassword')}
        autoComplete="new-password"
        required
        error={form.errorOf('newPassword')}
      />
      <PasswordInput
        {...form.inputProps('confirmPassword')}
        label={t('auth.passwordFields.confirmPassword')}
        autoComplete="new-password"
        required
        error={form.errorOf('confirmPassword')}
      />
    </>
  );
}
