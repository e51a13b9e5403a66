import { cliActor } from '../../lib/actor.ts';
import { createLoginLink } from '../../modules/auth/login-links.ts';
import { type Command, HELP, required } from './command.ts';

/** Signing in on someone's behalf: a one-time link. */
export const authCommands: Record<string, Command> = {
  'auth:link': {
    summary: 'Print a one-time sign-in link for a user (single use, valid 10 minutes)',
    usage: 'auth:link --email EMAIL',
    options: { ...HELP, email: { type: 'string' } },
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
      );
      return `One-time sign-in link (valid 10 minutes, works once):\n${link}`;
    },
  },
};
