import { Button, Text } from '@mantine/core';
import { type FormEvent, useRef } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { CodeInput } from '../../../components/ui/CodeInput';
import { NoticeAlert } from '../../../components/ui/NoticeAlert';
import { useTranslation } from '../../../lib/i18n';
import { useCodeField } from '../../../lib/use-code-field';
import { useVerifyMfaCode } from '../api/verify-mfa-code';
import { restartNotice, type SignInStepProps } from '../sign-in-step';
import { AuthForm } from './AuthForm';

/**
 * The one-time-code form of a sign-in with MFA (SPEC §2.1, §5): numeric, 6 digits, required.
 * A wrong code says so; too many (429) or an expired sign-in go back to the login form.
 */
export function OneTimeCodeForm({ email, onStep, onCancel }: SignInStepProps) {
  const { t } = useTranslation();
  const verify = useVerifyMfaCode();
  const field = useCodeField({ focusOnMount: true });
  const formRef = useRef<HTMLFormElement>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = field.validated();
    if (!code) return;
    verify.mutate(code, {
      onSuccess: (answer) => (answer.success ? onStep(answer) : field.retry(true)),
      onError: (error) => {
        const notice = restartNotice(error);
        if (notice) onCancel(notice);
      },
    });
  };

  return (
    <AuthForm
      formRef={formRef}
      onSubmit={submit}
      title={t('auth.otp.title')}
      submitLabel={t('auth.otp.submit')}
      pending={verify.isPending}
      footer={
        <Button variant="subtle" onClick={() => onCancel(null)} fullWidth>
          {t('common.backToLogin')}
        </Button>
      }
    >
      <Text size="sm">{t('auth.otp.description', { email })}</Text>
      {verify.isError && !restartNotice(verify.error) && <ApiErrorAlert error={verify.error} />}
      {field.refused && <NoticeAlert tone="error">{t('auth.otp.invalidCode')}</NoticeAlert>}
      <CodeInput name="code" label={t('auth.otp.codeLabel')} {...field.inputProps} />
    </AuthForm>
  );
}
