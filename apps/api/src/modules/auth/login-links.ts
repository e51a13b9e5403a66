import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UsersRepo } from '../users/users.repo.ts';
import type { UserTokensRepo } from './user-tokens.repo.ts';

export const LOGIN_LINK_TTL_MS = 10 * 60_000;

/** A one-time sign-in link (CLI auth:link): an accessToken that works once, for 10 minutes. */
export async function createLoginLink(
  deps: {
    clock: Clock;
    publicUrl: string;
    users: Pick<UsersRepo, 'findByEmail'>;
    userTokens: Pick<UserTokensRepo, 'insert'>;
    audit: Pick<AuditRepo, 'record'>;
  },
  email: string,
  actor: Actor,
): Promise<string> {
  const user = await deps.users.findByEmail(email.trim().toLowerCase());
  if (user?.status !== 'active') throw new AppError('not_found', `No active user has the email ${email}`);
  const token = newToken();
  const now = deps.clock.now();
  await deps.userTokens.insert({
    tokenHash: hashToken(token),
    kind: 'login_link',
    userId: user.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LOGIN_LINK_TTL_MS),
  });
  await deps.audit.record(actor, {
    tenantId: user.tenantId,
    action: 'auth.login_link_created',
    targetType: 'user',
    targetId: user.id,
  });
  return `${deps.publicUrl}/#/dashboard?accessToken=${token}`;
}
