import type { Config } from '../../config.ts';
import { accountAttackedEmail, mfaLockedEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { SignIn } from './sign-in.ts';

/**
 * What the user is told by email when the sign-in's brute-force rules act on their account
 * (throttle.ts): once when the account sees many wrong passwords, once per pause of the code step.
 */
export function createSignInNotices(deps: {
  config: Pick<Config, 'publicUrl'>;
  mailer: Pick<Mailer, 'send'>;
  signIn: Pick<SignIn, 'tenantOf'>;
}) {
  const forgotPasswordUrl = `${deps.config.publicUrl}/#/auth/forgot-password`;
  const brandOf = async (user: UserRow) => mailBrand(await deps.signIn.tenantOf(user));

  return {
    async accountAttacked(user: UserRow, facts: { failures: number; ip: string | null }): Promise<void> {
      await deps.mailer.send({
        tenantId: user.tenantId,
        kind: 'account_attacked',
        to: user.email,
        ...accountAttackedEmail(await brandOf(user), { email: user.email, ...facts, forgotPasswordUrl }),
      });
    },

    async mfaLocked(user: UserRow, facts: { failures: number; until: Date }): Promise<void> {
      await deps.mailer.send({
        tenantId: user.tenantId,
        kind: 'mfa_locked',
        to: user.email,
        // One mail per pause, whichever node or retry sends it.
        idempotencyKey: `mfa_locked:${user.id}:${facts.until.toISOString()}`,
        ...mfaLockedEmail(await brandOf(user), { email: user.email, ...facts, forgotPasswordUrl }),
      });
    },
  };
}
export type SignInNotices = ReturnType<typeof createSignInNotices>;
