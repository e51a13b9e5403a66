import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import { createAuditRepo } from '../audit/audit.repo.ts';
import { createUsersRepo } from '../users/users.repo.ts';
import { LOGIN_LINK_TTL_MS } from './auth.service.ts';
import { createUserTokensRepo } from './user-tokens.repo.ts';

/** A one-time sign-in link (CLI auth:link): an accessToken that works once, for 10 minutes. */
export async function createLoginLink(
  deps: { db: Db; clock: Clock; publicUrl: string },
  email: string,
  actor: Actor,
): Promise<string> {
  const user = await createUsersRepo(deps.db).findByEmail(email.trim().toLowerCase());
  if (user?.status !== 'active') throw new AppError('not_found', `No active user has the email ${email}`);
  const token = newToken();
  const now = deps.clock.now();
  await createUserTokensRepo(deps.db).insert({
    tokenHash: hashToken(token),
    kind: 'login_link',
    userId: user.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LOGIN_LINK_TTL_MS),
  });
  await createAuditRepo(deps.db).record(actor, {
    tenantId: user.tenantId,
    action: 'auth.login_link_created',
    targetType: 'user',
    targetId: user.id,
  });
  return `${deps.publicUrl}/#/dashboard?accessToken=${token}`;
}
