import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { type FormEvent, useId, useRef, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { useSubmitLoginReason } from '../api/submit-login-reason';

/**
 * The maintenance rule's login-reason dialog (SPEC §4, §5): 600 px, cannot be dismissed (no close
 * button, no click outside, no Escape); the reason is required and is logged as Login-Reason.
 */
export function LoginReasonDialog({ opened, onSubmitted }: { opened: boolean; onSubmitted: () => void }) {
  const { t } = useTranslation();
  const submitReason = useSubmitLoginReason();
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const fieldRef = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!reason.trim()) {
      setMissing(true);
      fieldRef.current?.focus();
      return;
    }
    submitReason.mutate(reason.trim(), { onSuccess: onSubmitted });
  };

  return (
    <Modal
      opened={opened}
      onClose={() => {}}
      title={<span id={titleId}>{t('auth.loginReason.title')}</span>}
      size={DIALOG_WIDTH.loginReason}
      withCloseButton={false}
      closeOnClickOutside={false}
      closeOnEscape={false}
      centered
    >
      <form onSubmit={submit} noValidate aria-labelledby={titleId}>
        <Stack gap="md">
          <Text size="sm">{t('auth.loginReason.description')}</Text>
          {submitReason.isError && <ApiErrorAlert error={submitReason.error} />}
          <Textarea
            ref={fieldRef}
            name="loginReason"
            label={t('auth.loginReason.label')}
            value={reason}
            onChange={(event) => {
              setReason(event.currentTarget.value);
              setMissing(false);
            }}
            error={missing ? t('validation.provide_login_reason') : undefined}
            required
            rows={3}
            maxLength={2000}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button type="submit" loading={submitReason.isPending}>
              {t('auth.loginReason.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
