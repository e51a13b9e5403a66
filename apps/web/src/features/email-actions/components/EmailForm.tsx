import { Button, Stack, TextInput } from '@mantine/core';
import { PUBLIC_EMAIL_PATTERN } from '@moat/contracts/validation';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../../lib/i18n';
import { useForm } from '../../../lib/use-form';
import type { Notice } from '../use-public-flow';
import { FlowNotice } from './FlowNotice';

/**
 * PUBLIC_EMAIL_PATTERN for the input's `pattern` attribute, which browsers compile with the `v`
 * flag: there a `-` inside a character class must be escaped.
 */
export const EMAIL_INPUT_PATTERN = PUBLIC_EMAIL_PATTERN.source.replace(/-\]/g, '\\-]');

/**
 * The email form of the public pages (SPEC §2.2, §5): type email, required, the public email
 * pattern; the invalid-address message is the page's own.
 */
export function EmailForm({
  initialEmail,
  invalidKey,
  notice,
  pending,
  onSubmit,
}: {
  initialEmail: string;
  invalidKey: TranslationKey;
  notice: Notice | null;
  pending: boolean;
  onSubmit: (email: string) => void;
}) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { email: initialEmail },
    validate: ({ email }) => {
      const value = email.trim();
      if (!value) return { email: { key: 'validation.email_required' } };
      if (!PUBLIC_EMAIL_PATTERN.test(value)) return { email: { key: invalidKey } };
      return {};
    },
  });
  const { formRef } = form;

  useEffect(() => {
    const field = formRef.current?.elements.namedItem('email');
    if (field instanceof HTMLInputElement) field.focus();
  }, [formRef]);

  return (
    <form ref={formRef} noValidate onSubmit={form.onSubmit(({ email }) => onSubmit(email.trim()))}>
      <Stack gap="md">
        <FlowNotice notice={notice} />
        <TextInput
          {...form.inputProps('email')}
          type="email"
          label={t('emailActions.emailLabel')}
          description={t('emailActions.emailNote')}
          error={form.errorOf('email')}
          required
          pattern={EMAIL_INPUT_PATTERN}
          autoComplete="email"
          inputMode="email"
          spellCheck={false}
        />
        <Button type="submit" loading={pending} style={{ alignSelf: 'flex-start' }}>
          {t('emailActions.sendCode')}
        </Button>
      </Stack>
    </form>
  );
}
