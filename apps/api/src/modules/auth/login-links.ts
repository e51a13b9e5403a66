import { PORTAL_SERIAL_PARAM, PORTAL_TOKEN_PARAM, type PortalBrand } from '@moat/contracts/constants';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UsersRepo } from '../users/users.repo.ts';
import { PORTAL_TOKEN_KIND } from './token-login.service.ts';
import type { UserTokensRepo } from './user-tokens.repo.ts';

export const LOGIN_LINK_TTL_MS = 10 * 60_000;

/**
 * A one-time sign-in link (CLI auth:link): a token that works once, for 10 minutes, through the
 * way in of its brand (SPEC §3 "Auth tokens"): `accessToken` (msp, the default), `firstTimeToken`
 * (checkpoint) or `authtoken` with the firewall's serial number in `domain` (firewall).
 */
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
  options: { brand?: PortalBrand; serial?: string } = {},
): Promise<string> {
  const brand = options.brand ?? 'msp';
  const serial = options.serial?.trim() || undefined;
  if ((brand === 'firewall') !== (serial !== undefined)) {
    throw new AppError(
      'validation_error',
      brand === 'firewall'
        ? 'A firewall sign-in link needs the serial number of the firewall (--serial)'
        : 'Only a firewall sign-in link takes a serial number',
    );
  }
  if (serial !== undefined && serial.length > 100) {
    throw new AppError('validation_error', 'The serial number is at most 100 characters');
  }
  const user = await deps.users.findByEmail(email.trim().toLowerCase());
  if (user?.status !== 'active') throw new AppError('not_found', `No active user has the email ${email}`);
  const token = newToken();
  const now = deps.clock.now();
  await deps.userTokens.insert({
    tokenHash: hashToken(token),
    kind: PORTAL_TOKEN_KIND[brand],
    userId: user.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LOGIN_LINK_TTL_MS),
    boundTo: serial ?? null,
  });
  await deps.audit.record(actor, {
    tenantId: user.tenantId,
    action: 'auth.login_link_created',
    targetType: 'user',
    targetId: user.id,
    details: { brand },
  });
  const query = new URLSearchParams({ [PORTAL_TOKEN_PARAM[brand]]: token });
  if (serial !== undefined) query.set(PORTAL_SERIAL_PARAM, serial);
  return `${deps.publicUrl}/#/dashboard?${query}`;
}
