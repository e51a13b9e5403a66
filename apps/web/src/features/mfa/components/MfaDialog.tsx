import {
  Alert,
  Badge,
  Button,
  Center,
  Group,
  Loader,
  Modal,
  PasswordInput,
  Stack,
  Text,
  VisuallyHidden,
} from '@mantine/core';
import type { MfaEnrolment as Enrolment } from '@moat/contracts/auth';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { MfaEnrolment } from '../../../components/mfa/MfaEnrolment';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { NoticeAlert } from '../../../components/ui/NoticeAlert';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { queryKeys } from '../../../lib/query-keys';
import { useCodeField } from '../../../lib/use-code-field';
import { useDisableMfa } from '../api/disable-mfa';
import { mfaSettingsQueryOptions } from '../api/get-mfa-settings';
import { useStartMfaSetup } from '../api/start-mfa-setup';
import { useVerifyMfaSetup } from '../api/verify-mfa-setup';

/** The views of SPEC §4 "MFA setup dialog", plus the password step of turning it off. */
export type MfaView = 'suggestion' | 'setup' | 'verified' | 'active' | 'disable';

/**
 * The signed-in user's MFA (616 px): suggestion → setup (QR and secret) → verified → active; off
 * again resets it. `offer`: the sign-in's offer after a one-time password was replaced — the
 * suggestion can be skipped, and closing (or Done once it is on) goes on into the console.
 */
export function MfaDialog({
  email,
  opened,
  onClose,
  offer = false,
}: {
  email: string;
  opened: boolean;
  onClose: () => void;
  offer?: boolean;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const settings = useQuery({ ...mfaSettingsQueryOptions(email), enabled: opened });
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [verified, setVerified] = useState(false);
  const [disabling, setDisabling] = useState(false);

  const refreshSettings = () => queryClient.invalidateQueries({ queryKey: queryKeys.mfaSettings(email) });
  const reset = () => {
    setEnrolment(null);
    setVerified(false);
    setDisabling(false);
  };

  let view: MfaView | null = null;
  if (disabling) view = 'disable';
  else if (verified) view = 'verified';
  else if (enrolment) view = 'setup';
  else if (settings.data) view = settings.data.isMfaEnabled ? 'active' : 'suggestion';

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('mfa.dialog.title')}
      size={DIALOG_WIDTH.mfaSetup}
      closeButtonProps={{ 'aria-label': t('common.close') }}
      closeOnClickOutside={!offer}
      centered
    >
      {view === null && settings.isError && <ApiErrorAlert error={settings.error} />}
      {view === null && !settings.isError && (
        <Center mih={120} role="status">
          <Loader />
          <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
        </Center>
      )}
      {view === 'suggestion' && (
        <Suggestion email={email} onEnrolment={setEnrolment} onSkip={offer ? onClose : undefined} />
      )}
      {view === 'setup' && enrolment && (
        <Setup
          email={email}
          enrolment={enrolment}
          onVerified={() => {
            setEnrolment(null);
            setVerified(true);
            void refreshSettings();
          }}
          onCancel={reset}
        />
      )}
      {view === 'verified' && <Verified onContinue={offer ? onClose : () => setVerified(false)} />}
      {view === 'active' && settings.data && (
        <Stack gap="md">
          <Group gap="xs">
            <Text fw={600}>{t('mfa.active.status')}</Text>
            <Badge color="green" variant="light">
              {t('mfa.active.on')}
            </Badge>
          </Group>
          <Text size="sm">{t('mfa.active.text', { email })}</Text>
          {settings.data.mfaRequired ? (
            <Text size="sm" c="dimmed">
              {t('mfa.active.requiredByAdmin')}
            </Text>
          ) : (
            <Group justify="flex-end">
              <Button variant="default" color="red" onClick={() => setDisabling(true)}>
                {t('mfa.active.turnOff')}
              </Button>
            </Group>
          )}
        </Stack>
      )}
      {view === 'disable' && (
        <Disable
          email={email}
          onDisabled={() => {
            reset();
            void refreshSettings();
          }}
          onCancel={() => setDisabling(false)}
        />
      )}
    </Modal>
  );
}

function Verified({ onContinue }: { onContinue: () => void }) {
  const { t } = useTranslation();
  const buttonRef = useRef<HTMLButtonElement>(null);
  useEffect(() => buttonRef.current?.focus(), []);
  return (
    <Stack gap="md">
      <Alert color="green" variant="light" role="status" title={t('mfa.verified.title')}>
        {t('mfa.verified.text')}
      </Alert>
      <Group justify="flex-end">
        <Button ref={buttonRef} onClick={onContinue}>
          {t('mfa.verified.continue')}
        </Button>
      </Group>
    </Stack>
  );
}

function Suggestion({
  email,
  onEnrolment,
  onSkip,
}: {
  email: string;
  onEnrolment: (enrolment: Enrolment) => void;
  /** The sign-in's offer: it may be left for later. */
  onSkip?: () => void;
}) {
  const { t } = useTranslation();
  const start = useStartMfaSetup();
  return (
    <Stack gap="md">
      <Text fw={600}>{t('mfa.suggestion.title')}</Text>
      <Text size="sm">{t('mfa.suggestion.text')}</Text>
      {onSkip && <Text size="sm">{t('mfa.offer.later')}</Text>}
      {start.isError && <ApiErrorAlert error={start.error} />}
      <Group justify="flex-end">
        {onSkip && (
          <Button variant="default" onClick={onSkip}>
            {t('mfa.offer.skip')}
          </Button>
        )}
        <Button onClick={() => start.mutate(email, { onSuccess: onEnrolment })} loading={start.isPending}>
          {t('mfa.suggestion.start')}
        </Button>
      </Group>
    </Stack>
  );
}

function Setup({
  email,
  enrolment,
  onVerified,
  onCancel,
}: {
  email: string;
  enrolment: Enrolment;
  onVerified: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const verify = useVerifyMfaSetup();
  const field = useCodeField({ focusOnMount: true });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = field.validated();
    if (!code) return;
    verify.mutate(
      { code, userEmail: email, secret: enrolment.secret },
      { onSuccess: ({ success }) => (success ? onVerified() : field.retry(true)) },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t('mfa.dialog.title')}>
      <Stack gap="md">
        {field.refused && <NoticeAlert tone="error">{t('auth.otp.invalidCode')}</NoticeAlert>}
        {verify.isError && <ApiErrorAlert error={verify.error} />}
        <MfaEnrolment enrolment={enrolment} codeField={field.inputProps} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={verify.isPending}>
            {t('mfa.setup.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Disable({
  email,
  onDisabled,
  onCancel,
}: {
  email: string;
  onDisabled: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const disable = useDisableMfa();
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => inputRef.current?.focus(), []);
  const wrongPassword = isApiError(disable.error) && disable.error.code === 'invalid_credentials';

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!password) {
      setMissing(true);
      inputRef.current?.focus();
      return;
    }
    disable.mutate(
      { email, password },
      {
        onSuccess: onDisabled,
        onError: () => {
          setPassword('');
          inputRef.current?.focus();
        },
      },
    );
  };

  let passwordError: string | undefined;
  if (missing) passwordError = t('validation.invalid_password');
  else if (wrongPassword) passwordError = t('mfa.disable.wrongPassword');

  return (
    <form onSubmit={submit} noValidate aria-label={t('mfa.disable.title')}>
      <Stack gap="md">
        <Text fw={600}>{t('mfa.disable.title')}</Text>
        <Text size="sm">{t('mfa.disable.text')}</Text>
        {disable.isError && !wrongPassword && <ApiErrorAlert error={disable.error} />}
        <PasswordInput
          ref={inputRef}
          name="password"
          label={t('mfa.disable.password')}
          autoComplete="current-password"
          value={password}
          onChange={(event) => {
            setPassword(event.currentTarget.value);
            setMissing(false);
          }}
          error={passwordError}
          required
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" color="red" loading={disable.isPending}>
            {t('mfa.disable.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
