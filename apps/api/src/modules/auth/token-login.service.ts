import { TENANT_APPROVAL_MESSAGE } from '@moat/contracts/auth-paths';
import type { PortalBrand } from '@moat/contracts/constants';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UsersRepo } from '../users/users.repo.ts';
import { PORTAL_TOKEN_PREFIX, readPortalToken } from './portal-tokens.ts';
import type { RequestMeta, SignIn, StepOutcome } from './sign-in.ts';
import type { UserTokenKind, UserTokensRepo } from './user-tokens.repo.ts';

/** Each brand's tokens are their own kind: a token opens only the way in it was issued for. */
export const PORTAL_TOKEN_KIND: Record<PortalBrand, UserTokenKind> = {
  msp: 'login_link',
  checkpoint: 'login_checkpoint',
  firewall: 'login_firewall',
};

export const INVALID_SIGN_IN_TOKEN_MESSAGE = 'This sign-in link is invalid, has expired or was already used.';

/**
 * The token sign-ins of SPEC §3 "Auth tokens" and §7: once, for minutes, no MFA (the portal that
 * sent the user has signed them in). A token is either one `auth:link` issued (stored as its
 * hash, bound to its brand and, for the firewall vendor, to the serial number) or one a parent
 * portal signed with PORTAL_LOGIN_SECRET (portal-tokens.ts), remembered by its id until it expires.
 */
export function createTokenLoginService(deps: {
  clock: Clock;
  portalLoginSecret: string | undefined;
  signIn: Pick<SignIn, 'tenantOf' | 'auditUser' | 'finish'>;
  users: Pick<UsersRepo, 'findById' | 'findByEmail'>;
  userTokens: Pick<UserTokensRepo, 'use' | 'claim'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  const { signIn } = deps;

  /** The user a token signs in, using the token up; null when it signs in no one. */
  async function useToken(brand: PortalBrand, token: string, serial: string | null): Promise<string | null> {
    const now = deps.clock.now();
    const kind = PORTAL_TOKEN_KIND[brand];
    if (!token.startsWith(PORTAL_TOKEN_PREFIX)) {
      return deps.userTokens.use(hashToken(token), kind, now, undefined, serial ?? undefined);
    }
    const claims = deps.portalLoginSecret ? readPortalToken(deps.portalLoginSecret, token, now) : null;
    if (!claims || claims.brand !== brand || (claims.serial ?? null) !== serial) return null;
    const user = await deps.users.findByEmail(claims.email);
    if (!user) return null;
    const first = await deps.userTokens.claim({
      tokenHash: hashToken(`portal:${claims.jti}`),
      kind,
      userId: user.id,
      createdAt: now,
      expiresAt: new Date(claims.exp * 1000),
      usedAt: now,
      boundTo: claims.serial ?? null,
    });
    return first ? user.id : null;
  }

  /**
   * Sign in with a brand's token; `serial` is the firewall's serial number, which only (and
   * always) comes with the firewall vendor's token.
   */
  async function portalLogin(
    brand: PortalBrand,
    token: string,
    serial: string | null,
    meta: RequestMeta,
  ): Promise<StepOutcome> {
    const userId = await useToken(brand, token, serial);
    const user = userId ? await deps.users.findById(userId) : null;
    if (user?.status !== 'active') {
      await deps.audit.record(
        { type: 'anonymous', ip: meta.ip },
        { tenantId: null, action: 'auth.token_login_failed', details: { brand } },
      );
      throw new AppError('invalid_token', INVALID_SIGN_IN_TOKEN_MESSAGE);
    }
    const method = brand === 'msp' ? 'login_link' : `portal_${brand}`;
    if (user.hidden && !(await signIn.tenantOf(user)).supportAccessEnabled) {
      await signIn.auditUser(user, meta, 'auth.login_blocked', { reason: 'support_access_off', method });
      throw new AppError('tenant_approval_required', TENANT_APPROVAL_MESSAGE);
    }
    return signIn.finish(user, meta, method, false);
  }

  return {
    portalLogin,
    /** A one-time sign-in link's `accessToken` (the msp brand's token, as JSON). */
    tokenLogin: (accessToken: string, meta: RequestMeta) => portalLogin('msp', accessToken, null, meta),
  };
}
export type TokenLoginService = ReturnType<typeof createTokenLoginService>;
