import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { hashToken } from '../../lib/tokens.ts';
import type { Mailer } from '../../mail/outbound.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { EmailCodes } from '../email-codes/email-codes.service.ts';
import type { FeaturesRepo } from '../features/features.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import { ssoBinding } from '../sso/sso-handover.ts';
import type { TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UsersRepo } from '../users/users.repo.ts';
import type { Captcha } from './captcha.ts';
import { createCodeLock } from './code-lock.ts';
import { createCredentials } from './credentials.ts';
import { createDeviceTrust } from './device-trust.ts';
import { createLoginService } from './login.service.ts';
import type { LoginChallengesRepo } from './login-challenges.repo.ts';
import { createMailVerificationService } from './mail-verification.service.ts';
import { createMfaChallengeService } from './mfa-challenge.service.ts';
import { createPasswordService } from './password.service.ts';
import { createSignIn, type RequestMeta, type StepOutcome } from './sign-in.ts';
import { createSignInNotices } from './sign-in-notices.ts';
import type { Throttle } from './throttle.ts';
import { createTokenLoginService } from './token-login.service.ts';
import type { UserTokensRepo } from './user-tokens.repo.ts';

/**
 * The auth module's pieces, one per way in (see each file), wired together once: the routes see
 * one object. Each piece receives only the repository methods and collaborators it uses.
 *   sign-in.ts                  what every path shares: the pending challenge, the session at the end
 *   credentials.ts              password proof under the brute-force rules (throttle.ts), and the captcha
 *   device-trust.ts             the device cookie of a browser that signed in before
 *   code-lock.ts                wrong MFA and emailed codes of a user, over every sign-in
 *   sign-in-notices.ts          the emails those rules send
 *   login.service.ts            the password step and where it leads; logout; login/logout reasons
 *   mfa-challenge.service.ts    the MFA code at sign-in, and the first enrolment that turns MFA on
 *   mail-verification.service.ts the mailbox proof before a first MFA setup
 *   password.service.ts         forgotten password, invitations, expired and one-time passwords
 *   token-login.service.ts      the token sign-ins: one-time links, the portals of SPEC §3 (portal-tokens.ts)
 */
export function createAuthService(deps: {
  db: Pick<Db, 'transaction'>;
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'maintenanceDomains' | 'portalLoginSecret'>;
  serverKey: Pick<ServerKey, 'encrypt' | 'decrypt' | 'derive'>;
  mailer: Pick<Mailer, 'send'>;
  captcha: Pick<Captcha, 'check'>;
  throttle: Pick<Throttle, 'isBlocked' | 'blockedUntil' | 'failures' | 'recordFailure' | 'clear'>;
  sessions: Pick<SessionsService, 'open' | 'revoke' | 'revokeAllOf' | 'clearLoginReason'>;
  codes: Pick<EmailCodes, 'issue' | 'waitTime' | 'issuedCount' | 'check'>;
  users: Pick<UsersRepo, 'findById' | 'findByEmail' | 'findByInviteHash' | 'update' | 'acceptTotpStep'>;
  tenants: Pick<TenantsRepo, 'findById'>;
  features: Pick<FeaturesRepo, 'flagsOf'>;
  audit: Pick<AuditRepo, 'record'>;
  challenges: Pick<
    LoginChallengesRepo,
    'insert' | 'findLive' | 'takeAttempt' | 'setStage' | 'setPendingSecret' | 'consume'
  >;
  userTokens: Pick<UserTokensRepo, 'insert' | 'use' | 'claim' | 'voidAllOf' | 'latestCreatedAt'>;
  log: { error(obj: unknown, msg: string): void };
  /**
   * Takes sign-in attempts of one account, and code checks of one user, in turn on every node
   * (Database.withLock); default: this process.
   */
  accountLock?: <T>(key: string, task: () => Promise<T>) => Promise<T>;
  /** Refused and throttled sign-ins (issue 14). */
  metrics: Pick<Metrics, 'loginFailures' | 'loginThrottled'>;
}) {
  const { clock, users, audit, challenges, userTokens, sessions, mailer } = deps;
  const deviceTrust = createDeviceTrust(deps.serverKey);
  const signIn = createSignIn({
    clock,
    config: deps.config,
    users,
    tenants: deps.tenants,
    features: deps.features,
    challenges,
    audit,
    sessions,
    deviceTrust,
  });
  const notices = createSignInNotices({ config: deps.config, mailer, signIn });
  const credentials = createCredentials({
    clock,
    users,
    audit,
    captcha: deps.captcha,
    throttle: deps.throttle,
    deviceTrust,
    notices,
    accountLock: deps.accountLock,
    metrics: deps.metrics,
  });
  const codeLock = createCodeLock({
    clock,
    throttle: deps.throttle,
    notices,
    metrics: deps.metrics,
    userLock: deps.accountLock,
  });
  const mailVerification = createMailVerificationService({
    signIn,
    challenges,
    codes: deps.codes,
    mailer,
    codeLock,
  });
  const mfaChallenge = createMfaChallengeService({
    clock,
    serverKey: deps.serverKey,
    signIn,
    challenges,
    users,
    codeLock,
    metrics: deps.metrics,
  });
  const passwords = createPasswordService({
    db: deps.db,
    clock,
    config: deps.config,
    credentials,
    signIn,
    challenges,
    users,
    userTokens,
    audit,
    sessions,
    mailer,
    throttle: deps.throttle,
    log: deps.log,
  });
  const login = createLoginService({
    credentials,
    passwords,
    mailVerification,
    signIn,
    sessions,
    audit,
    metrics: deps.metrics,
  });
  const tokenLogin = createTokenLoginService({
    clock,
    portalLoginSecret: deps.config.portalLoginSecret,
    signIn,
    users,
    userTokens,
    audit,
  });

  return {
    login: login.login,
    logout: login.logout,
    loginReason: login.loginReason,
    logoutReason: login.logoutReason,
    verifyMfaCode: mfaChallenge.verifyMfaCode,
    setupPublic: mfaChallenge.setupPublic,
    verifyPublic: mfaChallenge.verifyPublic,
    sendMailVerification: mailVerification.sendMailVerification,
    verifyMailCode: mailVerification.verifyMailCode,
    forgotPassword: passwords.forgotPassword,
    resetPassword: passwords.resetPassword,
    changeExpiredPassword: passwords.changeExpiredPassword,
    changeOwnPassword: passwords.changeOwnPassword,
    replaceOneTimePassword: login.replaceOneTimePassword,
    tokenLogin: tokenLogin.tokenLogin,
    portalLogin: tokenLogin.portalLogin,
    /** The popup's hand-over token after a SAML answer (modules/sso): the sign-in's next step. */
    async ssoComplete(token: string, browserSecret: string, meta: RequestMeta): Promise<StepOutcome> {
      const binding = ssoBinding(hashToken(browserSecret));
      const userId = await userTokens.use(hashToken(token), 'sso_handoff', clock.now(), undefined, binding);
      const user = userId ? await users.findById(userId) : null;
      if (user?.status !== 'active') {
        throw new AppError(
          'invalid_token',
          'This single sign-on has expired or was already used. Start again.',
        );
      }
      return login.afterSso(user, meta, 'sso');
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
