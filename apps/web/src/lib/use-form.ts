import { type ChangeEvent, type FormEvent, useCallback, useRef, useState } from 'react';
import { serverFieldErrors } from './form-errors';
import type { ApiError } from './http';
import type { TranslationKey } from './i18n';
import { useTranslation } from './i18n';

/** A validation message: a translation key and its interpolation values. */
export interface FieldMessage {
  key: TranslationKey;
  values?: Record<string, string | number>;
}

export type FormErrors<V> = Partial<Record<keyof V, FieldMessage>>;

/** What `inputProps` spreads onto a text or password input. */
export interface InputBinding {
  name: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
}

interface UseFormOptions<V extends Record<string, string>> {
  initialValues: V;
  validate: (values: V) => FormErrors<V>;
}

/**
 * Small controlled-form state: values, per-field messages from `validate`, and a submit handler
 * that validates first and focuses the first invalid field (keyboard and screen-reader users land
 * on the problem).
 */
export function useForm<V extends Record<string, string>>({ initialValues, validate }: UseFormOptions<V>) {
  const { t } = useTranslation();
  const [values, setValues] = useState<V>(initialValues);
  const [errors, setErrors] = useState<FormErrors<V>>({});
  const formRef = useRef<HTMLFormElement>(null);

  const setFieldValue = useCallback((name: keyof V, value: string) => {
    setValues((current) => ({ ...current, [name]: value }));
    setErrors((current) => (current[name] ? { ...current, [name]: undefined } : current));
  }, []);

  const inputProps = (name: keyof V & string): InputBinding => ({
    name,
    value: values[name] ?? '',
    onChange: (event: ChangeEvent<HTMLInputElement>) => setFieldValue(name, event.currentTarget.value),
  });

  /** The translated message of a field, for the input's `error` prop. */
  const errorOf = (name: keyof V): string | undefined => {
    const message = errors[name];
    return message ? t(message.key, message.values) : undefined;
  };

  const focusFirstInvalid = (invalid: FormErrors<V>) => {
    const first = Object.keys(invalid).find((name) => invalid[name as keyof V]);
    if (!first) return;
    const field = formRef.current?.elements.namedItem(first);
    if (field instanceof HTMLElement) field.focus();
  };

  const onSubmit = (handler: (values: V) => void) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = validate(values);
    const invalid = Object.fromEntries(
      Object.entries(found).filter(([, message]) => message),
    ) as FormErrors<V>;
    setErrors(invalid);
    if (Object.keys(invalid).length > 0) {
      focusFirstInvalid(invalid);
      return;
    }
    handler(values);
  };

  /** Puts the API's field errors (`details`, e.g. field "body.email") onto the matching fields. */
  const setServerErrors = (
    error: ApiError,
    fields: Partial<Record<string, { field: keyof V; message: FieldMessage }>>,
  ) => {
    const found = serverFieldErrors<V>(error, fields);
    if (Object.keys(found).length > 0) {
      setErrors((current) => ({ ...current, ...found }));
      focusFirstInvalid(found);
    }
  };

  return { values, errors, errorOf, formRef, inputProps, setFieldValue, onSubmit, setServerErrors };
}
