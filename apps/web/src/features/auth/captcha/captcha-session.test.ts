import type { RecaptchaConfig } from '@moat/contracts/public-config';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CaptchaSolver } from './altcha-solver';
import { CAPTCHA_TOKEN_MAX_AGE_MS, createCaptchaSession } from './captcha-session';

function fakeSolver() {
  let count = 0;
  const solver: CaptchaSolver & { solved: () => number } = {
    solve: vi.fn(async () => `token-${++count}`),
    dispose: vi.fn(),
    solved: () => count,
  };
  return solver;
}

const altcha: RecaptchaConfig = { provider: 'altcha', key: '/api/v1/auth/captcha/challenge' };

describe('captcha session', () => {
  afterEach(() => vi.restoreAllMocks());

  it('loads the ALTCHA widget for the challenge URL, solves ahead, and gives each submission a new token', async () => {
    const solver = fakeSolver();
    const loadSolver = vi.fn(async () => solver);
    const session = createCaptchaSession({ loadConfig: async () => altcha, loadSolver });
    session.prepare();
    expect(await session.take()).toBe('token-1');
    expect(await session.take()).toBe('token-2');
    expect(loadSolver).toHaveBeenCalledTimes(1);
    expect(loadSolver).toHaveBeenCalledWith('/api/v1/auth/captcha/challenge');
    session.dispose();
    await vi.waitFor(() => expect(solver.dispose).toHaveBeenCalled());
  });

  it('solves again when the prepared token is too old to use', async () => {
    let now = 0;
    const solver = fakeSolver();
    const session = createCaptchaSession({
      loadConfig: async () => altcha,
      loadSolver: async () => solver,
      now: () => now,
    });
    session.prepare();
    await vi.waitFor(() => expect(solver.solved()).toBe(1));
    now = CAPTCHA_TOKEN_MAX_AGE_MS + 1;
    expect(await session.take()).toBe('token-2');
  });

  it.each<[string, RecaptchaConfig]>([
    ['no key', { provider: 'altcha', key: null }],
    ['a third-party provider', { provider: 'recaptcha', key: 'site-key' }],
    ['Turnstile', { provider: 'turnstile', key: 'site-key' }],
  ])('with %s only logs to the console and sends no token', async (_, config) => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const loadSolver = vi.fn();
    const session = createCaptchaSession({ loadConfig: async () => config, loadSolver });
    expect(await session.take()).toBeNull();
    expect(loadSolver).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalled();
  });

  it('sends no token when the configuration cannot be loaded, and logs it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const session = createCaptchaSession({
      loadConfig: async () => {
        throw new Error('offline');
      },
      loadSolver: vi.fn(),
    });
    expect(await session.take()).toBeNull();
    expect(log).toHaveBeenCalledWith(
      expect.stringContaining('Missing captcha configuration'),
      expect.any(Error),
    );
  });

  it('loads the widget again after it failed', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const solver = fakeSolver();
    const loadSolver = vi
      .fn<(url: string) => Promise<CaptchaSolver>>()
      .mockRejectedValueOnce(new Error('chunk failed'))
      .mockResolvedValue(solver);
    const session = createCaptchaSession({ loadConfig: async () => altcha, loadSolver });
    expect(await session.take()).toBeNull();
    expect(await session.take()).toBe('token-1');
  });
});
