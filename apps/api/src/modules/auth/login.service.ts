import { PASSWORDS_OFF_MESSAGE, TENANT_APPROVAL_MESSAGE } from '@moat/contracts/auth-paths';
import { AppError } from '../../errors.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { TenantRow } from '../tenants/tenants.repo.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { Credentials } from './credentials.ts';
import type { MailVerificationService } from './mail-verification.service.ts';
import type { PasswordService } from './password.service.ts';
import { type RequestMeta, type SignIn, type StepOutcome, stepResponse, userActor } from './sign-in.ts';

const mfaRequired = (user: UserRow, tenant: TenantRow) => user.mfaRequired || tenant.mfaRequired;

/**
 * The password step of a sign-in (captcha, brute-force rules, support access, password age) and
 * where it leads: a session, or the MFA code, or the mail verification before a first MFA setup.
 * Also the end of a session and the reasons a user gives for signing in or out.
 */
export function createLoginService(deps: {
  credentials: Pick<Credentials, 'provePassword' | 'assertVerifiedCaptcha'>;
  passwords: Pick<PasswordService, 'assertNotExpired' | 'replaceOneTimePassword'>;
  mailVerification: Pick<MailVerificationService, 'sendMailCode'>;
  signIn: Pick<SignIn, 'tenantOf' | 'auditUser' | 'finish' | 'startChallenge'>;
  sessions: Pick<SessionsService, 'revoke' | 'clearLoginReason'>;
  audit: Pick<AuditRepo, 'record'>;
  metrics: Pick<Metrics, 'loginFailures'>;
}) {
  const { signIn } = deps;

  /** Mail verification then the MFA setup, when the admin requires MFA the user has not set up. */
  async function requiredMfaSetup(user: UserRow): Promise<StepOutcome> {
    const { token, challenge } = await signIn.startChallenge(user, 'mail_verification');
    await deps.mailVerification.sendMailCode(user, challenge);
    return { response: stepResponse(user, 'mail_verification'), challengeToken: token };
  }

  /**
   * The one-time code when the user has MFA; mail verification then setup when it is required.
   * A one-time password is replaced first (after the code, before a required setup): the session
   * `finish` opens then can do nothing else.
   */
  async function secondFactor(
    user: UserRow,
    tenant: TenantRow,
    meta: RequestMeta,
    method: string,
  ): Promise<StepOutcome> {
    if (user.mfaEnabled && user.mfaSecret) {
      const { token } = await signIn.startChallenge(user, 'mfa_code');
      return { response: stepResponse(user, 'mfa_code'), challengeToken: token };
    }
    if (mfaRequired(user, tenant) && !user.mustChangePassword) return requiredMfaSetup(user);
    return signIn.finish(user, meta, method, false);
  }

  return {
    async login(
      input: { email: string; current_password: string; recaptcha_token?: string | null },
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const captcha = await deps.credentials
        .assertVerifiedCaptcha(input.recaptcha_token, meta)
        .catch((error) => {
          deps.metrics.loginFailures.inc({ reason: 'captcha_failed' });
          throw error;
        });
      const user = await deps.credentials.provePassword(input.email, input.current_password, meta, {
        captcha,
      });
      const tenant = await signIn.tenantOf(user);
      if (user.hidden && !tenant.supportAccessEnabled) {
        await signIn.auditUser(user, meta, 'auth.login_blocked', { reason: 'support_access_off' });
        throw new AppError('tenant_approval_required', TENANT_APPROVAL_MESSAGE);
      }
      if (!tenant.passwordsAllowed && user.role !== 'admin') {
        await signIn.auditUser(user, meta, 'auth.login_blocked', { reason: 'passwords_off' });
        throw new AppError('forbidden', PASSWORDS_OFF_MESSAGE);
      }
      await deps.passwords.assertNotExpired(user, tenant, meta);
      if (user.automationCustomer) return signIn.finish(user, meta, 'password (automation customer)', false);
      return secondFactor(user, tenant, meta, 'password');
    },

    /**
     * After an identity provider vouched for the user (SSO, issue 15): Moat's own second factor
     * only when the tenant requires MFA; otherwise the session.
     */
    async afterSso(user: UserRow, meta: RequestMeta, method: string): Promise<StepOutcome> {
      const tenant = await signIn.tenantOf(user);
      if (user.hidden && !tenant.supportAccessEnabled) {
        await signIn.auditUser(user, meta, 'auth.login_blocked', { reason: 'support_access_off', method });
        throw new AppError('tenant_approval_required', TENANT_APPROVAL_MESSAGE);
      }
      if (!tenant.mfaRequired) return signIn.finish(user, meta, method, false);
      return secondFactor(user, tenant, meta, method);
    },

    /**
     * The one-time password replaced (the session that used it, which ends with every other): the
     * MFA setup the admin requires, or a new session that offers MFA to a user without it.
     */
    async replaceOneTimePassword(
      session: { mfaVerified: boolean },
      user: UserRow,
      input: { new_password: string },
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const updated = await deps.passwords.replaceOneTimePassword(user, input, meta);
      const tenant = await signIn.tenantOf(updated);
      if (!updated.mfaEnabled && mfaRequired(updated, tenant)) {
        return { ...(await requiredMfaSetup(updated)), clearSession: true };
      }
      return signIn.finish(
        updated,
        meta,
        'one-time password replaced',
        session.mfaVerified,
        !updated.mfaEnabled,
      );
    },

    async logout(session: { id: number } | null, user: UserRow | null, meta: RequestMeta): Promise<void> {
      if (!session || !user) return;
      await deps.sessions.revoke(session.id);
      await signIn.auditUser(user, meta, 'auth.logout');
    },

    async loginReason(
      session: { id: number },
      user: UserRow,
      reason: string,
      meta: RequestMeta,
    ): Promise<void> {
      await signIn.auditUser(user, meta, 'Login-Reason', { loginReason: reason });
      await deps.sessions.clearLoginReason(session.id);
    },

    async logoutReason(reason: string, user: UserRow | null, meta: RequestMeta): Promise<void> {
      await deps.audit.record(user ? userActor(user, meta) : { type: 'anonymous', ip: meta.ip }, {
        tenantId: user?.tenantId ?? null,
        action: 'auth.logout_reason',
        details: { reason },
      });
    },
  };
}
export type LoginService = ReturnType<typeof createLoginService>;
