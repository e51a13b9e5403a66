import { PUBLIC_EMAIL_PATTERN } from '@moat/contracts/public-actions';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Button, Field, Message } from '../../../components/public/ui';
import type { TranslationKey } from '../../../lib/i18n';
import { t } from '../../../lib/public-texts';
import { flowMessageText } from '../texts';
import type { Notice } from '../use-public-flow';

/**
 * PUBLIC_EMAIL_PATTERN for the input's `pattern` attribute, which browsers compile with the `v`
 * flag: there a `-` inside a character class must be escaped.
 */
export const EMAIL_INPUT_PATTERN = PUBLIC_EMAIL_PATTERN.source.replace(/-\]/g, '\\-]');

/** A flow notice above a form. */
export function FlowNotice({ notice }: { notice: Notice | null }) {
  if (!notice) return null;
  return (
    <Message tone={notice.tone} notice>
      {flowMessageText(notice.message)}
    </Message>
  );
}

/**
 * The email form of the public pages (SPEC §2.2, §5): type email, required, the public email
 * pattern; the invalid-address message is the page's own. Checked on submit; typing clears it.
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
  const [email, setEmail] = useState(initialEmail);
  const [error, setError] = useState<TranslationKey | null>(null);
  const fieldRef = useRef<HTMLElement>(null);

  useEffect(() => {
    fieldRef.current?.focus();
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = email.trim();
    const invalid = !value
      ? 'validation.email_required'
      : PUBLIC_EMAIL_PATTERN.test(value)
        ? null
        : invalidKey;
    setError(invalid);
    if (invalid) {
      fieldRef.current?.focus();
      return;
    }
    if (!pending) onSubmit(value);
  };

  return (
    <form noValidate onSubmit={submit} className="stack">
      <FlowNotice notice={notice} />
      <Field
        fieldRef={fieldRef}
        name="email"
        type="email"
        label={t('emailActions.emailLabel')}
        description={t('emailActions.emailNote')}
        error={error ? t(error) : undefined}
        value={email}
        onChange={(event) => {
          setEmail(event.currentTarget.value);
          setError(null);
        }}
        required
        pattern={EMAIL_INPUT_PATTERN}
        autoComplete="email"
        inputMode="email"
        spellCheck={false}
      />
      <div>
        <Button type="submit" loading={pending}>
          {t('emailActions.sendCode')}
        </Button>
      </div>
    </form>
  );
}
