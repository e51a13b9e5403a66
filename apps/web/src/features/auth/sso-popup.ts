import { ROUTES } from '@moat/contracts/routes';
import type { TranslationKey } from '../../lib/i18n';
import { type LoginStepAnswer, loginStepAnswer } from './api/sign-in-answers';
import { saveSignInResume } from './sign-in-handover';

/*
 * The single sign-on popup (SPEC §4 "External sign-in"): the sign-in page opens the provider's
 * page (`/auth/saml/login`, `/auth/office365`, `/auth/login_google`) in a popup; after the identity provider, the popup exchanges its hand-over token for the sign-in's
 * next step and passes it to the sign-in page, which goes on as after a password.
 *
 * The step travels on a BroadcastChannel (same origin only), not through `window.opener`: Moat's
 * pages send Cross-Origin-Opener-Policy: same-origin, so the popup's trip to the identity provider
 * cuts its link to the opener. Whether this tab is such a popup is noted in its own session
 * storage before it leaves (a tab's session storage outlives that trip). A tab that is no popup
 * (popups blocked, the page opened in the tab) keeps the step for the console's login page, as
 * the public bundle's hand-over does.
 */

const CHANNEL = 'moat:sso';
const POPUP_MARK = 'moat.sso.popup';
const POPUP_FEATURES = 'popup=yes,width=520,height=680';

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Each provider's popup page (SPEC §2.1: /auth/saml/login, /auth/office365, /auth/login_google). */
export const SSO_POPUP_ROUTE = {
  saml: ROUTES.auth.samlLogin,
  microsoft: ROUTES.auth.office365,
  google: ROUTES.auth.loginGoogle,
} as const;

/** Which providers the sign-in page offers (the public features of the same names). */
export interface SsoFlags {
  samlAuth: boolean;
  office365Auth: boolean;
  googleAuth: boolean;
}
export const NO_SSO: SsoFlags = { samlAuth: false, office365Auth: false, googleAuth: false };

/** The sign-in page's buttons, in order: the provider, its flag and its label. */
export const SSO_BUTTONS = [
  { provider: 'microsoft', flag: 'office365Auth', label: 'auth.login.microsoft' },
  { provider: 'google', flag: 'googleAuth', label: 'auth.login.google' },
  { provider: 'saml', flag: 'samlAuth', label: 'auth.login.saml' },
] as const satisfies ReadonlyArray<{
  provider: keyof typeof SSO_POPUP_ROUTE;
  flag: keyof SsoFlags;
  label: TranslationKey;
}>;

/** Open a provider's popup; null when the browser refused (the link then opens in this tab). */
export function openSsoPopup(provider: keyof typeof SSO_POPUP_ROUTE): Window | null {
  try {
    return window.open(
      `${window.location.pathname}#${SSO_POPUP_ROUTE[provider]}`,
      'moat-sso',
      POPUP_FEATURES,
    );
  } catch {
    return null;
  }
}

/** Before the popup leaves for the identity provider: remember that this tab is the popup. */
export function markSsoPopup(): void {
  if (!window.opener) return;
  try {
    storage()?.setItem(POPUP_MARK, '1');
  } catch {
    // Without storage the answer stays in this tab.
  }
}

/** Calls `onAnswer` with each step a popup of this origin passes on; returns the unsubscribe. */
export function onSsoAnswer(onAnswer: (answer: LoginStepAnswer) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => {};
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    try {
      onAnswer(loginStepAnswer.parse(event.data));
    } catch {
      // Not a step: ignored.
    }
  };
  return () => channel.close();
}

/**
 * Hand the step to whoever goes on with the sign-in: the sign-in page that opened this popup
 * ('popup': the popup then closes), or the console's login page in this tab ('resume'), or
 * nobody ('none': session storage is blocked).
 */
export function deliverSsoAnswer(answer: LoginStepAnswer): 'popup' | 'resume' | 'none' {
  const store = storage();
  const isPopup = store?.getItem(POPUP_MARK) === '1';
  store?.removeItem(POPUP_MARK);
  if (isPopup && typeof BroadcastChannel !== 'undefined') {
    const channel = new BroadcastChannel(CHANNEL);
    channel.postMessage(answer);
    channel.close();
    window.close();
    return 'popup';
  }
  return saveSignInResume(answer) ? 'resume' : 'none';
}
