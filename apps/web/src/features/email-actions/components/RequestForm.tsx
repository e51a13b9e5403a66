import { sanitiseCommentary } from '@moat/contracts/public-actions';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Button, Field } from '../../../components/public/ui';
import type { TranslationKey } from '../../../lib/i18n';
import { t } from '../../../lib/public-texts';
import type { Notice } from '../use-public-flow';
import { FlowNotice } from './EmailForm';

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
  const [value, setValue] = useState('');
  const [invalid, setInvalid] = useState(false);
  const fieldRef = useRef<HTMLElement>(null);

  useEffect(() => {
    fieldRef.current?.focus();
  }, []);

  const submit = (event: FormEvent) => {
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
    <form noValidate onSubmit={submit} className="stack">
      <FlowNotice notice={notice} />
      <Field
        multiline
        fieldRef={fieldRef}
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
        maxLength={COMMENTARY_MAX_LENGTH}
      />
      <div>
        <Button type="submit" loading={pending}>
          {t('emailActions.submit')}
        </Button>
      </div>
    </form>
  );
}
