import { PAGE_LOADER_FADE_MS } from '@moat/contracts/constants';
import type { ButtonHTMLAttributes, InputHTMLAttributes, ReactNode } from 'react';
import { useEffect, useId, useState } from 'react';
import { t } from '../../lib/public-texts';

/**
 * The few controls of the public pages, in plain HTML with `public-pages.css`: what Mantine gave
 * the console's version (labels, descriptions and errors tied to their field, a busy button,
 * announced notices) without its weight.
 */

/** A spinner; decorative (the words beside it say what is going on). */
export function Spinner({ small = false }: { small?: boolean }) {
  return <span className={small ? 'spinner spinner--small' : 'spinner'} aria-hidden="true" />;
}

/** A button; while `loading` it is busy and does not submit again. */
export function Button({
  loading = false,
  variant = 'filled',
  children,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { loading?: boolean; variant?: 'filled' | 'link' }) {
  return (
    <button
      type="button"
      {...rest}
      className={`button button--${variant}`}
      // Busy: disabled, as Mantine's loading button is.
      disabled={rest.disabled || loading}
      aria-busy={loading || undefined}
      data-loading={loading || undefined}
    >
      {loading && <Spinner small />}
      <span className="button__label">{children}</span>
    </button>
  );
}

type FieldProps = {
  label: string;
  description?: string;
  error?: string;
  /** Set to the input (or text area), to focus it. */
  fieldRef?: { current: HTMLElement | null };
};

/** A labelled text field (or a text area with `multiline`), its description and its error. */
export function Field({
  label,
  description,
  error,
  fieldRef,
  multiline = false,
  ...input
}: FieldProps & {
  /** A text area (its `rows` set as `rows`); the input attributes apply to it. */
  multiline?: boolean;
  rows?: number;
} & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const describedBy = [description && `${id}-description`, error && `${id}-error`].filter(Boolean).join(' ');
  const common = {
    id,
    ref: (element: HTMLElement | null) => {
      if (fieldRef) fieldRef.current = element;
    },
    className: 'field__input',
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy || undefined,
  };
  return (
    <div className="field" data-error={error ? true : undefined}>
      <label className="field__label" htmlFor={id}>
        {label}
        {input.required && (
          <span className="field__required" aria-hidden="true">
            {' *'}
          </span>
        )}
      </label>
      {description && (
        <p className="field__description" id={`${id}-description`}>
          {description}
        </p>
      )}
      {multiline ? <textarea {...(input as object)} {...common} /> : <input {...input} {...common} />}
      {error && (
        <p className="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export type ResultTone = 'error' | 'progress' | 'success' | 'info';

/**
 * A message of the public pages: an error (announced at once), progress, a success or an
 * information (announced politely). `notice`: the lighter box above a form.
 */
export function Message({
  tone,
  notice = false,
  children,
}: {
  tone: ResultTone;
  notice?: boolean;
  children: ReactNode;
}) {
  if (tone === 'progress') {
    return (
      <div className="progress" role="status">
        <Spinner />
        <p>{children}</p>
      </div>
    );
  }
  return (
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      className={`message message--${tone}${notice ? ' message--notice' : ''}`}
    >
      {typeof children === 'string' ? <p>{children}</p> : children}
    </div>
  );
}

/** A full-page loader until `done`; then it fades out over PAGE_LOADER_FADE_MS (SPEC §9) and leaves. */
export function PageLoader({ done }: { done: boolean }) {
  const [present, setPresent] = useState(true);
  useEffect(() => {
    if (!done) {
      setPresent(true);
      return;
    }
    const timer = window.setTimeout(() => setPresent(false), PAGE_LOADER_FADE_MS);
    return () => window.clearTimeout(timer);
  }, [done]);
  if (!present) return null;
  return (
    <div
      className="page-loader"
      data-done={done || undefined}
      aria-hidden={done || undefined}
      style={{ transitionDuration: `${PAGE_LOADER_FADE_MS}ms` }}
    >
      <Spinner />
      {!done && (
        <span className="visually-hidden" role="status">
          {t('app.loading')}
        </span>
      )}
    </div>
  );
}
