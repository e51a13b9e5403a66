import { Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { useState } from 'react';
import { ApiErrorMessage } from '../../../components/ui/ApiErrorAlert';
import { InfoDialog } from '../../../components/ui/InfoDialog';
import { useTranslation } from '../../../lib/i18n';
import { useForm } from '../../../lib/use-form';
import { useChangeExpiredPassword } from '../api/change-expired-password';
import { validatePasswordExpired } from '../validation';
import { AuthForm } from './AuthForm';
import { BackToLoginLink } from './BackToLoginLink';
import { NewPasswordFields } from './NewPasswordFields';

/**
 * Replaces an expired password (SPEC §2.1, §8): on success a dialog confirms and leads to sign-in;
 * a failure opens an Error dialog with the reason and the server's message.
 */
export function PasswordExpiredForm({ email, onChanged }: { email: string; onChanged: () => void }) {
  const { t } = useTranslation();
  const change = useChangeExpiredPassword();
  const [errorOpen, setErrorOpen] = useState(false);
  const form = useForm({
    initialValues: { currentPassword: '', newPassword: '', confirmPassword: '' },
    validate: validatePasswordExpired,
  });

  const submit = form.onSubmit(({ currentPassword, newPassword, confirmPassword }) => {
    change.mutate(
      {
        email,
        current_password: currentPassword,
        new_password: newPassword,
        confirm_password: confirmPassword,
      },
      {
        onSuccess: ({ success }) => setErrorOpen(!success),
        onError: () => setErrorOpen(true),
      },
    );
  });

  return (
    <>
      <AuthForm
        formRef={form.formRef}
        onSubmit={submit}
        title={t('auth.passwordExpired.title')}
        submitLabel={t('auth.passwordExpired.submit')}
        pending={change.isPending}
        footer={<BackToLoginLink />}
      >
        <Text size="sm">{t('auth.passwordExpired.description', { email })}</Text>
        <PasswordInput
          {...form.inputProps('currentPassword')}
          label={t('auth.passwordExpired.currentPassword')}
          autoComplete="current-password"
          required
          error={form.errorOf('currentPassword')}
        />
        <NewPasswordFields form={form} />
      </AuthForm>
      <InfoDialog
        opened={errorOpen}
        onClose={() => setErrorOpen(false)}
        title={t('auth.passwordExpired.errorTitle')}
      >
        <ApiErrorMessage
          error={change.error}
          messageKey={change.isError ? undefined : 'errors.api.bad_request'}
          showServerMessage
        />
      </InfoDialog>
      <Modal
        opened={change.data?.success === true}
        onClose={onChanged}
        title={t('auth.passwordExpired.successTitle')}
        size={DIALOG_WIDTH.small}
        closeButtonProps={{ 'aria-label': t('common.close') }}
        centered
      >
        <Stack gap="md">
          <Text>{t('auth.passwordExpired.success')}</Text>
          <Group justify="flex-end">
            <Button onClick={onChanged} data-autofocus>
              {t('common.goToLogin')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
