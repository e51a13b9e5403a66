/**
 * The navigation state a forced sign-out hands to the sign-in page (SPEC §8 "Global": the login
 * page receives the error and the user), which records it as the logout reason.
 */
export interface LoginNavigationState {
  error: string;
  user: string | null;
}

export function readLoginNavigationState(state: unknown): LoginNavigationState | null {
  if (typeof state !== 'object' || state === null || !('error' in state)) return null;
  const { error } = state;
  if (typeof error !== 'string' || !error) return null;
  const user = 'user' in state && typeof state.user === 'string' ? state.user : null;
  return { error, user };
}
