import { type Challenge, createChallenge, randomInt, type Solution, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Config } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import type { CaptchaRepo } from './captcha.repo.ts';

const CHALLENGE_TTL_MS = 10 * 60_000;

/** Where reCAPTCHA and Turnstile check a token (their documented siteverify endpoints). */
const SITEVERIFY = {
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
} as const;
const PBKDF2_COST = 1_000;

/**
 * The self-hosted ALTCHA proof of work: the browser must find a counter whose derived key has
 * the signed prefix; checking costs the server one derivation. A solved challenge counts once.
 */
export function createCaptcha(deps: {
  repo: Pick<CaptchaRepo, 'markUsed' | 'forgetExpired'>;
  clock: Clock;
  serverKey: ServerKey;
  config: Pick<Config, 'captcha'>;
}) {
  const signatureSecret = deps.serverKey.derive('altcha-signature').toString('hex');
  const keySignatureSecret = deps.serverKey.derive('altcha-key-signature').toString('hex');
  const difficulty = deps.config.captcha.difficulty;
  let lastSweep = 0;

  return {
    challenge(): Promise<Challenge> {
      return createChallenge({
        algorithm: 'PBKDF2/SHA-256',
        cost: PBKDF2_COST,
        counter: randomInt(Math.ceil(difficulty / 2), difficulty),
        deriveKey,
        expiresAt: new Date(deps.clock.now().getTime() + CHALLENGE_TTL_MS),
        hmacSignatureSecret: signatureSecret,
        hmacKeySignatureSecret: keySignatureSecret,
      });
    },

    /**
     * Whether the captcha token is good: for ALTCHA, the widget's payload (base64 JSON of
     * {challenge, solution}) must be a fresh, valid solution; for reCAPTCHA or Turnstile, their
     * siteverify endpoint must say so.
     */
    async verify(token: string | null | undefined, remoteIp?: string | null): Promise<boolean> {
      if (!token) return false;
      const { provider, secretKey } = deps.config.captcha;
      if (provider !== 'altcha') {
        const body = new URLSearchParams({
          secret: secretKey ?? '',
          response: token,
          ...(remoteIp ? { remoteip: remoteIp } : {}),
        });
        const answer = await fetch(SITEVERIFY[provider], {
          method: 'POST',
          body,
          signal: AbortSignal.timeout(5_000),
        })
          .then((r) => r.json() as Promise<{ success?: boolean }>)
          .catch(() => ({ success: false }));
        return answer.success === true;
      }
      let payload: { challenge: Challenge; solution: Solution };
      try {
        payload = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
      } catch {
        return false;
      }
      if (!payload?.challenge?.parameters || !payload.solution) return false;
      const result = await verifySolution({
        challenge: payload.challenge,
        solution: payload.solution,
        deriveKey,
        hmacSignatureSecret: signatureSecret,
        hmacKeySignatureSecret: keySignatureSecret,
      }).catch(() => null);
      if (!result?.verified) return false;
      const now = deps.clock.now();
      if (now.getTime() - lastSweep > 60_000) {
        lastSweep = now.getTime();
        await deps.repo.forgetExpired(now);
      }
      return deps.repo.markUsed(
        payload.challenge.parameters.nonce,
        new Date(now.getTime() + CHALLENGE_TTL_MS),
      );
    },
  };
}
export type Captcha = ReturnType<typeof createCaptcha>;
