import { z } from 'zod/mini';
import { LOGIN_STEPS } from './auth-paths.ts';
import { ONE_TIME_CODE_LENGTH, PASSWORD_MIN_LENGTH, PORTAL_TOKEN_MAX_LENGTH } from './constants.ts';
import { emailSchema } from './validation.ts';

export { STARTUP_TOKEN_PARAMS } from './constants.ts';

/** GET /api/v1/auth/session: whether this browser has a live session (never a 403). */
export const authSessionSchema = z.object({
  authenticated: z.boolean(),
  login_reason_required: z.boolean(),
  /** The session's user signed in with a one-time password and must choose a new one first. */
  password_change_required: z.boolean(),
});
export type AuthSession = z.infer<typeof authSessionSchema>;

const codeSchema = z
  .string()
  .check(z.trim(), z.regex(new RegExp(`^\\d{${ONE_TIME_CODE_LENGTH}}$`), 'invalid_code'));

/** POST /api/v1/auth/login — the login form (SPEC §3). */
export const loginRequestSchema = z
  .object({
    email: emailSchema,
    current_password: z.string().check(z.minLength(1, 'invalid_password'), z.maxLength(1024)),
    recaptcha_token: z.nullish(z.string().check(z.maxLength(20_000))),
  })
  .register(z.globalRegistry, { id: 'LoginRequest' });
export type LoginRequest = z.input<typeof loginRequestSchema>;

export const loginStepResponseSchema = z
  .object({
    success: z.boolean(),
    next: z.enum(LOGIN_STEPS),
    email: z.string(),
    mfaWasSet: z.boolean(),
    automation_customer: z.boolean(),
    /** Maintenance rule: the user must give a login reason before using the console. */
    login_reason_required: z.boolean(),
  })
  .register(z.globalRegistry, { id: 'LoginStepResponse' });
export type LoginStepResponse = z.infer<typeof loginStepResponseSchema>;

/** POST /api/v1/auth/mfa/verify — the one-time-code form. A wrong code answers success false. */
export const mfaCodeRequestSchema = z
  .object({ code: codeSchema })
  .register(z.globalRegistry, { id: 'MfaCodeRequest' });

/** POST /api/v1/mail_verification/verify (SPEC §7). 403 means a wrong code. */
export const mailVerificationRequestSchema = z
  .object({ email: emailSchema, code: codeSchema })
  .register(z.globalRegistry, { id: 'MailVerificationRequest' });

export const mailVerificationSendResponseSchema = z
  .object({ success: z.boolean(), wait_time: z.int() })
  .register(z.globalRegistry, { id: 'MailVerificationSendResponse' });

/** MFA settings (SPEC §3). */
export const mfaSettingsSchema = z
  .object({
    mfaWasSet: z.boolean(),
    isMfaEnabled: z.boolean(),
    isVerified: z.boolean(),
    /** Required by an admin (tenant or user): then it cannot be disabled. */
    mfaRequired: z.boolean(),
  })
  .register(z.globalRegistry, { id: 'MfaSettings' });
export type MfaSettings = z.infer<typeof mfaSettingsSchema>;

export const mfaUserRequestSchema = z
  .object({ userEmail: emailSchema })
  .register(z.globalRegistry, { id: 'MfaUserRequest' });

export const mfaEnrolmentSchema = z
  .object({ secret: z.string(), qrCodeSrc: z.string(), otpauthUrl: z.string() })
  .register(z.globalRegistry, { id: 'MfaEnrolment' });
export type MfaEnrolment = z.infer<typeof mfaEnrolmentSchema>;

export const mfaVerifySetupRequestSchema = z
  .object({ code: codeSchema, userEmail: emailSchema, secret: z.string().check(z.maxLength(200)) })
  .register(z.globalRegistry, { id: 'MfaVerifySetupRequest' });

/** DELETE /api/v1/mfa/disable/{email} */
export const mfaDisableParamsSchema = z.object({ email: z.string().check(z.maxLength(254)) });

export const mfaDisableRequestSchema = z
  .object({ password: z.string().check(z.minLength(1), z.maxLength(1024)) })
  .register(z.globalRegistry, { id: 'MfaDisableRequest' });

export const successSchema = z.object({ success: z.boolean() }).register(z.globalRegistry, { id: 'Success' });

export const newPasswordSchema = z
  .string()
  .check(z.minLength(PASSWORD_MIN_LENGTH, 'password_too_short'), z.maxLength(1024, 'password_too_long'));

export const forgotPasswordRequestSchema = z
  .object({ email: emailSchema, recaptcha_token: z.nullish(z.string().check(z.maxLength(20_000))) })
  .register(z.globalRegistry, { id: 'ForgotPasswordRequest' });

export const resetPasswordRequestSchema = z
  .object({ token: z.string().check(z.minLength(1), z.maxLength(200)), newPassword: newPasswordSchema })
  .register(z.globalRegistry, { id: 'ResetPasswordRequest' });

export const passwordExpiredRequestSchema = z
  .object({
    email: emailSchema,
    current_password: z
      .string()
      .check(z.minLength(PASSWORD_MIN_LENGTH, 'password_too_short'), z.maxLength(1024)),
    new_password: newPasswordSchema,
    confirm_password: z.string().check(z.maxLength(1024)),
  })
  .check(
    z.refine((v) => v.new_password === v.confirm_password, {
      path: ['confirm_password'],
      message: 'passwords_do_not_match',
    }),
  )
  .register(z.globalRegistry, { id: 'PasswordExpiredRequest' });

/**
 * POST /api/v1/auth/password_change: the one-time password's replacement (the session that used
 * it); it must differ from the one-time password.
 */
export const passwordChangeRequestSchema = z
  .strictObject({
    new_password: newPasswordSchema,
    confirm_password: z.string().check(z.maxLength(1024)),
  })
  .check(
    z.refine((v) => v.new_password === v.confirm_password, {
      path: ['confirm_password'],
      message: 'passwords_do_not_match',
    }),
  )
  .register(z.globalRegistry, { id: 'PasswordChangeRequest' });
export type PasswordChangeRequest = z.infer<typeof passwordChangeRequestSchema>;

export const loginReasonRequestSchema = z
  .object({
    loginReason: z.string().check(z.trim(), z.minLength(1, 'provide_login_reason'), z.maxLength(2000)),
  })
  .register(z.globalRegistry, { id: 'LoginReasonRequest' });

export const logoutReasonRequestSchema = z
  .object({ reason: z.string().check(z.trim(), z.minLength(1), z.maxLength(500)) })
  .register(z.globalRegistry, { id: 'LogoutReasonRequest' });

const portalTokenSchema = z.string().check(z.minLength(1), z.maxLength(PORTAL_TOKEN_MAX_LENGTH));

export const tokenLoginRequestSchema = z
  .object({ accessToken: portalTokenSchema })
  .register(z.globalRegistry, { id: 'TokenLoginRequest' });

/** POST /api/v1/current_user/server_login (SPEC §7): a multipart form with the msp brand's token. */
export const serverLoginRequestSchema = z
  .object({ token: portalTokenSchema })
  .register(z.globalRegistry, { id: 'ServerLoginRequest' });

/**
 * POST /api/v1/current_user/auto_login (SPEC §7): `{session_id}` is the checkpoint brand's token;
 * with `serial_number` it is the firewall vendor's, for that firewall.
 */
export const autoLoginRequestSchema = z
  .strictObject({
    session_id: portalTokenSchema,
    serial_number: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
  })
  .register(z.globalRegistry, { id: 'AutoLoginRequest' });
export type AutoLoginRequest = z.infer<typeof autoLoginRequestSchema>;
