import type { CaptchaSolver } from '../features/auth/captcha/altcha-solver';

/**
 * Stands in for the ALTCHA widget module in every test (jsdom runs no workers): each solve
 * answers a new token, as the real widget answers a new payload for each challenge.
 */
let solved = 0;

export async function createAltchaSolver(challengeUrl: string): Promise<CaptchaSolver> {
  return {
    solve: async () => `captcha-token-${++solved}@${challengeUrl}`,
    dispose() {},
  };
}
