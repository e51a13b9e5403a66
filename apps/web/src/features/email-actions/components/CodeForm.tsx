import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { ONE_TIME_CODE_LENGTH } from '@moat/contracts/constants';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CodeInput } from '../../../components/ui/CodeInput';
import type { Notice } from '../use-public-flow';
import { FlowNotice } from './FlowNotice';

/**
 * The verification code form (SPEC §2.2, §5): the code is required (an empty submit does
 * nothing); after the last attempt the submit is disabled. "Resend code" is a disabled label with
 * a countdown until the server's wait_time has passed.
 */
export function CodeForm({
  notice,
  attemptsLeft,
  resendIn,
  pending,
  resending,
  onSubmit,
  onResend,
  onChangeEmail,
}: {
  notice: Notice | null;
  attemptsLeft: number | null;
  resendIn: number;
  pending: boolean;
  resending: boolean;
  onSubmit: (code: string) => void;
  onResend: () => void;
  onChangeEmail: () => void;
}) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const inputRef = useRef<HTMLInputElement>(null);
  const maxedOut = attemptsLeft !== null && attemptsLeft <= 0;

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (maxedOut || pending) return;
    if (!code) {
      inputRef.current?.focus();
      return;
    }
    if (code.length !== ONE_TIME_CODE_LENGTH) {
      setError(t('validation.code_length', { length: ONE_TIME_CODE_LENGTH }));
      inputRef.current?.focus();
      return;
    }
    onSubmit(code);
  };

  return (
    <form noValidate onSubmit={submit}>
      <Stack gap="md">
        <FlowNotice notice={notice} />
        <CodeInput
          name="code"
          label={t('emailActions.codeLabel')}
          value={code}
          onChange={(value) => {
            setCode(value);
            setError(undefined);
          }}
          error={error}
          inputRef={inputRef}
        />
        <Group justify="space-between" gap="sm">
          {resendIn > 0 ? (
            <Text size="sm" c="dimmed" aria-disabled="true">
              {t('emailActions.resendIn', { seconds: resendIn })}
            </Text>
          ) : (
            <Anchor component="button" type="button" size="sm" onClick={onResend} disabled={resending}>
              {t('emailActions.resendCode')}
            </Anchor>
          )}
          <Button type="submit" loading={pending} disabled={maxedOut}>
            {t('emailActions.verify')}
          </Button>
        </Group>
        <Anchor component="button" type="button" size="sm" onClick={onChangeEmail} ta="left">
          {t('emailActions.changeEmail')}
        </Anchor>
      </Stack>
    </form>
  );
}
