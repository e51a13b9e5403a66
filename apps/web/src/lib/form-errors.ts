import type { ApiError } from './http';
import type { FieldMessage, FormErrors } from './use-form';

/**
 * The API's field errors (`details`, e.g. field "body.email") as a form's messages, by the
 * form's field names: `fields` maps an API field to the form's field and its message. Used by
 * the console's `useForm` and the public bundle's login form alike.
 */
export function serverFieldErrors<V>(
  error: ApiError,
  fields: Partial<Record<string, { field: keyof V; message: FieldMessage }>>,
): FormErrors<V> {
  const found: FormErrors<V> = {};
  for (const detail of error.details ?? []) {
    const target = fields[detail.field.replace(/^body\./, '')];
    if (target) found[target.field] = target.message;
  }
  return found;
}
