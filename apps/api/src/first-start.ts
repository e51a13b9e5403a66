import type { SeedResult } from './seed.ts';

/**
 * The first start's box on the terminal: the first admin, the one-time password (when generated),
 * and where to sign in — PUBLIC_URL, which the links in emails use too.
 */
export function firstStartLines(seed: SeedResult, publicUrl: { url: string; set: boolean }): string[] {
  return [
    `First start: created tenant "${seed.tenantName}" and its admin ${seed.adminEmail}.`,
    ...(seed.generatedPassword
      ? [
          `Generated admin password (shown only this once, store it now): ${seed.generatedPassword}`,
          'It works once: the first sign-in asks you to choose your own password.',
        ]
      : ['The admin password is the one given in ADMIN_PASSWORD.']),
    `Sign in at ${publicUrl.url}/#/auth/login`,
    publicUrl.set
      ? 'That address is PUBLIC_URL; the links in the emails Moat sends use it too.'
      : `That address is PUBLIC_URL's default (PUBLIC_URL is not set); the links in emails use it too.`,
    ...(publicUrl.set
      ? []
      : ['Set PUBLIC_URL to the address people reach Moat at (e.g. https://moat.example.com).']),
  ];
}
