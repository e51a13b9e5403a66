import { PORTAL_BRANDS } from '@moat/contracts/constants';
import { cliActor } from '../../lib/actor.ts';
import { createLoginLink } from '../../modules/auth/login-links.ts';
import { type Command, HELP, oneOf, required } from './command.ts';

/** Signing in on someone's behalf: a one-time link, through the way in of a portal brand. */
export const authCommands: Record<string, Command> = {
  'auth:link': {
    summary:
      'Print a one-time sign-in link for a user (single use, valid 10 minutes); --brand picks the portal way in (msp: accessToken, checkpoint: firstTimeToken, firewall: authtoken with --serial)',
    usage: 'auth:link --email EMAIL [--brand msp|checkpoint|firewall] [--serial FIREWALL_SERIAL]',
    options: { ...HELP, email: { type: 'string' }, brand: { type: 'string' }, serial: { type: 'string' } },
    async run({ values }, ctx, deps) {
      const link = await createLoginLink(
        {
          clock: ctx.clock,
          publicUrl: ctx.config.publicUrl,
          users: deps.users,
          userTokens: deps.userTokens,
          audit: deps.audit,
        },
        required(values, 'email'),
        cliActor,
        {
          brand: oneOf(values.brand, PORTAL_BRANDS, 'brand'),
          serial: typeof values.serial === 'string' ? values.serial : undefined,
        },
      );
      return `One-time sign-in link (valid 10 minutes, works once):\n${link}`;
    },
  },
};
