import { TextInput } from '@mantine/core';
import { ONE_TIME_CODE_LENGTH } from '@moat/contracts/constants';
import type { Ref } from 'react';
import { sanitizeCode } from '../../lib/one-time-code';

/** What a code field is bound to (`useCodeField().inputProps`). */
export interface CodeInputBinding {
  value: string;
  onChange: (value: string) => void;
  error?: string;
  inputRef?: Ref<HTMLInputElement>;
}

/**
 * A numeric code field (one-time code, emailed code): digits only, at most ONE_TIME_CODE_LENGTH,
 * the phone's number pad, and the browser's one-time-code autofill.
 */
export function CodeInput({
  name,
  label,
  description,
  value,
  onChange,
  error,
  inputRef,
  dialogFocus = false,
}: CodeInputBinding & {
  name: string;
  label: string;
  description?: string;
  /** The field a dialog focuses when it opens. */
  dialogFocus?: boolean;
}) {
  return (
    <TextInput
      ref={inputRef}
      name={name}
      label={label}
      description={description}
      value={value}
      onChange={(event) => onChange(sanitizeCode(event.currentTarget.value))}
      error={error}
      required
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={ONE_TIME_CODE_LENGTH}
      spellCheck={false}
      data-autofocus={dialogFocus || undefined}
    />
  );
}
