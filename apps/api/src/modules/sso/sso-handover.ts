import type { Role } from '@moat/contracts/deployment';
import { domainOfEmail, emailSchema } from '@moat/contracts/validation';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UserTokensRepo } from '../auth/user-tokens.repo.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UsersRepo } from '../users/users.repo.ts';

export const SSO_HANDOFF_MS = 2 * 60_000;

/** A refused answer: why, for the audit log (the browser is told only that the sign-in failed). */
export class SsoRefused extends Error {}

/** What every provider's hand-over binds to: the browser that started the sign-in. */
export const ssoBinding = (browserHash: string) => `sso:${browserHash}`;

export type SsoProviderName = 'saml' | 'microsoft' | 'google';

/**
 * The end every identity provider's answer shares: refuse it with a reason in the audit log, or
 * find the user of the email in the tenant (creating it just in time when the tenant allows) and
 * make the two-minute hand-over token the starting browser exchanges for its sign-in's next step.
 */
export function createSsoHandover(deps: {
  clock: Clock;
  tenants: Pick<TenantsRepo, 'domainsOf'>;
  users: Pick<UsersRepo, 'findByEmail' | 'insert'>;
  userTokens: Pick<UserTokensRepo, 'insert'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  return {
    /** Audit the refusal and throw SsoRefused. */
    async refuse(
      provider: SsoProviderName,
      tenantId: string | null,
      ip: string | null,
      reason: string,
    ): Promise<never> {
      const actor: Actor = { type: 'anonymous', ip };
      await deps.audit.record(actor, {
        tenantId,
        action: 'auth.sso_failed',
        details: { provider, reason: reason.slice(0, 300) },
      });
      throw new SsoRefused(reason);
    },

    /** The hand-over token for `email` of `tenant`, or the reason it is refused. */
    async handOver(input: {
      provider: SsoProviderName;
      tenant: TenantRow;
      email: string;
      browserHash: string;
      jit: { enabled: boolean; role: Role };
      ip: string | null;
    }): Promise<string> {
      const { provider, tenant, ip } = input;
      const refuse = (reason: string) => this.refuse(provider, tenant.id, ip, reason);
      // The provider vouches for the account, not for the text's shape: an address only.
      const parsed = emailSchema.safeParse(input.email);
      if (!parsed.success) return refuse('the provider named no valid email address');
      const email = parsed.data;
      if (!(await deps.tenants.domainsOf(tenant.id)).includes(domainOfEmail(email))) {
        return refuse(`${email} is not in one of the tenant's domains`);
      }
      let user = await deps.users.findByEmail(email);
      if (user && user.tenantId !== tenant.id) return refuse(`${email} belongs to another tenant`);
      if (!user) {
        if (!input.jit.enabled) return refuse(`no user ${email} (just-in-time creation is off)`);
        user = await deps.users.insert({
          tenantId: tenant.id,
          email,
          role: input.jit.role,
          status: 'active',
        });
        await deps.audit.record(
          { type: 'system' },
          {
            tenantId: tenant.id,
            action: 'user.created',
            targetType: 'user',
            targetId: user.id,
            details: { email, role: input.jit.role, via: `${provider}_jit` },
          },
        );
      }
      if (user.status !== 'active') return refuse(`${email} is not active`);
      const token = newToken();
      const now = deps.clock.now();
      await deps.userTokens.insert({
        tokenHash: hashToken(token),
        kind: 'sso_handoff',
        userId: user.id,
        createdAt: now,
        expiresAt: new Date(now.getTime() + SSO_HANDOFF_MS),
        boundTo: ssoBinding(input.browserHash),
      });
      await deps.audit.record(
        { type: 'user', userId: user.id, email, ip },
        {
          tenantId: tenant.id,
          action: 'auth.sso_accepted',
          targetType: 'user',
          targetId: user.id,
          details: { provider },
        },
      );
      return token;
    },
  };
}
export type SsoHandover = ReturnType<typeof createSsoHandover>;
