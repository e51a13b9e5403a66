import { TENANT_APPROVAL_MESSAGE } from '@moat/contracts/auth-paths';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UsersRepo } from '../users/users.repo.ts';
import type { RequestMeta, SignIn, StepOutcome } from './sign-in.ts';
import type { UserTokensRepo } from './user-tokens.repo.ts';

/** A one-time sign-in link (`auth:link`, see login-links.ts): once, for 10 minutes, no MFA. */
export function createTokenLoginService(deps: {
  clock: Clock;
  signIn: Pick<SignIn, 'tenantOf' | 'auditUser' | 'finish'>;
  users: Pick<UsersRepo, 'findById'>;
  userTokens: Pick<UserTokensRepo, 'use'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  const { signIn } = deps;
  return {
    async tokenLogin(accessToken: string, meta: RequestMeta): Promise<StepOutcome> {
      const userId = await deps.userTokens.use(hashToken(accessToken), 'login_link', deps.clock.now());
      const user = userId ? await deps.users.findById(userId) : null;
      if (user?.status !== 'active') {
        await deps.audit.record(
          { type: 'anonymous', ip: meta.ip },
          { tenantId: null, action: 'auth.token_login_failed' },
        );
        throw new AppError('invalid_token', 'This sign-in link is invalid, has expired or was already used.');
      }
      if (user.hidden && !(await signIn.tenantOf(user)).supportAccessEnabled) {
        await signIn.auditUser(user, meta, 'auth.login_blocked', {
          reason: 'support_access_off',
          method: 'login_link',
        });
        throw new AppError('tenant_approval_required', TENANT_APPROVAL_MESSAGE);
      }
      return signIn.finish(user, meta, 'login_link', false);
    },
  };
}
export type TokenLoginService = ReturnType<typeof createTokenLoginService>;
