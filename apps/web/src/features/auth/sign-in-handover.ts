import { LOGIN_STEPS, type LoginStep } from '@moat/contracts/auth-paths';

/**
 * The login page of the public bundle hands a started sign-in to the console: the server's answer
 * to the credentials (the next step, the email, whether a login reason is due) waits in this tab's
 * session storage while the page loads afresh with the console, whose sign-in (`SignIn`) goes on
 * from that step: the one-time code, mail verification, MFA setup, the login reason, then where
 * the user goes. Only this origin's scripts can write it; a stale one is taken once, then gone.
 */
export interface SignInResume {
  next: LoginStep;
  email: string;
  login_reason_required: boolean;
}

/** What the console's login route loader answers: the sign-in to go on with, if any. */
export interface LoginLoaderData {
  resume: SignInResume | null;
}

const KEY = 'moat.signIn.resume';

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function saveSignInResume(resume: SignInResume): boolean {
  try {
    storage()?.setItem(KEY, JSON.stringify(resume));
    return storage()?.getItem(KEY) !== null;
  } catch {
    return false;
  }
}

/** Whether a sign-in waits for the console (the boot script then loads the console). */
export function hasSignInResume(): boolean {
  return storage()?.getItem(KEY) != null;
}

function readResume(raw: string | null): SignInResume | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return null;
    const { next, email, login_reason_required } = value as Record<string, unknown>;
    if (!(LOGIN_STEPS as readonly unknown[]).includes(next)) return null;
    if (typeof email !== 'string' || typeof login_reason_required !== 'boolean') return null;
    return { next: next as LoginStep, email, login_reason_required };
  } catch {
    return null;
  }
}

/** The waiting sign-in, removed as it is read; null when there is none (or it is not one). */
export function takeSignInResume(): SignInResume | null {
  const store = storage();
  if (!store) return null;
  const raw = store.getItem(KEY);
  store.removeItem(KEY);
  return readResume(raw);
}
