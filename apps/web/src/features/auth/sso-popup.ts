import { ROUTES } from '@moat/contracts/routes';
import { type LoginStepAnswer, loginStepAnswer } from './api/sign-in-answers';
import { saveSignInResume } from './sign-in-handover';

/*
 * The SAML popup (SPEC §4 "External sign-in"): the sign-in page opens `/auth/saml/login` in a
 * popup; after the identity provider, the popup exchanges its hand-over token for the sign-in's
 * next step and posts it to its opener (same origin only), which goes on as after a password.
 * Without an opener (popups blocked, the page opened in the tab) the step waits in this tab's
 * session storage for the console's login page, as the public bundle's hand-over does.
 */

const MESSAGE_TYPE = 'moat:sso';
const POPUP_FEATURES = 'popup=yes,width=520,height=680';

/** Open the SAML popup; null when the browser refused (the link then opens in this tab). */
export function openSsoPopup(): Window | null {
  try {
    return window.open(`${window.location.pathname}#${ROUTES.auth.samlLogin}`, 'moat-sso', POPUP_FEATURES);
  } catch {
    return null;
  }
}

/** Calls `onAnswer` with each step a popup of this origin posts; returns the unsubscribe. */
export function onSsoAnswer(onAnswer: (answer: LoginStepAnswer) => void): () => void {
  const listener = (event: MessageEvent) => {
    if (event.origin !== window.location.origin) return;
    const data = event.data as { type?: unknown; answer?: unknown } | null;
    if (data?.type !== MESSAGE_TYPE) return;
    try {
      onAnswer(loginStepAnswer.parse(data.answer));
    } catch {
      // Not a step: ignored.
    }
  };
  window.addEventListener('message', listener);
  return () => window.removeEventListener('message', listener);
}

/**
 * Hand the step to whoever goes on with the sign-in: the opener (then this popup closes), or the
 * console's login page in this tab ('resume'), or nobody ('none': session storage is blocked).
 */
export function deliverSsoAnswer(answer: LoginStepAnswer): 'opener' | 'resume' | 'none' {
  const opener = window.opener as Window | null;
  if (opener && !opener.closed) {
    try {
      opener.postMessage({ type: MESSAGE_TYPE, answer }, window.location.origin);
      window.close();
      return 'opener';
    } catch {
      // An opener of another origin: go on here.
    }
  }
  return saveSignInResume(answer) ? 'resume' : 'none';
}
