import { Button, Center, Group, Loader, Modal, Stack, Text, VisuallyHidden } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId } from 'react';
import { MfaEnrolment } from '../../../components/mfa/MfaEnrolment';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { NoticeAlert } from '../../../components/ui/NoticeAlert';
import { useTranslation } from '../../../lib/i18n';
import { useCodeField } from '../../../lib/use-code-field';
import { requiredMfaEnrolmentQueryOptions } from '../api/setup-mfa-public';
import { useVerifyMfaPublic } from '../api/verify-mfa-public';
import { restartNotice, type SignInStepProps } from '../sign-in-step';

/**
 * The MFA setup an admin requires, inside the sign-in (SPEC §4 "Login"), 616 px: after the
 * emailed code, the enrolment (QR code and secret) and its first code, which completes the sign-in.
 */
export function RequiredMfaSetupDialog({ email, onStep, onCancel }: SignInStepProps) {
  const { t } = useTranslation();
  const enrolment = useQuery(requiredMfaEnrolmentQueryOptions(email));
  const verify = useVerifyMfaPublic();
  const field = useCodeField();
  const titleId = useId();

  const enrolmentRestart = restartNotice(enrolment.error);
  useEffect(() => {
    if (enrolmentRestart) onCancel(enrolmentRestart);
  }, [enrolmentRestart, onCancel]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = field.validated();
    if (!enrolment.data || !code) return;
    verify.mutate(
      { code, userEmail: email, secret: enrolment.data.secret },
      {
        onSuccess: (answer) =>
          answer.success && answer.next === 'done' ? onStep(answer) : field.retry(true),
        onError: (error) => {
          const notice = restartNotice(error);
          if (notice) onCancel(notice);
        },
      },
    );
  };

  return (
    <Modal
      opened
      onClose={() => onCancel(null)}
      title={<span id={titleId}>{t('auth.requiredMfa.title')}</span>}
      size={DIALOG_WIDTH.mfaSetup}
      closeButtonProps={{ 'aria-label': t('common.close') }}
      closeOnClickOutside={false}
      centered
    >
      {enrolment.isPending && (
        <Center mih={160} role="status">
          <Loader />
          <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
        </Center>
      )}
      {enrolment.isError && !enrolmentRestart && <ApiErrorAlert error={enrolment.error} />}
      {enrolment.data && (
        <form onSubmit={submit} noValidate aria-labelledby={titleId}>
          <Stack gap="md">
            <Text size="sm">{t('auth.requiredMfa.description')}</Text>
            {field.refused && <NoticeAlert tone="error">{t('auth.otp.invalidCode')}</NoticeAlert>}
            {verify.isError && !restartNotice(verify.error) && <ApiErrorAlert error={verify.error} />}
            <MfaEnrolment enrolment={enrolment.data} codeField={field.inputProps} />
            <Group justify="flex-end">
              <Button type="submit" loading={verify.isPending}>
                {t('auth.requiredMfa.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
