import { useEffect, useRef, useState } from 'react';
import { useTranslation } from './i18n';
import { codeError } from './one-time-code';
import type { FieldMessage } from './use-form';

/**
 * The state of a code field (one-time code, emailed code, first MFA code): its value, its
 * validation message and whether the server refused the last code. Spread `inputProps` onto a
 * `CodeInput`. `focusOnMount` focuses the field when it appears in a page or in a dialog already open.
 */
export function useCodeField({ focusOnMount = false }: { focusOnMount?: boolean } = {}) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [invalid, setInvalid] = useState<FieldMessage | null>(null);
  const [refused, setRefused] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const focus = () => inputRef.current?.focus();
  useEffect(() => {
    if (focusOnMount) inputRef.current?.focus();
  }, [focusOnMount]);

  return {
    code,
    /** The server said the last code was wrong. */
    refused,
    inputProps: {
      value: code,
      onChange: (value: string) => {
        setCode(value);
        setInvalid(null);
      },
      error: invalid ? t(invalid.key, invalid.values) : undefined,
      inputRef,
    },
    /** The code when it is well-formed; otherwise shows why, focuses the field and answers null. */
    validated(): string | null {
      const message = codeError(code);
      setInvalid(message ?? null);
      setRefused(false);
      if (message) focus();
      return message ? null : code;
    },
    /** Empties the field for the next try and focuses it; `refused` marks a code the server refused. */
    retry(refusedByServer: boolean) {
      setCode('');
      setRefused(refusedByServer);
      focus();
    },
  };
}
