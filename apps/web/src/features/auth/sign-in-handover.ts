import { LOGIN_STEPS, type LoginStep } from '@moat/contracts/auth-paths';

/**
 * The login page of the public bundle hands a started sign-in to the console: the server's answer
 * to the credentials (the next step, the email, whether a login reason is due) waits in this tab's
 * session storage while the page loads afresh with the console, whose sign-in (`SignIn`) goes on
 * from that step: the one-time code, mail verification, MFA setup, the login reason, then where
 * the user goes. Only this origin's scripts can write it; it is taken once, within a minute, then gone.
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
/** How long a saved sign-in waits for the reload that follows it. */
export const SIGN_IN_RESUME_MAX_AGE_MS = 60_000;

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function saveSignInResume(resume: SignInResume, now = Date.now()): boolean {
  const store = storage();
  if (!store) return false;
  try {
    store.setItem(KEY, JSON.stringify({ ...resume, savedAt: now }));
    return store.getItem(KEY) !== null;
  } catch {
    return false;
  }
}

/** Whether a sign-in waits for the console (the boot script then loads the console). */
export function hasSignInResume(now = Date.now()): boolean {
  return readResume(storage()?.getItem(KEY) ?? null, now) !== null;
}

function readResume(raw: string | null, now: number): SignInResume | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return null;
    const { next, email, login_reason_required, savedAt } = value as Record<string, unknown>;
    // Only the reload that follows the save takes it: one left behind (a tab that never got to the
    // console's login route, a duplicated tab) is not followed later.
    if (typeof savedAt !== 'number' || !(now - savedAt >= 0 && now - savedAt <= SIGN_IN_RESUME_MAX_AGE_MS)) {
      return null;
    }
    if (!(LOGIN_STEPS as readonly unknown[]).includes(next)) return null;
    if (typeof email !== 'string' || typeof login_reason_required !== 'boolean') return null;
    return { next: next as LoginStep, email, login_reason_required };
  } catch {
    return null;
  }
}

/** The waiting sign-in, removed as it is read; null when there is none (or it is not one). */
export function takeSignInResume(now = Date.now()): SignInResume | null {
  const store = storage();
  if (!store) return null;
  const raw = store.getItem(KEY);
  store.removeItem(KEY);
  return readResume(raw, now);
}
