import { ADD_ON_IDS } from '@moat/contracts/add-ons';
import { INCIDENT_SEVERITIES } from '@moat/contracts/console';
import { THEMES } from '@moat/contracts/constants';
import {
  APP_STATES,
  BRANDS,
  DEPLOYMENT_MODES,
  DIGEST_SCHEDULES,
  ROLES,
  SAAS_APPS,
  SECURITY_TOOLS,
  USER_STATUSES,
} from '@moat/contracts/deployment';
import { DKIM_ALGORITHMS, DKIM_KEY_STATES } from '@moat/contracts/dkim-signing';
import { DLP_ACTIONS, DLP_CUSTOM_KINDS, type DlpHit } from '@moat/contracts/dlp';
import {
  DMARC_ALERT_KINDS,
  DMARC_RESULTS,
  DNS_RECORD_KINDS,
  INTAKE_KINDS,
  INTAKE_OUTCOMES,
  REPORT_SOURCES,
  type SampleHeader,
  type TlsPolicy,
} from '@moat/contracts/dmarc';
import type { SessionTls, StoredMessageDetails } from '@moat/contracts/message-trace';
import { OUTBOUND_HELD_STATUSES } from '@moat/contracts/outbound';
import { REPORT_KINDS, REPORT_STATUSES } from '@moat/contracts/phishing-reports';
import { RESTORE_KINDS, RESTORE_MODES, RESTORE_REQUEST_STATUSES, VERDICTS } from '@moat/contracts/quarantine';
import { ATTACHMENT_STATES, MESSAGE_STATES } from '@moat/contracts/quarantine-admin';
import {
  COPY_STATUSES,
  IMAP_TLS_MODES,
  RETRACTION_ACTIONS,
  RETRACTION_STATUSES,
  RETRACTION_TRIGGERS,
  RETRACTION_VERDICTS,
} from '@moat/contracts/retraction';
import { EVENT_TYPES, type EventDetails } from '@moat/contracts/security-events';
import { type SQL, sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => new Uint8Array(value),
});

/**
 * `"column" in ('a', 'b')`: the CHECK of an enum column, built from the same array that types the
 * column, so the database and the code cannot disagree. The text is what the hand-written checks
 * were, so the migrations see no change.
 */
function inList(column: AnyPgColumn, values: readonly string[]): SQL {
  const literals = values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ');
  return sql`${column} in (${sql.raw(literals)})`;
}

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

/** Customer configs of SPEC §3 "Deployment config": training, dmarc, archiving, sspm. */
export type CustomerConfigs = Record<
  'training' | 'dmarc' | 'archiving' | 'sspm',
  { is_active: boolean; msp_allowed: boolean }
>;

export const tenants = pgTable(
  'tenants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    brand: text('brand', { enum: BRANDS }).notNull().default('moat'),
    brandName: text('brand_name'),
    deploymentMode: text('deployment_mode', { enum: DEPLOYMENT_MODES }).notNull().default('poc'),
    portalLicenseState: text('portal_license_state'),
    // MSP
    isMsp: boolean('is_msp').notNull().default(false),
    isManagedService: boolean('is_managed_service').notNull().default(false),
    isAvananMsp: boolean('is_avanan_msp').notNull().default(false),
    isCpMsp: boolean('is_cp_msp').notNull().default(false),
    mspBrandId: text('msp_brand_id'),
    parentTenantId: uuid('parent_tenant_id'),
    associationDate: timestamp('association_date', { withTimezone: true }),
    // Licence and trial
    demoExpirationDate: timestamp('demo_expiration_date', { withTimezone: true }),
    paidStartDate: timestamp('paid_start_date', { withTimezone: true }),
    paidExpirationDate: timestamp('paid_expiration_date', { withTimezone: true }),
    trialStartDate: timestamp('trial_start_date', { withTimezone: true }).notNull().defaultNow(),
    trialExpirationDays: integer('trial_expiration_days').notNull().default(30),
    waitingForApproval: boolean('waiting_for_approval').notNull().default(false),
    unifiedQuarantineManuallyDisabled: boolean('unified_quarantine_manually_disabled')
      .notNull()
      .default(false),
    amplitudeKey: text('amplitude_key'),
    customerConfigs: jsonb('customer_configs')
      .$type<CustomerConfigs>()
      .notNull()
      .default({
        training: { is_active: false, msp_allowed: true },
        dmarc: { is_active: false, msp_allowed: true },
        archiving: { is_active: false, msp_allowed: true },
        sspm: { is_active: false, msp_allowed: true },
      }),
    /** How long quarantined mail (and its links) is kept. */
    retentionDays: integer('retention_days').notNull().default(30),
    /** The recipients' quarantine digest: off, daily or weekly. */
    digestSchedule: text('digest_schedule', { enum: DIGEST_SCHEDULES }).notNull().default('off'),
    /**
     * Smart Banners (migration 0029): each verdict's banner (words, colour, subject tag) and the
     * senders that get none; read with `bannerSettingsFrom` (what is missing is its default).
     */
    bannerSettings: jsonb('banner_settings').$type<Record<string, unknown>>().notNull().default({}),
    /** Settings → User Interaction → Quarantine: approvers, notices, digest (`quarantineSettingsFrom`). */
    quarantineSettings: jsonb('quarantine_settings').$type<Record<string, unknown>>().notNull().default({}),
    /** Settings → User Interaction → Phishing Reports: the report buttons (`reportSettingsFrom`). */
    reportSettings: jsonb('report_settings').$type<Record<string, unknown>>().notNull().default({}),
    // Sign-in policy
    supportAccessEnabled: boolean('support_access_enabled').notNull().default(false),
    mfaRequired: boolean('mfa_required').notNull().default(false),
    passwordMaxAgeDays: integer('password_max_age_days'),
    /** Settings → Sign-in: false when the tenant signs in with SSO only (its admins keep passwords). */
    passwordsAllowed: boolean('passwords_allowed').notNull().default(true),
    /** A session unused this long ends (Settings, 5 to 480). */
    sessionIdleMinutes: integer('session_idle_minutes').notNull().default(30),
    /** A session ends this long after sign-in, whatever its use (Settings, 1 to 24). */
    sessionAbsoluteHours: integer('session_absolute_hours').notNull().default(12),
    // The sender of Moat's own mail to this tenant's people; null: the server's MAIL_FROM and the brand.
    mailFromAddress: text('mail_from_address'),
    mailFromName: text('mail_from_name'),
    /** Who gets the admins' alerts; empty: every active admin. */
    alertRecipients: text('alert_recipients').array().notNull().default(sql`'{}'::text[]`),
    /** When the first admin finished onboarding; null: admins are led to /onboarding first. */
    onboardedAt: timestamp('onboarded_at', { withTimezone: true }),
    /**
     * The tenant's own next hop (its mail server, `smtp://host:port`) for the mail Moat delivers to
     * its people; null: the deployment's SMTP_RELAY_URL.
     */
    nextHopUrl: text('next_hop_url'),
    // Brand assets
    /** The theme of anyone who has not chosen one (Customization). */
    defaultApplicationMode: text('default_application_mode', { enum: THEMES }).notNull().default('mixed'),
    logo: bytea('logo'),
    logoMime: text('logo_mime'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('tenants_brand_check', inList(t.brand, BRANDS)),
    check('tenants_deployment_mode_check', inList(t.deploymentMode, DEPLOYMENT_MODES)),
    check('tenants_trial_days_check', sql`${t.trialExpirationDays} >= 0`),
    check('tenants_digest_schedule_check', inList(t.digestSchedule, DIGEST_SCHEDULES)),
    check('tenants_default_application_mode_check', inList(t.defaultApplicationMode, THEMES)),
    check('tenants_session_idle_check', sql`${t.sessionIdleMinutes} between 5 and 480`),
    check('tenants_session_absolute_check', sql`${t.sessionAbsoluteHours} between 1 and 24`),
    check(
      'tenants_logo_check',
      sql`(${t.logo} is null) = (${t.logoMime} is null) and coalesce(octet_length(${t.logo}), 0) <= 1048576`,
    ),
  ],
);

export const tenantDomains = pgTable(
  'tenant_domains',
  {
    domain: text('domain').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /**
     * How the gateway checks recipients at RCPT (issue 9): auto (callout to the next hop when a
     * relay is configured, else off), callout, known (the tenant's users and held recipients), off.
     */
    recipientVerification: text('recipient_verification').notNull().default('auto'),
    /** Mail from this domain through Moat is DKIM-signed with its active keys (issue 38, 0043). */
    dkimSigning: boolean('dkim_signing').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index('tenant_domains_tenant_idx').on(t.tenantId),
    check('tenant_domains_lowercase_check', sql`${t.domain} = lower(${t.domain})`),
    check(
      'tenant_domains_recipient_verification_check',
      sql`${t.recipientVerification} in ('auto', 'callout', 'known', 'off')`,
    ),
  ],
);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    role: text('role', { enum: ROLES }).notNull().default('user'),
    status: text('status', { enum: USER_STATUSES }).notNull().default('active'),
    hidden: boolean('hidden').notNull().default(false),
    passwordHash: text('password_hash'),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }),
    /** The password is a one-time one (generated at first start): the next sign-in must replace it. */
    mustChangePassword: boolean('must_change_password').notNull().default(false),
    inviteTokenHash: text('invite_token_hash'),
    inviteExpiresAt: timestamp('invite_expires_at', { withTimezone: true }),
    /** The TOTP secret, encrypted with the server key (AES-256-GCM). */
    mfaSecret: text('mfa_secret'),
    /** Setup in progress from the console: encrypted, not yet verified. */
    mfaPendingSecret: text('mfa_pending_secret'),
    /** The last TOTP time step accepted: a step is never accepted twice. */
    mfaLastStep: bigint('mfa_last_step', { mode: 'number' }),
    mfaEnabled: boolean('mfa_enabled').notNull().default(false),
    mfaRequired: boolean('mfa_required').notNull().default(false),
    onBoardingRequired: boolean('on_boarding_required').notNull().default(false),
    automationCustomer: boolean('automation_customer').notNull().default(false),
    viewPrivateData: boolean('view_private_data').notNull().default(false),
    viewPolicy: boolean('view_policy').notNull().default(false),
    viewEditPolicy: boolean('view_edit_policy').notNull().default(false),
    locked: boolean('locked').notNull().default(false),
    preferences: jsonb('preferences').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_idx').on(t.email),
    index('users_tenant_idx').on(t.tenantId),
    check('users_email_lowercase_check', sql`${t.email} = lower(${t.email})`),
    check('users_role_check', inList(t.role, ROLES)),
    check('users_status_check', inList(t.status, USER_STATUSES)),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    /** Non-secret numeric id sent in a response header for correlation (SPEC §3). */
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    mfaVerified: boolean('mfa_verified').notNull().default(false),
    /** Maintenance rule: the user must give a login reason before anything else. */
    loginReasonRequired: boolean('login_reason_required').notNull().default(false),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('sessions_token_hash_idx').on(t.tokenHash), index('sessions_user_idx').on(t.userId)],
);

export const featureFlags = pgTable(
  'feature_flags',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

/** A per-tenant list of named things that are enabled, disabled or pending: SaaS apps and security tools. */
function tenantActivationTable<N extends string>(table: N) {
  return pgTable(
    table,
    {
      tenantId: uuid('tenant_id')
        .notNull()
        .references(() => tenants.id, { onDelete: 'cascade' }),
      name: text('name').notNull(),
      state: text('state', { enum: APP_STATES }).notNull().default('enabled'),
      updatedAt: updatedAt(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.name] }),
      check(`${table}_state_check`, inList(t.state, APP_STATES)),
    ],
  );
}

export const saasApps = tenantActivationTable('saas_apps');
export const securityTools = tenantActivationTable('security_tools');

export const licenceSeats = pgTable(
  'licence_seats',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    saas: text('saas', { enum: SAAS_APPS }),
    securityTool: text('security_tool', { enum: SECURITY_TOOLS }),
    seats: integer('seats').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('licence_seats_entry_unique').on(t.tenantId, t.saas, t.securityTool).nullsNotDistinct(),
    check('licence_seats_seats_check', sql`${t.seats} >= 0`),
    check('licence_seats_target_check', sql`${t.saas} is not null or ${t.securityTool} is not null`),
  ],
);

/** Append-only: a trigger in the migrations rejects UPDATE, DELETE and TRUNCATE. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id'),
    actorUserId: uuid('actor_user_id'),
    actorEmail: text('actor_email'),
    actorType: text('actor_type').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    ip: text('ip'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_log_tenant_created_idx').on(t.tenantId, t.createdAt),
    check('audit_log_actor_type_check', sql`${t.actorType} in ('user', 'system', 'cli', 'anonymous')`),
  ],
);

/** Every email Moat sends: kept here (the outbox), and relayed when SMTP_RELAY_URL is set. */
export const outbox = pgTable(
  'outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id'),
    kind: text('kind').notNull(),
    fromName: text('from_name').notNull(),
    /** Moat's own mail: the tenant's sender address of the time; null: the server's MAIL_FROM. */
    fromAddress: text('from_address'),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    /** A released message goes out as these exact bytes (text and html then only describe it). */
    raw: bytea('raw'),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** The SMTP envelope sender of relayed mail (the original sender; '' for a bounce); null: Moat's own address. */
    envelopeFrom: text('envelope_from'),
    /** One delivery per key (gateway mail: inbound message and recipient), however often it is queued. */
    idempotencyKey: text('idempotency_key'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /** When the next attempt is due (back-off counted from the last attempt); null: now. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** The node working on it while status is sending, until leaseUntil; then any node may take it. */
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /** The sender was told the mail is delayed (once, after DELAY_NOTICE). */
    delayNotifiedAt: timestamp('delay_notified_at', { withTimezone: true }),
  },
  (t) => [
    index('outbox_to_created_idx').on(t.toAddress, t.createdAt),
    index('outbox_due_idx').on(t.status, t.nextAttemptAt),
    uniqueIndex('outbox_idempotency_idx').on(t.idempotencyKey),
    check(
      'outbox_status_check',
      sql`${t.status} in ('kept', 'queued', 'sending', 'sent', 'failed', 'bounced')`,
    ),
  ],
);

/** Failed sign-ins per account and per client address, for growing waits (brute-force protection). */
export const authThrottle = pgTable('auth_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true }).notNull(),
  blockedUntil: timestamp('blocked_until', { withTimezone: true }),
});

/** A sign-in whose password is proven but that still needs a step (MFA code, mail code, MFA setup). */
export const loginChallenges = pgTable(
  'login_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    stage: text('stage').notNull(),
    attempts: integer('attempts').notNull().default(0),
    pendingSecret: text('pending_secret'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('login_challenges_token_idx').on(t.tokenHash),
    check(
      'login_challenges_stage_check',
      sql`${t.stage} in ('mfa_code', 'mail_verification', 'mfa_setup', 'password_expired')`,
    ),
  ],
);

/** Emailed one-time codes: 6 digits, stored hashed, bound to a purpose and a subject, few attempts. */
export const emailCodes = pgTable(
  'email_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    purpose: text('purpose').notNull(),
    subject: text('subject').notNull(),
    email: text('email').notNull(),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [index('email_codes_subject_idx').on(t.purpose, t.subject, t.email, t.createdAt)],
);

/** Single-use secrets sent by link: password reset (30 min) and one-time sign-in (10 min). */
export const userTokens = pgTable(
  'user_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    kind: text('kind').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    /** What else the token is bound to: the firewall vendor's serial number (migration 0027). */
    boundTo: text('bound_to'),
  },
  (t) => [
    index('user_tokens_user_idx').on(t.userId),
    check(
      'user_tokens_kind_check',
      sql`${t.kind} in ('password_reset', 'login_link', 'login_checkpoint', 'login_firewall', 'sso_handoff')`,
    ),
  ],
);

/** A tenant's identity providers (issue 15): settings in the clear, the client secret sealed. */
export const ssoConfigs = pgTable(
  'sso_configs',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    enabled: boolean('enabled').notNull().default(false),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull(),
    /** Sealed with the server key (ServerKey.encrypt). */
    secret: text('secret'),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'sso_configs_pk', columns: [t.tenantId, t.provider] }),
    check('sso_configs_provider_check', sql`${t.provider} in ('saml', 'microsoft', 'google')`),
  ],
);

/** Sign-in requests in flight: a SAML AuthnRequest's id (InResponseTo), an OIDC state. */
export const ssoRequests = pgTable(
  'sso_requests',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    value: text('value').notNull(),
    /** The SHA-256 of the cookie the browser that started the sign-in got: the answer is its only. */
    browser: text('browser').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('sso_requests_expires_idx').on(t.expiresAt)],
);

/** Assertions already used, remembered until they expire: a replayed one is refused. */
export const ssoUsedAssertions = pgTable(
  'sso_used_assertions',
  {
    key: text('key').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('sso_used_assertions_expires_idx').on(t.expiresAt)],
);

/** ALTCHA challenges already used: a solved challenge counts once. */
export const captchaUsed = pgTable('captcha_used', {
  nonce: text('nonce').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * A message held (or delivered with an attachment removed) for one recipient. The raw message
 * is kept byte for byte. `publicId` is the opaque `msg` of the recipient's links (192 random
 * bits), never the database id.
 */
export const quarantineMessages = pgTable(
  'quarantine_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    publicId: text('public_id').notNull(),
    saasType: text('saas_type').notNull(),
    recipient: text('recipient').notNull(),
    sender: text('sender').notNull(),
    senderName: text('sender_name').notNull().default(''),
    subject: text('subject').notNull().default(''),
    messageIdHeader: text('message_id_header'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    verdict: text('verdict', { enum: VERDICTS }).notNull(),
    reasons: jsonb('reasons').$type<string[]>().notNull().default([]),
    /** quarantined: held whole; attachments_removed: delivered without its dangerous attachments. */
    state: text('state').notNull(),
    /** Held without telling the recipient (policy quarantine_silent, a blocked sender): kept out of digests. */
    silent: boolean('silent').notNull().default(false),
    raw: bytea('raw').notNull(),
    rawSha256: text('raw_sha256').notNull(),
    size: integer('size').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    /** A gateway message that could not be processed, parked here unscanned (issue 9): its inbound row. */
    failedInboundId: uuid('failed_inbound_id'),
    /** An admin's 'is spam' / 'not spam' feedback on the message (issue 11): who gave it and when. */
    feedback: text('feedback'),
    feedbackBy: text('feedback_by'),
    feedbackAt: timestamp('feedback_at', { withTimezone: true }),
    /** Retracted from the recipient's mailbox after delivery (issue 36, 0033); null: held at the door. */
    retractedAt: timestamp('retracted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('quarantine_messages_public_idx').on(t.publicId),
    /** The purge job's search for held mail past the tenant's retention. */
    index('quarantine_messages_expires_idx').on(t.expiresAt),
    index('quarantine_messages_tenant_received_idx').on(t.tenantId, t.receivedAt),
    index('quarantine_messages_recipient_idx').on(t.tenantId, t.recipient),
    /** Quick search (SPEC §7): substring match on what a person remembers of a message. */
    index('quarantine_messages_search_trgm_idx').using(
      'gin',
      sql`(${t.subject} || ' ' || ${t.senderName} || ' ' || ${t.sender} || ' ' || ${t.recipient}) gin_trgm_ops`,
    ),
    /** Quick search of an address fragment: the same words' address keys (migration 0014). */
    index('quarantine_messages_search_address_idx').using(
      'gin',
      sql`moat_address_keys(${t.subject} || ' ' || ${t.senderName} || ' ' || ${t.sender} || ' ' || ${t.recipient}, ${t.receivedAt}, ${t.receivedAt})`,
    ),
    check('quarantine_messages_verdict_check', inList(t.verdict, VERDICTS)),
    check('quarantine_messages_state_check', inList(t.state, MESSAGE_STATES)),
    check('quarantine_messages_feedback_check', sql`${t.feedback} in ('spam', 'not_spam')`),
  ],
);

export const quarantineAttachments = pgTable(
  'quarantine_attachments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messageId: uuid('message_id')
      .notNull()
      .references(() => quarantineMessages.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    state: text('state').notNull(),
  },
  (t) => [
    index('quarantine_attachments_message_idx').on(t.messageId),
    check('quarantine_attachments_state_check', inList(t.state, ATTACHMENT_STATES)),
  ],
);

/** What a recipient asked for (or an automatic restore that happened), and what became of it. */
export const restoreRequests = pgTable(
  'restore_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id')
      .notNull()
      .references(() => quarantineMessages.id, { onDelete: 'cascade' }),
    /** email: the whole message; original: the message with its original attachments. */
    kind: text('kind', { enum: RESTORE_KINDS }).notNull(),
    requestedBy: text('requested_by').notNull(),
    commentary: text('commentary').notNull().default(''),
    mode: text('mode', { enum: RESTORE_MODES }).notNull(),
    status: text('status').notNull(),
    decidedBy: uuid('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    declineReason: text('decline_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('restore_requests_tenant_status_idx').on(t.tenantId, t.status, t.createdAt),
    index('restore_requests_message_idx').on(t.messageId),
    check('restore_requests_kind_check', inList(t.kind, RESTORE_KINDS)),
    check('restore_requests_status_check', inList(t.status, RESTORE_REQUEST_STATUSES)),
  ],
);

/**
 * A message released to its recipient: one row per message and kind, so a release happens once
 * however often it is asked for (the unique key is the idempotency key).
 */
export const releases = pgTable(
  'releases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messageId: uuid('message_id')
      .notNull()
      .references(() => quarantineMessages.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    outboxId: uuid('outbox_id'),
    releasedBy: text('released_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('releases_once_idx').on(t.messageId, t.kind)],
);

/** One per detection. */
export const securityEvents = pgTable(
  'security_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id').references(() => quarantineMessages.id, { onDelete: 'set null' }),
    engine: text('engine').notNull(),
    verdict: text('verdict').notNull(),
    description: text('description').notNull(),
    severity: text('severity').notNull(),
    createdAt: createdAt(),
    /** What happened (migration 0015): detection, hold, strip, banner, release, report, failure, feedback, block. */
    type: text('type', { enum: EVENT_TYPES }).notNull().default('detection'),
    /** The message's recipient, sender and subject, kept on the event (it outlives the held copy). */
    recipient: text('recipient').notNull().default(''),
    sender: text('sender').notNull().default(''),
    subject: text('subject').notNull().default(''),
    /** The evidence: the engines' findings and the policy decision (release: its kind). */
    details: jsonb('details').$type<EventDetails>().notNull().default({}),
  },
  (t) => [
    index('security_events_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('security_events_tenant_type_created_idx').on(t.tenantId, t.type, t.createdAt),
    check('security_events_type_check', inList(t.type, EVENT_TYPES)),
    /** One release event per message and kind: a repeated Release adds none. */
    uniqueIndex('security_events_release_once_idx')
      .on(t.messageId, sql`(${t.details}->>'kind')`)
      .where(sql`${t.type} = 'release'`),
    /** A message's events: quick search joins held messages that match to their events (and the FK's set null). */
    index('security_events_message_idx').on(t.messageId),
    index('security_events_search_trgm_idx').using(
      'gin',
      sql`(${t.engine} || ' ' || ${t.verdict} || ' ' || ${t.description}) gin_trgm_ops`,
    ),
    index('security_events_search_address_idx').using(
      'gin',
      sql`moat_address_keys(${t.engine} || ' ' || ${t.verdict} || ' ' || ${t.description}, ${t.createdAt}, ${t.createdAt})`,
    ),
  ],
);

/** The tenant's restore policy per verdict; verdicts without a row use the defaults of the code. */
export const restorePolicies = pgTable(
  'restore_policies',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    verdict: text('verdict', { enum: VERDICTS }).notNull(),
    mode: text('mode', { enum: RESTORE_MODES }).notNull(),
    identificationRequired: boolean('identification_required').notNull().default(true),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.verdict] }),
    check('restore_policies_mode_check', inList(t.mode, RESTORE_MODES)),
  ],
);

/**
 * A one-click action offered to a recipient in a notification (the action page's opaque `id`):
 * report_safe tells the admins the recipient believes the message is safe, report_phishing that it
 * is phishing (both open a phishing report, migration 0020). Performed once.
 */
export const messageActions = pgTable(
  'message_actions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    publicId: text('public_id').notNull(),
    messageId: uuid('message_id')
      .notNull()
      .references(() => quarantineMessages.id, { onDelete: 'cascade' }),
    action: text('action').notNull(),
    performedAt: timestamp('performed_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('message_actions_public_idx').on(t.publicId),
    check('message_actions_action_check', sql`${t.action} in ('report_safe', 'report_phishing')`),
  ],
);

/** A trial-extension request (SPEC §4 "Trial extension"), stored for the provider to approve. */
export const trialExtensionRequests = pgTable(
  'trial_extension_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    requesterEmail: text('requester_email').notNull(),
    requesterFirstName: text('requester_first_name').notNull(),
    requesterLastName: text('requester_last_name').notNull(),
    status: text('status').notNull().default('requested'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    extendedDays: integer('extended_days'),
    createdAt: createdAt(),
  },
  (t) => [
    index('trial_extension_requests_tenant_idx').on(t.tenantId, t.createdAt),
    /** At most one open request per tenant: a second click does not make a second request. */
    uniqueIndex('trial_extension_requests_open_idx').on(t.tenantId).where(sql`${t.status} = 'requested'`),
    check('trial_extension_requests_status_check', sql`${t.status} in ('requested', 'approved', 'declined')`),
  ],
);

/** The licence banner's Contact us (SPEC §4 "Licence banner"). */
export const licenceContactRequests = pgTable(
  'licence_contact_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    email: text('email').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('licence_contact_requests_tenant_idx').on(t.tenantId, t.createdAt)],
);

/** The Add-ons Store: a tenant's request to the provider for an add-on (migration 0029). */
export const addOnRequests = pgTable(
  'add_on_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    addOn: text('add_on', { enum: ADD_ON_IDS }).notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    email: text('email').notNull(),
    message: text('message').notNull().default(''),
    createdAt: createdAt(),
  },
  (t) => [
    index('add_on_requests_tenant_idx').on(t.tenantId, t.addOn, t.createdAt),
    check('add_on_requests_add_on_check', inList(t.addOn, ADD_ON_IDS)),
  ],
);

/**
 * A service-status incident (SPEC §3): the provider's, for every tenant; shown on the navigation
 * item it names until resolved. Opened and resolved with the CLI.
 */
export const serviceIncidents = pgTable(
  'service_incidents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    navItem: text('nav_item'),
    severity: text('severity', { enum: INCIDENT_SEVERITIES }).notNull(),
    title: text('title').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    index('service_incidents_open_idx').on(t.resolvedAt),
    check('service_incidents_severity_check', inList(t.severity, INCIDENT_SEVERITIES)),
  ],
);

/**
 * Mail accepted by the SMTP gateway, stored byte for byte before the client hears 250 (DESIGN §5):
 * `received` until the processor has delivered, stripped or quarantined it for every recipient
 * in one transaction, then `processed`.
 */
export const inboundMessages = pgTable(
  'inbound_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    clientIp: text('client_ip').notNull(),
    helo: text('helo').notNull().default(''),
    mailFrom: text('mail_from').notNull(),
    rcptTo: jsonb('rcpt_to').$type<string[]>().notNull(),
    raw: bytea('raw').notNull(),
    size: integer('size').notNull(),
    status: text('status').notNull().default('received'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    processedAt: timestamp('processed_at', { withTimezone: true }),
    /** Back-off after a failed pass; null: due now. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** The node processing it, until leaseUntil; an expired lease is taken over by any node. */
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /** TLS of the SMTP session (protocol, cipher); null: plain text (0016). */
    tls: jsonb('tls').$type<SessionTls>(),
  },
  (t) => [
    index('inbound_messages_pending_idx').on(t.status, t.receivedAt),
    check('inbound_messages_status_check', sql`${t.status} in ('received', 'processed', 'failed')`),
  ],
);

/**
 * Mail Explorer: what became of every processed message for each recipient, clean or not.
 * One row per inbound message and recipient.
 */
export const mailLog = pgTable(
  'mail_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    inboundId: uuid('inbound_id').notNull(),
    recipient: text('recipient').notNull(),
    sender: text('sender').notNull(),
    senderName: text('sender_name').notNull().default(''),
    subject: text('subject').notNull().default(''),
    messageIdHeader: text('message_id_header'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    /** clean, phishing, malware, spam or suspicious. */
    verdict: text('verdict').notNull(),
    /** delivered, delivered_banner, attachments_removed, quarantined, quarantined_silent, blocked. */
    action: text('action').notNull(),
    reasons: jsonb('reasons').$type<string[]>().notNull().default([]),
    spf: text('spf').notNull().default('none'),
    dkim: text('dkim').notNull().default('none'),
    dmarc: text('dmarc').notNull().default('none'),
    size: integer('size').notNull(),
    attachments: integer('attachments').notNull().default(0),
    quarantineMessageId: uuid('quarantine_message_id'),
    /** What the message trace shows beyond these columns: session, reasons, findings, decision (0016). */
    details: jsonb('details').$type<StoredMessageDetails>().notNull().default({}),
  },
  (t) => [
    uniqueIndex('mail_log_once_idx').on(t.inboundId, t.recipient),
    index('mail_log_tenant_received_idx').on(t.tenantId, t.receivedAt),
    // A sender's earlier mail (the gateway's sender history, migration 0031): by domain, then address.
    index('mail_log_tenant_sender_idx').on(
      t.tenantId,
      sql`lower(regexp_replace(${t.sender}, '^.*@', ''))`,
      t.sender,
    ),
    // Delivered copies of one message by its Message-ID (retraction, migration 0033).
    index('mail_log_tenant_message_id_idx').on(t.tenantId, t.messageIdHeader),
    index('mail_log_search_trgm_idx').using(
      'gin',
      sql`(${t.subject} || ' ' || ${t.senderName} || ' ' || ${t.sender} || ' ' || ${t.recipient}) gin_trgm_ops`,
    ),
  ],
);

/** The gateway's action per tenant and verdict (SPEC issue 6 "Policy"); verdicts without a row use the defaults. */
export const gatewayPolicies = pgTable(
  'gateway_policies',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    verdict: text('verdict').notNull(),
    action: text('action').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.verdict] }),
    check(
      'gateway_policies_action_check',
      sql`${t.action} in ('deliver', 'deliver_banner', 'strip', 'quarantine', 'quarantine_silent')`,
    ),
  ],
);

/**
 * The Policy screen's exceptions to the action per verdict: for one recipient address, every
 * address of a domain, or a named group of addresses (`value`: the addresses, comma-separated).
 * The gateway reads them through its per-node cache (migration 0018's notice trigger).
 */
export const policyOverrides = pgTable(
  'policy_overrides',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    match: text('match').notNull(),
    value: text('value').notNull(),
    name: text('name').notNull().default(''),
    verdict: text('verdict').notNull(),
    action: text('action').notNull(),
    position: integer('position').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    index('policy_overrides_tenant_idx').on(t.tenantId, t.position),
    check('policy_overrides_match_check', sql`${t.match} in ('recipient', 'domain', 'group')`),
    check(
      'policy_overrides_verdict_check',
      sql`${t.verdict} in ('phishing', 'malware', 'spam', 'suspicious')`,
    ),
    check(
      'policy_overrides_action_check',
      sql`${t.action} in ('deliver', 'deliver_banner', 'strip', 'quarantine', 'quarantine_silent')`,
    ),
  ],
);

/** A domain an admin added from the console, until a TXT record with `token` proves it is theirs. */
export const pendingDomains = pgTable(
  'pending_domains',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    token: text('token').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'pending_domains_pkey', columns: [t.tenantId, t.domain] })],
);

/** Allow and block lists of sender addresses and domains, per tenant. */
export const senderLists = pgTable(
  'sender_lists',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    list: text('list').notNull(),
    /**
     * By kind: a lower-case address (a@b.example), a domain (b.example, punycode), an IP range
     * (CIDR), a normalised URL or a SHA-256 (lower-case hex).
     */
    value: text('value').notNull(),
    createdAt: createdAt(),
    /** The entry's own id (the console deletes by it). */
    id: uuid('id').notNull().defaultRandom().unique('sender_lists_id_unique'),
    /**
     * sender | domain | ip_range | url | sha256. A plain insert of a domain gets 'domain' from a
     * trigger (migration 0019), so writers that know only addresses and domains need not say.
     */
    kind: text('kind').notNull().default('sender'),
    /** The Exceptions page it belongs to (SPEC §2.4), or 'all'. */
    scope: text('scope').notNull().default('all'),
    comment: text('comment').notNull().default(''),
    /** The admin's email, or 'cli'; '' when written by the system. */
    createdBy: text('created_by').notNull().default(''),
    /** From then on the entry counts for nothing. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.list, t.value] }),
    check('sender_lists_list_check', sql`${t.list} in ('allow', 'block')`),
    check('sender_lists_kind_check', sql`${t.kind} in ('sender', 'domain', 'ip_range', 'url', 'sha256')`),
    check(
      'sender_lists_scope_check',
      sql`${t.scope} in ('all', 'anti_phishing', 'anti_malware', 'anomaly', 'click_time', 'anti_spam', 'url_reputation', 'dlp')`,
    ),
  ],
);

/**
 * Every user's own allow and block list of senders (issue 12, SPEC §6): honoured by the gateway
 * for mail to that person only. One entry per value per person (adding it again moves it).
 */
export const personalSenderLists = pgTable(
  'personal_sender_lists',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    list: text('list').$type<'allow' | 'block'>().notNull(),
    /** A lower-case address (a@b.example) or a domain (b.example), its domain in punycode. */
    value: text('value').notNull(),
    kind: text('kind').$type<'sender' | 'domain'>().notNull(),
    createdAt: createdAt(),
    /** The entry's own id (the web deletes by it). */
    id: uuid('id').notNull().defaultRandom().unique('personal_sender_lists_id_unique'),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.value] }),
    index('personal_sender_lists_tenant_idx').on(t.tenantId),
    check('personal_sender_lists_list_check', sql`${t.list} in ('allow', 'block')`),
    check('personal_sender_lists_kind_check', sql`${t.kind} in ('sender', 'domain')`),
  ],
);

/**
 * The spam score thresholds of a tenant's policy (issue 13): a score at or above `spam` is spam,
 * at or above `suspicious` suspicious. No row: the defaults (4 and 6).
 */
export const spamThresholds = pgTable(
  'spam_thresholds',
  {
    tenantId: uuid('tenant_id')
      .primaryKey()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    suspicious: doublePrecision('suspicious').notNull(),
    spam: doublePrecision('spam').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [check('spam_thresholds_order_check', sql`${t.suspicious} <= ${t.spam}`)],
);

/**
 * The messages a tenant taught its anti-spam engine (issue 13): one row per message, so learning
 * it again changes nothing and learning it the other way moves its tokens to the other side.
 */
export const spamLearnedMessages = pgTable(
  'spam_learned_messages',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** The inbound message (`mail_log.inbound_id`): one message, however many recipients. */
    messageKey: text('message_key').notNull(),
    label: text('label').$type<'spam' | 'ham'>().notNull(),
    /** What taught it: an admin's mark, a release, a confirmed report. */
    source: text('source').notNull(),
    learnedBy: uuid('learned_by'),
    learnedAt: timestamp('learned_at', { withTimezone: true }).notNull().defaultNow(),
    /** The token keys learned, to take them back exactly when the message is learned the other way. */
    tokens: integer('tokens').array().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.messageKey] }),
    check('spam_learned_messages_label_check', sql`${t.label} in ('spam', 'ham')`),
  ],
);

/** Per tenant and token: in how many learned spam and ham messages it was. */
export const spamLearnedTokens = pgTable(
  'spam_learned_tokens',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    token: integer('token').notNull(),
    spam: integer('spam').notNull().default(0),
    ham: integer('ham').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.token] })],
);

/** Facts every node of one database must agree on (issue 9): the fingerprint of the shared SECRET_KEY. */
export const clusterSettings = pgTable('cluster_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: updatedAt(),
});

/** Fixed-window counters shared by every node (rate limits) when no REDIS_URL is given. */
export const rateCounters = pgTable('rate_counters', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
});

/**
 * A recipient's report of a held message (the action page's report_phishing / report_safe): one
 * open report per message and reporter; an admin confirms it (every copy hidden, the sender
 * blocked if chosen) or dismisses it, and the reporter is told.
 */
export const phishingReports = pgTable(
  'phishing_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id')
      .notNull()
      .references(() => quarantineMessages.id, { onDelete: 'cascade' }),
    reporter: text('reporter').notNull(),
    kind: text('kind', { enum: REPORT_KINDS }).notNull(),
    status: text('status', { enum: REPORT_STATUSES }).notNull().default('open'),
    blockSender: boolean('block_sender').notNull().default(false),
    decidedBy: uuid('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('phishing_reports_tenant_status_idx').on(t.tenantId, t.status, t.createdAt),
    uniqueIndex('phishing_reports_open_idx').on(t.messageId, t.reporter).where(sql`${t.status} = 'open'`),
    check('phishing_reports_kind_check', inList(t.kind, REPORT_KINDS)),
    check('phishing_reports_status_check', inList(t.status, REPORT_STATUSES)),
  ],
);

/** Which alerts a tenant's admins get by email; a tenant without a row gets them all. */
export const alertSettings = pgTable('alert_settings', {
  tenantId: uuid('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  alertRestoreRequests: boolean('alert_restore_requests').notNull().default(true),
  alertReports: boolean('alert_reports').notNull().default(true),
  alertMalwareHolds: boolean('alert_malware_holds').notNull().default(true),
  /** The DMARC alerts (a record changed, a new failing source, a pass-rate drop), issue 37. */
  alertDmarc: boolean('alert_dmarc').notNull().default(true),
  updatedAt: updatedAt(),
});

/**
 * The throttle of alert emails: when the last one of a kind was sent to a tenant's admins and how
 * many events came since (told in the next one), so a flood of holds is one email per window.
 */
export const alertWindows = pgTable(
  'alert_windows',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull(),
    pending: integer('pending').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.kind] })],
);

/** System Tasks: each run of a background task, by the node that ran it (one per task at a time). */
export const systemTaskRuns = pgTable(
  'system_task_runs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    node: text('node').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    /** Null while it runs (or if its node died meanwhile). */
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    outcome: text('outcome'),
    /** What it did ("purged 12"), or its error. */
    detail: text('detail'),
  },
  (t) => [
    index('system_task_runs_name_started_idx').on(t.name, t.startedAt),
    check('system_task_runs_outcome_check', sql`${t.outcome} is null or ${t.outcome} in ('ok', 'failed')`),
  ],
);

/**
 * Protected people (VIPs, issue 35): the names of a tenant an attacker would pose as, and the
 * addresses they really write from. The gateway reads them through its per-node cache (the
 * table's change notice, migration 0031) for the anti-phishing engine.
 */
export const vips = pgTable(
  'vips',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** Trimmed, runs of spaces made one (contracts' cleanVipName). */
    name: text('name').notNull(),
    /** Lower-case addresses, domains in punycode; at most VIP_EMAILS_MAX. */
    emails: jsonb('emails').$type<string[]>().notNull().default([]),
    /** The admin's email, or 'cli'. */
    createdBy: text('created_by').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('vips_tenant_name_idx').on(t.tenantId, sql`lower(${t.name})`)],
);

/** The click verdicts and outcomes of click-time protection (issue 36, migration 0032). */
export const CLICK_VERDICTS = ['clean', 'suspicious', 'malicious'] as const;
export const CLICK_OUTCOMES = ['redirected', 'warned', 'continued', 'blocked'] as const;

/**
 * Every visit of a link Moat rewrote: a person's click (`scanner` false) or a link scanner's
 * prefetch. The message is named by its inbound id, without a foreign key: clicks outlive it.
 */
export const linkClicks = pgTable(
  'link_clicks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    // No foreign key: its check per row was half a click record's cost (migration 0034); the
    // insert keeps only existing tenants' clicks and a tenant's deletion takes its clicks.
    tenantId: uuid('tenant_id').notNull(),
    inboundId: uuid('inbound_id'),
    recipient: text('recipient').notNull(),
    url: text('url').notNull(),
    host: text('host').notNull(),
    linkIndex: integer('link_index').notNull().default(0),
    verdict: text('verdict', { enum: CLICK_VERDICTS }).notNull(),
    outcome: text('outcome', { enum: CLICK_OUTCOMES }).notNull(),
    reasons: jsonb('reasons').$type<string[]>().notNull().default([]),
    scanner: boolean('scanner').notNull().default(false),
    userAgent: text('user_agent').notNull().default(''),
    clientIp: text('client_ip'),
    createdAt: createdAt(),
  },
  (t) => [
    index('link_clicks_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('link_clicks_tenant_inbound_idx').on(t.tenantId, t.inboundId),
    index('link_clicks_tenant_host_idx').on(t.tenantId, t.host),
    check('link_clicks_verdict_check', inList(t.verdict, CLICK_VERDICTS)),
    check('link_clicks_outcome_check', inList(t.outcome, CLICK_OUTCOMES)),
  ],
);

/** A tenant's click-time choices; a tenant without a row has the defaults. */
export const clickTimeSettings = pgTable('click_time_settings', {
  tenantId: uuid('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  rewriteFlagged: boolean('rewrite_flagged').notNull().default(true),
  rewriteClean: boolean('rewrite_clean').notNull().default(false),
  allowContinue: boolean('allow_continue').notNull().default(true),
  updatedAt: updatedAt(),
});

/** Retraction (issue 36 §2, migration 0033): a tenant's IMAP mailbox connection, its master password sealed. */
export const mailboxConnections = pgTable(
  'mailbox_connections',
  {
    tenantId: uuid('tenant_id')
      .primaryKey()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull().default(false),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    tlsMode: text('tls_mode', { enum: IMAP_TLS_MODES }).notNull(),
    verifyTls: boolean('verify_tls').notNull().default(true),
    masterUser: text('master_user').notNull(),
    separator: text('separator').notNull().default('*'),
    /** Sealed with the server key (ServerKey.encrypt). */
    secret: text('secret'),
    action: text('action', { enum: RETRACTION_ACTIONS }).notNull().default('move'),
    folder: text('folder').notNull().default('Moat Quarantine'),
    lastTestAt: timestamp('last_test_at', { withTimezone: true }),
    lastTestOk: boolean('last_test_ok'),
    lastTestMessage: text('last_test_message'),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('mailbox_connections_tls_mode_check', inList(t.tlsMode, IMAP_TLS_MODES)),
    check('mailbox_connections_action_check', inList(t.action, RETRACTION_ACTIONS)),
  ],
);

/** One retraction: a job claimed with a lease, its delivered copies in retraction_copies. */
export const retractions = pgTable(
  'retractions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    trigger: text('trigger', { enum: RETRACTION_TRIGGERS }).notNull(),
    /** What started it: the exception's or report's id, the Mail Explorer row. */
    triggerRef: text('trigger_ref'),
    verdict: text('verdict', { enum: RETRACTION_VERDICTS }).notNull(),
    reason: text('reason').notNull().default(''),
    requestedBy: text('requested_by').notNull(),
    /** A trigger's search of delivered mail, run by the job (RetractionSearch). */
    search: jsonb('search').$type<Record<string, unknown>>(),
    /** False until the job has found the copies of `search`. */
    resolved: boolean('resolved').notNull().default(true),
    status: text('status', { enum: RETRACTION_STATUSES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('retractions_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('retractions_pending_idx').on(t.status, t.createdAt),
    check('retractions_trigger_check', inList(t.trigger, RETRACTION_TRIGGERS)),
    check('retractions_verdict_check', inList(t.verdict, RETRACTION_VERDICTS)),
    check('retractions_status_check', inList(t.status, RETRACTION_STATUSES)),
  ],
);

/** Each delivered copy once (message and recipient): what was found where, and what became of it. */
export const retractionCopies = pgTable(
  'retraction_copies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    retractionId: uuid('retraction_id')
      .notNull()
      .references(() => retractions.id, { onDelete: 'cascade' }),
    mailLogId: uuid('mail_log_id').notNull(),
    inboundId: uuid('inbound_id').notNull(),
    recipient: text('recipient').notNull(),
    messageIdHeader: text('message_id_header'),
    subject: text('subject').notNull().default(''),
    status: text('status', { enum: COPY_STATUSES }).notNull().default('pending'),
    action: text('action', { enum: RETRACTION_ACTIONS }),
    found: jsonb('found').$type<Array<{ folder: string; count: number }>>().notNull().default([]),
    error: text('error'),
    quarantineMessageId: uuid('quarantine_message_id'),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('retraction_copies_once_idx').on(t.tenantId, t.inboundId, t.recipient),
    index('retraction_copies_retraction_idx').on(t.retractionId, t.status),
    check('retraction_copies_status_check', inList(t.status, COPY_STATUSES)),
    check('retraction_copies_action_check', sql`${t.action} is null or ${t.action} in ('move', 'delete')`),
  ],
);

/** A delivered message's links, their hosts and its attachments' SHA-256, read once from its bytes. */
export const deliveredContents = pgTable(
  'delivered_contents',
  {
    inboundId: uuid('inbound_id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    urls: jsonb('urls').$type<string[]>().notNull().default([]),
    hosts: jsonb('hosts').$type<string[]>().notNull().default([]),
    sha256s: jsonb('sha256s').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [
    index('delivered_contents_urls_idx').using('gin', sql`${t.urls} jsonb_path_ops`),
    index('delivered_contents_hosts_idx').using('gin', sql`${t.hosts} jsonb_path_ops`),
    index('delivered_contents_sha256s_idx').using('gin', sql`${t.sha256s} jsonb_path_ops`),
  ],
);

/** A DMARC aggregate report a receiver sent about one of the tenant's domains (issue 37), once. */
export const dmarcReports = pgTable(
  'dmarc_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    orgName: text('org_name').notNull(),
    orgEmail: text('org_email').notNull().default(''),
    reportId: text('report_id').notNull(),
    /** The report's XML hashed (migration 0042): the same id with other content is another report. Empty: taken in before. */
    contentHash: text('content_hash').notNull().default(''),
    beginAt: timestamp('begin_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    policy: jsonb('policy')
      .$type<{ p: string; sp: string; adkim: string; aspf: string; pct: number | null }>()
      .notNull(),
    messages: bigint('messages', { mode: 'number' }).notNull().default(0),
    rows: integer('rows').notNull().default(0),
    source: text('source', { enum: REPORT_SOURCES }).notNull(),
    rawGzip: bytea('raw_gzip').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('dmarc_reports_once_idx').on(t.tenantId, t.orgName, t.reportId, t.domain, t.contentHash),
    index('dmarc_reports_tenant_begin_idx').on(t.tenantId, t.beginAt),
    index('dmarc_reports_tenant_domain_end_idx').on(t.tenantId, t.domain, t.endAt),
    check('dmarc_reports_source_check', inList(t.source, REPORT_SOURCES)),
  ],
);

/** One row of a DMARC aggregate report: a source and what the receiver saw of its mail. */
export const dmarcRecords = pgTable(
  'dmarc_records',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    reportId: uuid('report_id')
      .notNull()
      .references(() => dmarcReports.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id').notNull(),
    domain: text('domain').notNull(),
    beginAt: timestamp('begin_at', { withTimezone: true }).notNull(),
    sourceIp: text('source_ip').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
    disposition: text('disposition').notNull(),
    dkim: text('dkim', { enum: DMARC_RESULTS }).notNull(),
    spf: text('spf', { enum: DMARC_RESULTS }).notNull(),
    headerFrom: text('header_from').notNull().default(''),
    envelopeFrom: text('envelope_from').notNull().default(''),
    envelopeTo: text('envelope_to').notNull().default(''),
    dkimResults: jsonb('dkim_results').$type<AuthResultRow[]>().notNull().default([]),
    spfResults: jsonb('spf_results').$type<AuthResultRow[]>().notNull().default([]),
    reasons: jsonb('reasons').$type<Array<{ type: string; comment: string }>>().notNull().default([]),
  },
  (t) => [
    // The Explorer's sorts, each with the row id (migration 0039); the address in byte order, with
    // what an address filter's totals sum.
    index('dmarc_records_tenant_begin_idx').on(t.tenantId, t.beginAt, t.id),
    index('dmarc_records_tenant_count_idx').on(t.tenantId, t.count, t.id),
    index('dmarc_records_failing_count_idx')
      .on(t.tenantId, t.count, t.id)
      .where(sql`not (${t.dkim} = 'pass' or ${t.spf} = 'pass')`),
    index('dmarc_records_tenant_source_idx').on(
      t.tenantId,
      sql`${t.sourceIp} collate "C"`,
      t.id,
      t.beginAt,
      t.count,
      t.dkim,
      t.spf,
      t.domain,
    ),
    index('dmarc_records_report_idx').on(t.reportId),
  ],
);

/**
 * What came to the report addresses, and the uploads: each file a report taken in (or already),
 * or refused with the reason. A message's files are written once (`inbound_id`, `part`).
 */
export const dmarcIntake = pgTable(
  'dmarc_intake',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    source: text('source', { enum: REPORT_SOURCES }).notNull(),
    sender: text('sender').notNull().default(''),
    subject: text('subject').notNull().default(''),
    fileName: text('file_name').notNull().default(''),
    kind: text('kind', { enum: INTAKE_KINDS }).notNull(),
    outcome: text('outcome', { enum: INTAKE_OUTCOMES }).notNull(),
    reason: text('reason').notNull().default(''),
    reportId: uuid('report_id').references(() => dmarcReports.id, { onDelete: 'set null' }),
    inboundId: uuid('inbound_id'),
    part: integer('part').notNull().default(0),
  },
  (t) => [
    index('dmarc_intake_tenant_received_idx').on(t.tenantId, t.receivedAt),
    uniqueIndex('dmarc_intake_once_idx')
      .on(t.tenantId, t.inboundId, t.part)
      .where(sql`${t.inboundId} is not null`),
    check('dmarc_intake_source_check', inList(t.source, REPORT_SOURCES)),
    check('dmarc_intake_outcome_check', inList(t.outcome, INTAKE_OUTCOMES)),
  ],
);

/** The reports' rows summed per domain, UTC day and source (the Overview's reading). */
export const dmarcDaily = pgTable(
  'dmarc_daily',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    sourceIp: text('source_ip').notNull(),
    messages: bigint('messages', { mode: 'number' }).notNull().default(0),
    passed: bigint('passed', { mode: 'number' }).notNull().default(0),
    reports: integer('reports').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.domain, t.day, t.sourceIp] }),
    // The Overview's failing sources (migration 0039): each day's worst, and a source's days.
    index('dmarc_daily_failing_idx')
      .on(
        t.tenantId,
        t.domain,
        t.day,
        sql`(${t.messages} - ${t.passed}) desc`,
        t.sourceIp,
        t.messages,
        t.passed,
      )
      .where(sql`${t.messages} > ${t.passed}`),
    index('dmarc_daily_source_idx').on(
      t.tenantId,
      t.domain,
      t.sourceIp,
      t.day,
      t.messages,
      t.passed,
      t.reports,
    ),
  ],
);

/** The reports' rows summed per domain, UTC month of their period and source (migration 0039). */
export const dmarcSourceMonths = pgTable(
  'dmarc_source_months',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    /** The month's first day. */
    month: date('month', { mode: 'string' }).notNull(),
    sourceIp: text('source_ip').notNull(),
    messages: bigint('messages', { mode: 'number' }).notNull().default(0),
    passed: bigint('passed', { mode: 'number' }).notNull().default(0),
    reports: integer('reports').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.domain, t.month, t.sourceIp] }),
    index('dmarc_source_months_failing_idx')
      .on(
        t.tenantId,
        t.domain,
        t.month,
        sql`(${t.messages} - ${t.passed}) desc`,
        t.sourceIp,
        t.messages,
        t.passed,
      )
      .where(sql`${t.messages} > ${t.passed}`),
    index('dmarc_source_months_source_idx').on(
      t.tenantId,
      t.domain,
      t.sourceIp,
      t.month,
      t.messages,
      t.passed,
      t.reports,
    ),
  ],
);

/**
 * The same sums per UTC quarter (migration 0041): a year's failing sources' candidates are read
 * from five quarters' worst rather than thirteen months'.
 */
export const dmarcSourceQuarters = pgTable(
  'dmarc_source_quarters',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    /** The quarter's first day. */
    quarter: date('quarter', { mode: 'string' }).notNull(),
    sourceIp: text('source_ip').notNull(),
    messages: bigint('messages', { mode: 'number' }).notNull().default(0),
    passed: bigint('passed', { mode: 'number' }).notNull().default(0),
    reports: integer('reports').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.domain, t.quarter, t.sourceIp] }),
    index('dmarc_source_quarters_failing_idx')
      .on(
        t.tenantId,
        t.domain,
        t.quarter,
        sql`(${t.messages} - ${t.passed}) desc`,
        t.sourceIp,
        t.messages,
        t.passed,
      )
      .where(sql`${t.messages} > ${t.passed}`),
  ],
);

/**
 * The reports summed per domain and UTC day of their period (migration 0039): their rows and how
 * many passed, the messages and how many passed, and how many reports. The Overview's trend and
 * the Explorer's totals read these instead of the rows.
 */
export const dmarcDomainDays = pgTable(
  'dmarc_domain_days',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    rows: bigint('rows', { mode: 'number' }).notNull().default(0),
    passedRows: bigint('passed_rows', { mode: 'number' }).notNull().default(0),
    messages: bigint('messages', { mode: 'number' }).notNull().default(0),
    passed: bigint('passed', { mode: 'number' }).notNull().default(0),
    reports: integer('reports').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.domain, t.day] })],
);

/** A DMARC failure report (RFC 6591) about one of the tenant's domains, redacted, once. */
export const dmarcFailureReports = pgTable(
  'dmarc_failure_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    reportedDomain: text('reported_domain').notNull(),
    reporter: text('reporter').notNull(),
    reportHash: text('report_hash').notNull(),
    arrivalAt: timestamp('arrival_at', { withTimezone: true }),
    sourceIp: text('source_ip').notNull().default(''),
    authFailure: text('auth_failure').notNull().default(''),
    originalMailFrom: text('original_mail_from').notNull().default(''),
    originalRcptTo: text('original_rcpt_to').notNull().default(''),
    deliveryResult: text('delivery_result').notNull().default(''),
    dkimDomain: text('dkim_domain').notNull().default(''),
    dkimSelector: text('dkim_selector').notNull().default(''),
    spfDns: text('spf_dns').notNull().default(''),
    identityAlignment: text('identity_alignment').notNull().default(''),
    authenticationResults: text('authentication_results').notNull().default(''),
    sampleHeaders: jsonb('sample_headers').$type<SampleHeader[]>().notNull().default([]),
    source: text('source', { enum: REPORT_SOURCES }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('dmarc_failure_reports_once_idx').on(t.tenantId, t.reporter, t.reportHash),
    index('dmarc_failure_reports_tenant_received_idx').on(t.tenantId, t.receivedAt),
    check('dmarc_failure_reports_source_check', inList(t.source, REPORT_SOURCES)),
  ],
);

/** An SMTP TLS report (RFC 8460) about one of the tenant's domains, once; its policies as sent. */
export const dmarcTlsReports = pgTable(
  'dmarc_tls_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    orgName: text('org_name').notNull(),
    contact: text('contact').notNull().default(''),
    reportId: text('report_id').notNull(),
    /** A report is the same report only with the same content: a forged one sent first under a real id blocks nothing. */
    contentHash: text('content_hash').notNull(),
    beginAt: timestamp('begin_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    successful: bigint('successful', { mode: 'number' }).notNull().default(0),
    failed: bigint('failed', { mode: 'number' }).notNull().default(0),
    policies: jsonb('policies').$type<TlsPolicy[]>().notNull().default([]),
    source: text('source', { enum: REPORT_SOURCES }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('dmarc_tls_reports_once_idx').on(t.tenantId, t.orgName, t.reportId, t.contentHash),
    index('dmarc_tls_reports_tenant_begin_idx').on(t.tenantId, t.beginAt),
    check('dmarc_tls_reports_source_check', inList(t.source, REPORT_SOURCES)),
  ],
);

/** Each DKIM key seen published at a selector of the tenant's (its fingerprint), first and last (0040). */
export const dmarcDkimKeys = pgTable(
  'dmarc_dkim_keys',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    selector: text('selector').notNull(),
    keyHash: text('key_hash').notNull(),
    keyType: text('key_type').notNull(),
    bits: integer('bits'),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.domain, t.selector, t.keyHash] })],
);

/**
 * Moat's own DKIM keys per tenant domain (issue 38, 0043): the private key sealed with the server
 * key; `active` signs (one per algorithm and domain), `pending` is a rotation's next key,
 * `retired` signed before it and stays published for mail in flight.
 */
export const dkimSigningKeys = pgTable(
  'dkim_signing_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain')
      .notNull()
      .references(() => tenantDomains.domain, { onDelete: 'cascade' }),
    selector: text('selector').notNull(),
    algorithm: text('algorithm', { enum: DKIM_ALGORITHMS }).notNull(),
    bits: integer('bits').notNull(),
    privateKey: text('private_key').notNull(),
    publicKey: text('public_key').notNull(),
    state: text('state', { enum: DKIM_KEY_STATES }).notNull(),
    createdAt: createdAt(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('dkim_signing_keys_domain_selector_idx').on(t.domain, t.selector),
    uniqueIndex('dkim_signing_keys_one_active_idx')
      .on(t.domain, t.algorithm)
      .where(sql`${t.state} = 'active'`),
    uniqueIndex('dkim_signing_keys_one_pending_idx')
      .on(t.domain, t.algorithm)
      .where(sql`${t.state} = 'pending'`),
    check('dkim_signing_keys_algorithm_check', inList(t.algorithm, DKIM_ALGORITHMS)),
    check('dkim_signing_keys_state_check', inList(t.state, DKIM_KEY_STATES)),
  ],
);

/** SMTP AUTH credentials for outbound submission (issue 38, 0043): the password as an argon2id hash. */
export const smtpCredentials = pgTable(
  'smtp_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    label: text('label').notNull().default(''),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('smtp_credentials_username_idx').on(t.username),
    index('smtp_credentials_tenant_idx').on(t.tenantId),
  ],
);

/**
 * DNS Change-Log (issue 37): each record of a domain Moat polls (its kind and the name asked), as
 * last seen: `value` null when none is published; `first_seen_at` null until a poll answered.
 * A poll that failed keeps the value and says why (`failure`).
 */
export const dmarcDnsRecords = pgTable(
  'dmarc_dns_records',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    kind: text('kind', { enum: DNS_RECORD_KINDS }).notNull(),
    name: text('name').notNull(),
    value: text('value'),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    changedAt: timestamp('changed_at', { withTimezone: true }),
    failure: text('failure'),
    failedAt: timestamp('failed_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.domain, t.kind, t.name] }),
    check('dmarc_dns_records_kind_check', inList(t.kind, DNS_RECORD_KINDS)),
  ],
);

/** Each change of a polled record, before and after; `first`: the record's first reading. */
export const dmarcDnsChanges = pgTable(
  'dmarc_dns_changes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    kind: text('kind', { enum: DNS_RECORD_KINDS }).notNull(),
    name: text('name').notNull(),
    before: text('before'),
    after: text('after'),
    first: boolean('first').notNull().default(false),
    observedAt: timestamp('observed_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('dmarc_dns_changes_tenant_observed_idx').on(t.tenantId, t.observedAt),
    check('dmarc_dns_changes_kind_check', inList(t.kind, DNS_RECORD_KINDS)),
  ],
);

/** When each domain was last polled, and up to when its reports were read for DKIM selectors. */
export const dmarcDnsPolls = pgTable(
  'dmarc_dns_polls',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    polledAt: timestamp('polled_at', { withTimezone: true }).notNull(),
    selectorsUntil: timestamp('selectors_until', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.domain] }),
    index('dmarc_dns_polls_polled_idx').on(t.polledAt),
  ],
);

/** The DMARC alerts raised, each once (`key` within its kind), and whether the admins were emailed. */
export const dmarcAlerts = pgTable(
  'dmarc_alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: DMARC_ALERT_KINDS }).notNull(),
    domain: text('domain').notNull(),
    key: text('key').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    raisedAt: timestamp('raised_at', { withTimezone: true }).notNull(),
    emailed: boolean('emailed').notNull().default(false),
  },
  (t) => [
    uniqueIndex('dmarc_alerts_once_idx').on(t.tenantId, t.kind, t.key),
    index('dmarc_alerts_tenant_raised_idx').on(t.tenantId, t.raisedAt),
    check('dmarc_alerts_kind_check', inList(t.kind, DMARC_ALERT_KINDS)),
  ],
);

interface AuthResultRow {
  domain: string;
  selector?: string;
  scope?: string;
  result: string;
}

/** DLP (issue 38, 0044): a built-in data type's settings for a tenant; no row: the defaults. */
export const dlpDataTypes = pgTable(
  'dlp_data_types',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    enabled: boolean('enabled').notNull(),
    action: text('action', { enum: DLP_ACTIONS }).notNull(),
    threshold: integer('threshold').notNull(),
    fileTypes: jsonb('file_types').$type<string[]>().notNull().default([]),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.type] }),
    check('dlp_data_types_action_check', inList(t.action, DLP_ACTIONS)),
  ],
);

/** A tenant's own DLP rules: keywords (whole words, any case) or one RE2 expression. */
export const dlpCustomRules = pgTable(
  'dlp_custom_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind', { enum: DLP_CUSTOM_KINDS }).notNull(),
    keywords: jsonb('keywords').$type<string[]>().notNull().default([]),
    pattern: text('pattern').notNull().default(''),
    enabled: boolean('enabled').notNull(),
    action: text('action', { enum: DLP_ACTIONS }).notNull(),
    threshold: integer('threshold').notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('dlp_custom_rules_tenant_idx').on(t.tenantId),
    check('dlp_custom_rules_kind_check', inList(t.kind, DLP_CUSTOM_KINDS)),
    check('dlp_custom_rules_action_check', inList(t.action, DLP_ACTIONS)),
  ],
);

/**
 * Outbound mail held for an admin (issue 38): its bytes as submitted (signed at release), the
 * envelope, why (`dlp`), and the DLP hits with the matched data masked.
 */
export const outboundHeld = pgTable(
  'outbound_held',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    envelopeFrom: text('envelope_from').notNull(),
    fromDomain: text('from_domain').notNull(),
    recipients: jsonb('recipients').$type<string[]>().notNull(),
    subject: text('subject').notNull().default(''),
    clientAddress: text('client_address').notNull().default(''),
    raw: bytea('raw').notNull(),
    reason: text('reason').notNull(),
    hits: jsonb('hits').$type<DlpHit[]>().notNull().default([]),
    status: text('status', { enum: OUTBOUND_HELD_STATUSES }).notNull().default('held'),
    createdAt: createdAt(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    decidedBy: text('decided_by'),
  },
  (t) => [
    index('outbound_held_tenant_status_created_idx').on(t.tenantId, t.status, t.createdAt),
    check('outbound_held_status_check', inList(t.status, OUTBOUND_HELD_STATUSES)),
  ],
);
