import { Anchor, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { DIALOG_WIDTH, MAIL_VERIFICATION_MAX_ATTEMPTS } from '@moat/contracts/constants';
import { type FormEvent, useId, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { CodeInput } from '../../../components/ui/CodeInput';
import { NoticeAlert } from '../../../components/ui/NoticeAlert';
import { isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useCodeField } from '../../../lib/use-code-field';
import { useCountdown } from '../../../lib/use-countdown';
import { useSendMailVerification } from '../api/send-mail-verification';
import { useVerifyMailCode } from '../api/verify-mail-code';
import { restartNotice, type SignInStepProps } from '../sign-in-step';

/** What the dialog says after a verify or resend call. */
type Outcome = { key: TranslationKey; tone: 'error' | 'info' } | null;

/**
 * The mail verification code dialog (SPEC §2.1, §5), 700 px: the code was emailed when the login
 * answered `mail_verification`. A wrong code (403) counts; after MAIL_VERIFICATION_MAX_ATTEMPTS the
 * submit is disabled with the max-attempts message. "Send a new code" is hidden (a disabled label
 * counts down) until the server's wait_time has passed; a new code starts the count again.
 */
export function MailVerificationDialog({ email, onStep, onCancel }: SignInStepProps) {
  const { t } = useTranslation();
  const verify = useVerifyMailCode();
  const resend = useSendMailVerification();
  const countdown = useCountdown();
  const field = useCodeField();
  const [wrongAttempts, setWrongAttempts] = useState(0);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const titleId = useId();
  const maxedOut = wrongAttempts >= MAIL_VERIFICATION_MAX_ATTEMPTS;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = maxedOut ? null : field.validated();
    if (!code) return;
    setOutcome(null);
    verify.mutate(
      { email, code },
      {
        onSuccess: onStep,
        onError: (error) => {
          const notice = restartNotice(error);
          if (notice) {
            onCancel(notice);
            return;
          }
          if (!isApiError(error) || error.status !== 403) return;
          const attempts =
            error.code === 'max_attempts_reached' ? MAIL_VERIFICATION_MAX_ATTEMPTS : wrongAttempts + 1;
          setWrongAttempts(attempts);
          field.retry(false);
          if (attempts >= MAIL_VERIFICATION_MAX_ATTEMPTS) {
            setOutcome({ key: 'auth.mailVerification.maxAttempts', tone: 'error' });
          } else if (error.code === 'code_expired') {
            setOutcome({ key: 'errors.api.code_expired', tone: 'error' });
          } else {
            setOutcome({ key: 'auth.mailVerification.wrongCode', tone: 'error' });
          }
        },
      },
    );
  };

  const sendAgain = () => {
    setOutcome(null);
    resend.mutate(undefined, {
      onSuccess: ({ success, wait_time }) => {
        countdown.start(wait_time);
        if (success) {
          // A new code has its own attempts.
          setWrongAttempts(0);
          field.retry(false);
          setOutcome({ key: 'auth.mailVerification.resent', tone: 'info' });
        }
      },
      onError: (error) => {
        const notice = restartNotice(error);
        if (notice) onCancel(notice);
      },
    });
  };

  const generalError = verify.isError && !(isApiError(verify.error) && verify.error.status === 403);

  return (
    <Modal
      opened
      onClose={() => onCancel(null)}
      title={<span id={titleId}>{t('auth.mailVerification.title')}</span>}
      size={DIALOG_WIDTH.mailVerification}
      closeButtonProps={{ 'aria-label': t('common.close') }}
      closeOnClickOutside={false}
      centered
    >
      <form onSubmit={submit} noValidate aria-labelledby={titleId}>
        <Stack gap="md">
          <Text size="sm">{t('auth.mailVerification.description', { email })}</Text>
          {outcome && (
            <NoticeAlert tone={outcome.tone}>
              {t(outcome.key, { max: MAIL_VERIFICATION_MAX_ATTEMPTS })}
            </NoticeAlert>
          )}
          {generalError && <ApiErrorAlert error={verify.error} />}
          {resend.isError && !restartNotice(resend.error) && <ApiErrorAlert error={resend.error} />}
          <CodeInput
            name="code"
            label={t('auth.mailVerification.codeLabel')}
            {...field.inputProps}
            dialogFocus
          />
          <Group justify="space-between" gap="sm">
            {countdown.remaining > 0 ? (
              <Text size="sm" c="dimmed">
                {t('auth.mailVerification.resendIn', { seconds: countdown.remaining })}
              </Text>
            ) : (
              <Anchor
                component="button"
                type="button"
                size="sm"
                onClick={sendAgain}
                disabled={resend.isPending}
              >
                {t('auth.mailVerification.resend')}
              </Anchor>
            )}
            <Button type="submit" loading={verify.isPending} disabled={maxedOut}>
              {t('auth.mailVerification.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
