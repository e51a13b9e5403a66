import { API } from '@moat/contracts/api-paths';
import { AUTH_API, PASSWORD_EXPIRED_MESSAGE } from '@moat/contracts/auth-paths';
import { ROUTES } from '@moat/contracts/routes';
import { type ChangeEvent, type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Button, Field, Message } from '../../../components/public/ui';
import { useAlive } from '../../../components/public/use-alive';
import { messageKeyOf } from '../../../lib/error-messages';
import { serverFieldErrors } from '../../../lib/form-errors';
import { apiGet, apiPost, isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import { t } from '../../../lib/public-texts';
import type { FieldMessage } from '../../../lib/use-form';
import { captchaConfigAnswer, type LoginStepAnswer, loginStepAnswer } from '../api/sign-in-answers';
import { type CaptchaSession, createCaptchaSession } from '../captcha/captcha-session';
import { openSsoPopup, SSO_BUTTONS, SSO_POPUP_ROUTE, type SsoFlags } from '../sso-popup';
import { validateLogin } from '../validation';

type FieldName = 'email' | 'password';
type Errors = Partial<Record<FieldName, FieldMessage>>;

/** The API's field names (`details`, e.g. "body.current_password") and the form's. */
const SERVER_FIELDS: Record<string, { field: FieldName; message: FieldMessage }> = {
  email: { field: 'email', message: { key: 'validation.invalid_email' } },
  current_password: { field: 'password', message: { key: 'validation.invalid_password' } },
};

/** A wrong email or password, or a locked account, reads the same (no account oracle). */
function failureKey(error: unknown): TranslationKey {
  if (isApiError(error) && ['invalid_credentials', 'unauthorized', 'forbidden'].includes(error.code)) {
    return 'auth.login.invalidCredentials';
  }
  return messageKeyOf(error);
}

const loadCaptchaConfig = () => apiGet(API.recaptchaConfig, { schema: captchaConfigAnswer });
const loadSolver = (url: string) =>
  import('../captcha/altcha-solver').then((module) => module.createAltchaSolver(url));

/** The ALTCHA challenge ten times harder, which an account that sees many failed sign-ins asks for. */
const strongChallengeUrl = (url: string) => `${url}${url.includes('?') ? '&' : '?'}strength=strong`;

/**
 * The invisible ALTCHA captcha (SPEC §2.1). Its widget and proof of work start when the visitor
 * first turns to the form (`warmUp`: a focus or a press in it), not with the page: its first
 * paint and a visitor who only looks stay free of that work. A submission before then waits for it.
 * `takeStrong`: one token of the stronger challenge, solved only when the server asks for it.
 */
function useCaptchaSession() {
  const session = useRef<CaptchaSession | null>(null);
  const warm = useRef(false);
  useEffect(() => {
    const created = createCaptchaSession({ loadConfig: loadCaptchaConfig, loadSolver });
    session.current = created;
    // A focus before this effect ran still warms it up.
    if (warm.current) created.prepare();
    return () => {
      created.dispose();
      if (session.current === created) session.current = null;
    };
  }, []);
  const warmUp = () => {
    if (warm.current) return;
    warm.current = true;
    session.current?.prepare();
  };
  const take = async () => {
    warm.current = true;
    return (await session.current?.take()) ?? null;
  };
  const takeStrong = async () => {
    const strong = createCaptchaSession({
      loadConfig: async () => {
        const config = await loadCaptchaConfig();
        return config.provider === 'altcha' && config.key
          ? { ...config, key: strongChallengeUrl(config.key) }
          : config;
      },
      loadSolver,
    });
    try {
      return await strong.take();
    } finally {
      // One token: the next stronger one is solved only if asked for again.
      strong.dispose();
    }
  };
  return { warmUp, take, takeStrong };
}

/** A notice shown above the form: why the user is back here. */
export interface LoginNotice {
  key: TranslationKey;
  tone: 'info' | 'error';
}

/**
 * The login form (SPEC §2.1, §4 "Login"), the one both the public bundle's login page and the
 * console's sign-in show: plain controls (`components/public/ui`), no Mantine, so the page a
 * visitor opens stays light. The server's answer (a session, or the next step) goes to
 * `onAnswer`; an expired password to its page.
 */
export function LoginForm({
  sso,
  initialEmail = '',
  notice = null,
  onAnswer,
  onPasswordExpired,
}: {
  sso: SsoFlags;
  initialEmail?: string;
  notice?: LoginNotice | null;
  onAnswer: (answer: LoginStepAnswer) => void;
  onPasswordExpired: (email: string) => void;
}) {
  const titleId = useId();
  const form = useRef<HTMLFormElement>(null);
  const captcha = useCaptchaSession();
  const [values, setValues] = useState({ email: initialEmail, password: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [approvalNeeded, setApprovalNeeded] = useState(false);
  const [pending, setPending] = useState(false);
  const alive = useAlive();

  const focusFirst = (found: Errors) => {
    const first = (['email', 'password'] as const).find((name) => found[name]);
    const element = first ? form.current?.elements.namedItem(first) : null;
    if (element instanceof HTMLElement) element.focus();
  };

  const change = (name: FieldName) => (event: ChangeEvent<HTMLInputElement>) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    setValues((current) => ({ ...current, [name]: value }));
    setErrors((current) => (current[name] ? { ...current, [name]: undefined } : current));
  };

  const fail = (error: unknown, email: string) => {
    if (isApiError(error)) {
      if (error.code === 'password_expired' || error.message.includes(PASSWORD_EXPIRED_MESSAGE)) {
        onPasswordExpired(email);
        return;
      }
      if (error.code === 'tenant_approval_required') {
        setApprovalNeeded(true);
        return;
      }
      const found: Errors = serverFieldErrors<Record<FieldName, string>>(error, SERVER_FIELDS);
      if (Object.keys(found).length > 0) {
        setErrors((current) => ({ ...current, ...found }));
        focusFirst(found);
      }
    }
    setFailure(error);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (pending) return;
    const found = Object.fromEntries(
      Object.entries(validateLogin(values)).filter(([, message]) => message),
    ) as Errors;
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirst(found);
      return;
    }
    const email = values.email.trim();
    setPending(true);
    setFailure(null);
    setApprovalNeeded(false);
    const send = (token: string | null) =>
      apiPost(
        AUTH_API.login,
        { email, current_password: values.password, recaptcha_token: token },
        { schema: loginStepAnswer },
      );
    try {
      const answer = await send(await captcha.take()).catch(async (error: unknown) => {
        // An account that sees many failed sign-ins asks this browser for the stronger check: once.
        if (!isApiError(error) || error.code !== 'captcha_required') throw error;
        return send(await captcha.takeStrong());
      });
      if (!alive.current) return;
      // The button stays busy while the console takes over.
      onAnswer(answer);
    } catch (error) {
      if (!alive.current) return;
      setPending(false);
      fail(error, email);
    }
  };

  const errorText = (name: FieldName) => {
    const message = errors[name];
    return message ? t(message.key, message.values) : undefined;
  };

  return (
    <form
      ref={form}
      onSubmit={submit}
      onFocus={captcha.warmUp}
      onPointerDown={captcha.warmUp}
      noValidate
      aria-labelledby={titleId}
      className="stack"
    >
      <h1 className="flow-title" id={titleId}>
        {t('auth.login.title')}
      </h1>
      {notice && failure === null && <Message tone={notice.tone}>{t(notice.key)}</Message>}
      {failure !== null && (
        <Message tone="error">
          <p>{t(failureKey(failure))}</p>
          {isApiError(failure) && failure.reqId && (
            <p className="message__reference">{t('errors.referenceId', { reqId: failure.reqId })}</p>
          )}
        </Message>
      )}
      {approvalNeeded && (
        <Message tone="info">
          <p className="message__title">{t('auth.tenantApproval.title')}</p>
          <p>{t('auth.tenantApproval.text')}</p>
        </Message>
      )}
      <Field
        label={t('auth.login.email')}
        name="email"
        type="email"
        autoComplete="username"
        required
        value={values.email}
        onChange={change('email')}
        error={errorText('email')}
      />
      <Field
        label={t('auth.login.password')}
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={values.password}
        onChange={change('password')}
        error={errorText('password')}
      />
      <Button type="submit" loading={pending}>
        {t('auth.login.submit')}
      </Button>
      <a className="link" href={`#${ROUTES.auth.forgotPassword}`}>
        {t('auth.login.forgotPassword')}
      </a>
      {SSO_BUTTONS.filter((button) => sso[button.flag]).map((button) => (
        <a
          key={button.provider}
          className="button button--default"
          href={`#${SSO_POPUP_ROUTE[button.provider]}`}
          onClick={(event) => {
            if (openSsoPopup(button.provider)) event.preventDefault();
          }}
        >
          <span className="button__label">{t(button.label)}</span>
        </a>
      ))}
    </form>
  );
}
