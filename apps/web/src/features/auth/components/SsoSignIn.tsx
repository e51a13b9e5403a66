import { Center, Text, TextInput } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import { SSO_FAILURE_MESSAGES, SSO_RETURN_PARAMS } from '@moat/contracts/sso';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { NoticeAlert } from '../../../components/ui/NoticeAlert';
import { useTranslation } from '../../../lib/i18n';
import { useForm } from '../../../lib/use-form';
import { completeSsoSignIn, type SsoProvider, startSsoSignIn } from '../api/sso';
import { deliverSsoAnswer, markSsoPopup, SSO_POPUP_ROUTE } from '../sso-popup';
import { validateForgotPassword } from '../validation';
import { AuthForm } from './AuthForm';
import { BackToLoginLink } from './BackToLoginLink';
import { SigningIn } from './SigningIn';

/** Leave for the identity provider (a full navigation: it is another site). */
function openIdentityProvider(url: string) {
  window.location.assign(url);
}

/**
 * A single sign-on popup (SPEC §2.1 `/auth/saml/login`, `/auth/office365`, `/auth/login_google`;
 * §4 "External sign-in"): the work email names the organisation, whose identity provider signs
 * the user in; back here with `samlSuccess=true` and a one-time token, the page exchanges it for
 * the sign-in's next step and hands that to the sign-in page that opened it (or to the login page
 * in this tab). A refused answer says the provider's failure message (SPEC §8: 'SAML
 * authentication failed.') and offers to try again.
 */
export function SsoSignIn({ provider, title }: { provider: SsoProvider; title: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get(SSO_RETURN_PARAMS.success) === 'true' ? params.get(SSO_RETURN_PARAMS.token) : null;
  const [failed, setFailed] = useState(params.get(SSO_RETURN_PARAMS.error) !== null);
  const [popupDone, setPopupDone] = useState(false);
  const form = useForm({ initialValues: { email: '' }, validate: validateForgotPassword });
  const start = useMutation({
    mutationFn: (email: string) => startSsoSignIn(provider, email),
    onSuccess: ({ url }) => {
      markSsoPopup();
      openIdentityProvider(url);
    },
  });

  const exchanged = useRef(false);
  useEffect(() => {
    if (!token || exchanged.current) return;
    exchanged.current = true;
    completeSsoSignIn(token).then(
      (answer) => {
        const delivered = deliverSsoAnswer(answer);
        if (delivered === 'popup') {
          setPopupDone(true); // shown only if the browser kept the popup open
          return;
        }
        // In this tab: the login page goes on from the step (or, with no storage, starts again).
        navigate(delivered === 'resume' ? ROUTES.auth.login : `${ROUTES.auth.login}?signIn=console`, {
          replace: true,
        });
      },
      () => {
        setFailed(true);
        navigate(SSO_POPUP_ROUTE[provider], { replace: true });
      },
    );
  }, [token, navigate, provider]);

  if (popupDone) {
    return (
      <Center mih={200}>
        <Text role="status">{t('auth.external.popupDone')}</Text>
      </Center>
    );
  }

  if (token && !failed) {
    return <SigningIn />;
  }

  return (
    <AuthForm
      formRef={form.formRef}
      onSubmit={form.onSubmit(({ email }) => {
        setFailed(false);
        start.mutate(email.trim());
      })}
      title={title}
      submitLabel={t('auth.external.continue')}
      pending={start.isPending || start.isSuccess}
      footer={<BackToLoginLink />}
    >
      {failed && <NoticeAlert tone="error">{SSO_FAILURE_MESSAGES[provider]}</NoticeAlert>}
      {start.isError && <ApiErrorAlert error={start.error} showServerMessage />}
      <Text size="sm">{t('auth.external.description')}</Text>
      <TextInput
        {...form.inputProps('email')}
        type="email"
        label={t('auth.external.workEmail')}
        autoComplete="email"
        required
        error={form.errorOf('email')}
      />
    </AuthForm>
  );
}
