import type { RecaptchaConfig } from '@moat/contracts/public-config';
import type { CaptchaSolver } from './altcha-solver';

/**
 * A solved challenge is used within this time; an older one is solved again (the server's
 * challenges expire after ten minutes).
 */
export const CAPTCHA_TOKEN_MAX_AGE_MS = 5 * 60_000;

export interface CaptchaSessionDeps {
  loadConfig: () => Promise<RecaptchaConfig>;
  /** Loads the widget (lazily) and mounts it for the challenge URL. */
  loadSolver: (challengeUrl: string) => Promise<CaptchaSolver>;
  now?: () => number;
}

export interface CaptchaSession {
  /** Starts solving a challenge in the background, so a submission need not wait for it. */
  prepare(): void;
  /** The token for one submission (null without a usable captcha); the next one starts solving. */
  take(): Promise<string | null>;
  dispose(): void;
}

/**
 * The ALTCHA challenge URL of the configuration, or null (logged, SPEC §8 "Missing captcha
 * configuration"): no key, or a third-party provider whose script this build does not load (the
 * CSP allows no outside scripts). The server then answers captcha_failed, which the form shows.
 */
export function altchaChallengeUrl(config: RecaptchaConfig): string | null {
  if (config.provider === 'altcha' && config.key) return config.key;
  console.error(
    config.key
      ? `Captcha provider "${config.provider}" needs a third-party script that this build does not load; no captcha token is sent.`
      : 'Missing captcha configuration: no captcha token is sent.',
  );
  return null;
}

export function createCaptchaSession(deps: CaptchaSessionDeps): CaptchaSession {
  const now = deps.now ?? Date.now;
  let disposed = false;
  let solver: Promise<CaptchaSolver | null> | null = null;
  let next: Promise<{ token: string | null; solvedAt: number } | null> | null = null;

  const getSolver = () => {
    solver ??= deps.loadConfig().then(
      async (config) => {
        const url = altchaChallengeUrl(config);
        if (!url) return null;
        const loaded = await deps.loadSolver(url);
        if (disposed) loaded.dispose();
        return disposed ? null : loaded;
      },
      (error: unknown) => {
        console.error('Missing captcha configuration: it could not be loaded.', error);
        return null;
      },
    );
    return solver;
  };

  const prepare = () => {
    next = getSolver()
      .then(async (loaded) => (loaded ? { token: await loaded.solve(), solvedAt: now() } : null))
      .catch((error: unknown) => {
        console.error('The captcha could not be solved.', error);
        // Try loading it again on the next submission.
        solver = null;
        return null;
      });
    return next;
  };

  return {
    prepare: () => void prepare(),
    async take() {
      let ready = await (next ?? prepare());
      if (ready && now() - ready.solvedAt > CAPTCHA_TOKEN_MAX_AGE_MS) ready = await prepare();
      if (!disposed) prepare();
      return ready?.token ?? null;
    },
    dispose() {
      disposed = true;
      void solver?.then((loaded) => loaded?.dispose());
    },
  };
}
