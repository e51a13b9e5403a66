import { Anchor, Button, PasswordInput, TextInput } from '@mantine/core';
import type { LoginStepResponse } from '@moat/contracts/auth';
import { PASSWORD_EXPIRED_MESSAGE } from '@moat/contracts/auth-paths';
import { ROUTES } from '@moat/contracts/routes';
import { type MouseEvent, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { NoticeAlert } from '../../../components/ui/NoticeAlert';
import { isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useForm } from '../../../lib/use-form';
import { useLogin } from '../api/login';
import { useCaptcha } from '../captcha/use-captcha';
import { openSsoPopup, SSO_BUTTONS, SSO_POPUP_ROUTE, type SsoFlags } from '../sso-popup';
import { validateLogin } from '../validation';
import { AuthForm } from './AuthForm';
import { TenantApprovalDialog } from './lazy-dialogs';

/** A wrong email or password, or a locked account, reads the same (no account oracle). */
function loginErrorKey(error: unknown): TranslationKey | undefined {
  if (!isApiError(error)) return undefined;
  switch (error.code) {
    case 'invalid_credentials':
    case 'unauthorized':
    case 'forbidden':
      return 'auth.login.invalidCredentials';
    default:
      return undefined;
  }
}

/** A notice shown above the form: why the user is back here. */
export interface LoginNotice {
  key: TranslationKey;
  tone: 'info' | 'error';
}

export function LoginForm({
  sso,
  initialEmail = '',
  notice,
  onStep,
  onPasswordExpired,
}: {
  sso: SsoFlags;
  initialEmail?: string;
  notice?: LoginNotice | null;
  onStep: (answer: LoginStepResponse) => void;
  onPasswordExpired: (email: string) => void;
}) {
  const { t } = useTranslation();
  const login = useLogin();
  const captcha = useCaptcha();
  const [approvalNeeded, setApprovalNeeded] = useState(false);
  const form = useForm({ initialValues: { email: initialEmail, password: '' }, validate: validateLogin });

  const submit = form.onSubmit(async ({ email, password }) => {
    const recaptchaToken = await captcha.takeToken();
    login.mutate(
      { email: email.trim(), current_password: password, recaptcha_token: recaptchaToken },
      {
        onSuccess: onStep,
        onError: (error) => {
          if (!isApiError(error)) return;
          if (error.code === 'password_expired' || error.message.includes(PASSWORD_EXPIRED_MESSAGE)) {
            onPasswordExpired(email.trim());
            return;
          }
          if (error.code === 'tenant_approval_required') {
            setApprovalNeeded(true);
            return;
          }
          form.setServerErrors(error, {
            email: { field: 'email', message: { key: 'validation.invalid_email' } },
            current_password: { field: 'password', message: { key: 'validation.invalid_password' } },
          });
        },
      },
    );
  });

  const showError =
    login.isError && !(isApiError(login.error) && login.error.code === 'tenant_approval_required');

  return (
    <>
      <AuthForm
        formRef={form.formRef}
        onSubmit={submit}
        title={t('auth.login.title')}
        submitLabel={t('auth.login.submit')}
        pending={captcha.solving || login.isPending}
        footer={
          <>
            <Anchor component={Link} to={ROUTES.auth.forgotPassword} size="sm">
              {t('auth.login.forgotPassword')}
            </Anchor>
            {SSO_BUTTONS.filter((button) => sso[button.flag]).map((button) => (
              <Button
                key={button.provider}
                component={Link}
                to={SSO_POPUP_ROUTE[button.provider]}
                variant="default"
                fullWidth
                // The popup of SPEC §4; where popups are blocked, the page opens in this tab.
                onClick={(event: MouseEvent) => {
                  if (openSsoPopup(button.provider)) event.preventDefault();
                }}
              >
                {t(button.label)}
              </Button>
            ))}
          </>
        }
      >
        {notice && !login.isError && <NoticeAlert tone={notice.tone}>{t(notice.key)}</NoticeAlert>}
        {showError && <ApiErrorAlert error={login.error} messageKey={loginErrorKey(login.error)} />}
        <TextInput
          {...form.inputProps('email')}
          type="email"
          label={t('auth.login.email')}
          autoComplete="username"
          required
          error={form.errorOf('email')}
        />
        <PasswordInput
          {...form.inputProps('password')}
          label={t('auth.login.password')}
          autoComplete="current-password"
          required
          error={form.errorOf('password')}
        />
      </AuthForm>
      {approvalNeeded && (
        <Suspense fallback={null}>
          <TenantApprovalDialog opened onClose={() => setApprovalNeeded(false)} />
        </Suspense>
      )}
    </>
  );
}
