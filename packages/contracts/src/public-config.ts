import { z } from 'zod/mini';

export const CAPTCHA_PROVIDERS = ['altcha', 'recaptcha', 'turnstile'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

/** GET /api/v1/generic/recaptcha_config */
export const recaptchaConfigSchema = z
  .object({
    provider: z.enum(CAPTCHA_PROVIDERS),
    key: z.nullable(z.string()).register(z.globalRegistry, {
      description:
        'Site key of reCAPTCHA or Turnstile; for the self-hosted ALTCHA proof of work, the URL of its challenge. Null when no captcha is configured.',
    }),
  })
  .register(z.globalRegistry, { id: 'RecaptchaConfig' });
export type RecaptchaConfig = z.infer<typeof recaptchaConfigSchema>;

/** GET /healthz */
export const healthSchema = z
  .object({ status: z.literal('ok') })
  .register(z.globalRegistry, { id: 'Health' });

/** GET /readyz */
export const readinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({
      database: z.enum(['ok', 'unreachable']),
      migrations: z.enum(['ok', 'pending']),
      /** This node's SECRET_KEY is the one the database was set up with (every node shares it). */
      secret_key: z.enum(['ok', 'mismatch', 'unknown']),
    }),
  })
  .register(z.globalRegistry, { id: 'Readiness' });
export type Readiness = z.infer<typeof readinessSchema>;
