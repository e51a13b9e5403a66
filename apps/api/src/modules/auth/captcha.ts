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
/** The stronger challenge an account that sees many failed sign-ins asks for: this many times the work. */
export const STRONG_CAPTCHA_FACTOR = 10;

/**
 * What a solved captcha proves: `strong`, the stronger ALTCHA challenge (or reCAPTCHA and
 * Turnstile, which have no levels: their own checks decide); `standard`, the usual one.
 */
export type CaptchaStrength = 'standard' | 'strong';

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

  async function check(
    token: string | null | undefined,
    remoteIp?: string | null,
  ): Promise<CaptchaStrength | null> {
    if (!token) return null;
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
      return answer.success === true ? 'strong' : null;
    }
    let payload: { challenge: Challenge; solution: Solution };
    try {
      payload = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    } catch {
      return null;
    }
    if (!payload?.challenge?.parameters || !payload.solution) return null;
    const result = await verifySolution({
      challenge: payload.challenge,
      solution: payload.solution,
      deriveKey,
      hmacSignatureSecret: signatureSecret,
      hmacKeySignatureSecret: keySignatureSecret,
    }).catch(() => null);
    if (!result?.verified) return null;
    const now = deps.clock.now();
    if (now.getTime() - lastSweep > 60_000) {
      lastSweep = now.getTime();
      await deps.repo.forgetExpired(now);
    }
    const fresh = await deps.repo.markUsed(
      payload.challenge.parameters.nonce,
      new Date(now.getTime() + CHALLENGE_TTL_MS),
    );
    if (!fresh) return null;
    // The strength is in the signed parameters: the browser cannot raise it.
    return payload.challenge.parameters.data?.strength === 'strong' ? 'strong' : 'standard';
  }

  return {
    /** A challenge of the usual work, or (`strong`) of STRONG_CAPTCHA_FACTOR times as much. */
    challenge(strength: CaptchaStrength = 'standard'): Promise<Challenge> {
      const work = strength === 'strong' ? difficulty * STRONG_CAPTCHA_FACTOR : difficulty;
      return createChallenge({
        algorithm: 'PBKDF2/SHA-256',
        cost: PBKDF2_COST,
        counter: randomInt(Math.ceil(work / 2), work),
        ...(strength === 'strong' ? { data: { strength } } : {}),
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
    verify: async (token: string | null | undefined, remoteIp?: string | null): Promise<boolean> =>
      (await check(token, remoteIp)) !== null,

    /** `verify`, answering what the captcha proved (null: it did not pass). */
    check,
  };
}
export type Captcha = ReturnType<typeof createCaptcha>;
