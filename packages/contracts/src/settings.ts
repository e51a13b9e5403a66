import { z } from 'zod/mini';
import { RETENTION_MAX_DAYS, RETENTION_MIN_DAYS } from './quarantine-admin.ts';
import { emailSchema, noNul } from './validation.ts';

/**
 * Configuration → Settings (SPEC §2.4, issue 12; admins, a demo deployment's users may look): the
 * organisation's sign-in policy, session limits, quarantine retention, the sender of Moat's mail
 * and who gets the admins' alerts. Each change is audited and effective at once. (The recipients'
 * digest is set in Settings → User Interaction → Quarantine.)
 */
export const SETTINGS_API = { settings: '/api/v1/settings' } as const;

/** The safe bounds of each limit. */
export const SETTINGS_BOUNDS = {
  passwordMaxAgeDays: { min: 30, max: 730 },
  sessionIdleMinutes: { min: 5, max: 480 },
  sessionAbsoluteHours: { min: 1, max: 24 },
  retentionDays: { min: RETENTION_MIN_DAYS, max: RETENTION_MAX_DAYS },
  alertRecipients: { max: 20 },
} as const;

const B = SETTINGS_BOUNDS;

export const settingsSchema = z
  .object({
    mfa_required: z.boolean(),
    /** Null: passwords never expire. */
    password_max_age_days: z.nullable(z.int()),
    session_idle_minutes: z.int(),
    session_absolute_hours: z.int(),
    /** Maintenance support access (SPEC §4): the provider's hidden support users may sign in. */
    support_access_enabled: z.boolean(),
    retention_days: z.int(),
    /** Null: the server's address (shown in `default_mail_from`). */
    mail_from_address: z.nullable(z.string()),
    /** Null: the brand's name. */
    mail_from_name: z.nullable(z.string()),
    /** Empty: every active admin. */
    alert_recipients: z.array(z.string()),
    /**
     * Read-only: what a null sender means (MAIL_FROM, else no-reply@ the first domain, else
     * PUBLIC_URL's host) — null when no sensible sender can be chosen: then Moat's own mail waits
     * until one is set. And the domains a sender or recipient must be on.
     */
    default_mail_from: z.nullable(z.string()),
    default_mail_from_name: z.string(),
    domains: z.array(z.string()),
  })
  .register(z.globalRegistry, { id: 'Settings' });
export type Settings = z.infer<typeof settingsSchema>;

const senderName = z.string().check(
  z.trim(),
  z.minLength(1),
  z.maxLength(100),
  z.refine(noNul, 'must not contain a NUL character'),
  z.refine((v) => !/[<>"\r\n]/.test(v), 'must not contain < > " or line breaks'),
);

/** A change of some settings; the rest stay. */
export const settingsUpdateSchema = z
  .partial(
    z.strictObject({
      mfa_required: z.boolean(),
      password_max_age_days: z.nullable(
        z.int().check(z.gte(B.passwordMaxAgeDays.min), z.lte(B.passwordMaxAgeDays.max)),
      ),
      session_idle_minutes: z.int().check(z.gte(B.sessionIdleMinutes.min), z.lte(B.sessionIdleMinutes.max)),
      session_absolute_hours: z
        .int()
        .check(z.gte(B.sessionAbsoluteHours.min), z.lte(B.sessionAbsoluteHours.max)),
      support_access_enabled: z.boolean(),
      retention_days: z.int().check(z.gte(B.retentionDays.min), z.lte(B.retentionDays.max)),
      mail_from_address: z.nullable(emailSchema),
      mail_from_name: z.nullable(senderName),
      alert_recipients: z.array(emailSchema).check(z.maxLength(B.alertRecipients.max)),
    }),
  )
  .check(z.refine((body) => Object.keys(body).length > 0, { message: 'name at least one setting to change' }))
  .register(z.globalRegistry, { id: 'SettingsUpdate' });
export type SettingsUpdate = z.input<typeof settingsUpdateSchema>;
