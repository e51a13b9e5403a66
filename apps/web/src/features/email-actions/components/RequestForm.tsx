import { Button, Stack, Textarea } from '@mantine/core';
import { sanitiseCommentary } from '@moat/contracts/quarantine';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../../lib/i18n';
import type { Notice } from '../use-public-flow';
import { FlowNotice } from './FlowNotice';

/** What the server keeps of a message (sanitiseCommentary cuts there). */
const COMMENTARY_MAX_LENGTH = 2_000;

/**
 * The request form (SPEC §2.1, §2.2, §5): a message to the admin, required; after sanitising
 * (tags stripped) and trimming it must not be empty ('enter a message').
 */
export function RequestForm({
  labelKey,
  notice,
  pending,
  onSubmit,
}: {
  labelKey: TranslationKey;
  notice: Notice | null;
  pending: boolean;
  onSubmit: (commentary: string) => void;
}) {
  const { t } = useTranslation();
  const [value, setValue] = useState('');
  const [invalid, setInvalid] = useState(false);
  const fieldRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    fieldRef.current?.focus();
  }, []);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    if (!sanitiseCommentary(value)) {
      setInvalid(true);
      fieldRef.current?.focus();
      return;
    }
    onSubmit(value.trim());
  };

  return (
    <form noValidate onSubmit={submit}>
      <Stack gap="md">
        <FlowNotice notice={notice} />
        <Textarea
          ref={fieldRef}
          name="commentary"
          label={t(labelKey)}
          value={value}
          onChange={(event) => {
            setValue(event.currentTarget.value);
            setInvalid(false);
          }}
          error={invalid ? t('emailActions.enterMessage') : undefined}
          required
          rows={5}
          resize="vertical"
          maxLength={COMMENTARY_MAX_LENGTH}
        />
        <Button type="submit" loading={pending} style={{ alignSelf: 'flex-start' }}>
          {t('emailActions.submit')}
        </Button>
      </Stack>
    </form>
  );
}
