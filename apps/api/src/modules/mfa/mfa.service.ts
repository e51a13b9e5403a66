import type { MfaSettings } from '@moat/contracts/auth';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { matchTotpStep, newTotpSecret, totpEnrolment } from '../../lib/totp.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { confirmOwnPassword } from '../auth/credentials.ts';
import { MFA_SECRET_PURPOSE } from '../auth/mfa-challenge.service.ts';
import type { RequestMeta } from '../auth/sign-in.ts';
import type { Throttle } from '../auth/throttle.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UserRow, UsersRepo } from '../users/users.repo.ts';

/** MFA of the signed-in user (SPEC §4 "MFA setup dialog"): suggestion → setup → verified → active. */
export function createMfaService(deps: {
  db: Pick<Db, 'transaction'>;
  clock: Clock;
  serverKey: Pick<ServerKey, 'encrypt' | 'decrypt'>;
  sessions: Pick<SessionsService, 'revokeAllOf'>;
  throttle: Pick<Throttle, 'isBlocked' | 'recordFailure'>;
  users: Pick<UsersRepo, 'update'>;
  tenants: Pick<TenantsRepo, 'findById'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  const { users, tenants, audit } = deps;

  async function required(user: UserRow): Promise<boolean> {
    const tenant = await tenants.findById(user.tenantId);
    return user.mfaRequired || Boolean(tenant?.mfaRequired);
  }
  const actor = (user: UserRow, meta: RequestMeta) => ({
    type: 'user' as const,
    userId: user.id,
    email: user.email,
    ip: meta.ip,
  });
  const assertSelf = (user: UserRow, email: string) => {
    if (email !== user.email) throw new AppError('forbidden', 'You can only manage your own MFA');
  };

  return {
    async settings(user: UserRow, email: string): Promise<MfaSettings> {
      assertSelf(user, email);
      return {
        mfaWasSet: user.mfaEnabled,
        isMfaEnabled: user.mfaEnabled,
        isVerified: user.mfaEnabled,
        mfaRequired: await required(user),
      };
    },

    /** A new secret to enrol, kept encrypted and pending until a code from it is verified. */
    async startSetup(user: UserRow, email: string) {
      assertSelf(user, email);
      if (user.mfaEnabled)
        throw new AppError('conflict', 'MFA is already active. Disable it first to set it up again.');
      const secret = newTotpSecret();
      await users.update(user.id, { mfaPendingSecret: deps.serverKey.encrypt(MFA_SECRET_PURPOSE, secret) });
      const tenant = await tenants.findById(user.tenantId);
      return totpEnrolment(secret, user.email, mailBrand(tenant).name);
    },

    async verifySetup(
      user: UserRow,
      session: { id: number },
      input: { userEmail: string; code: string; secret: string },
      meta: RequestMeta,
    ): Promise<boolean> {
      assertSelf(user, input.userEmail);
      if (!user.mfaPendingSecret) throw new AppError('conflict', 'Start the MFA setup first');
      const secret = deps.serverKey.decrypt(MFA_SECRET_PURPOSE, user.mfaPendingSecret);
      if (input.secret !== secret) throw new AppError('bad_request', 'The secret does not match this setup');
      const step = matchTotpStep(secret, input.code, deps.clock.now());
      if (step === null) return false;
      await deps.db.transaction(async (tx) => {
        await users.update(
          user.id,
          {
            mfaSecret: deps.serverKey.encrypt(MFA_SECRET_PURPOSE, secret),
            mfaEnabled: true,
            mfaPendingSecret: null,
            mfaLastStep: step,
          },
          tx,
        );
        await deps.sessions.revokeAllOf(user.id, session.id, tx);
        await audit.record(
          actor(user, meta),
          { tenantId: user.tenantId, action: 'mfa.enable', targetType: 'user', targetId: user.id },
          tx,
        );
      });
      return true;
    },

    /** Only MFA that no admin requires can be turned off, and only with the password re-entered. */
    async disable(
      user: UserRow,
      session: { id: number },
      email: string,
      password: string,
      meta: RequestMeta,
    ): Promise<void> {
      assertSelf(user, email);
      if (await required(user)) {
        throw new AppError(
          'mfa_required_by_admin',
          'Your administrator requires MFA: it cannot be turned off.',
        );
      }
      await confirmOwnPassword(deps, user, password, meta, 'mfa.disable_failed');
      await deps.db.transaction(async (tx) => {
        await users.update(user.id, { mfaEnabled: false, mfaSecret: null, mfaPendingSecret: null }, tx);
        await deps.sessions.revokeAllOf(user.id, session.id, tx);
        await audit.record(
          actor(user, meta),
          { tenantId: user.tenantId, action: 'mfa.disable', targetType: 'user', targetId: user.id },
          tx,
        );
      });
    },
  };
}
export type MfaService = ReturnType<typeof createMfaService>;
