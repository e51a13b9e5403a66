import { z } from 'zod/mini';

export const BRANDS = ['moat', 'checkpoint', 'sonicwall'] as const;
export type Brand = (typeof BRANDS)[number];
export const brandSchema = z.enum(BRANDS);

export const DEPLOYMENT_MODES = ['poc', 'paid', 'demo'] as const;
export type DeploymentMode = (typeof DEPLOYMENT_MODES)[number];
export const deploymentModeSchema = z.enum(DEPLOYMENT_MODES);

export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

/** A user account: active, invited (the invitation not yet accepted) or disabled. */
export const USER_STATUSES = ['active', 'invited', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** How often the tenant's recipients get their quarantine digest. */
export const DIGEST_SCHEDULES = ['off', 'daily', 'weekly'] as const;
export type DigestSchedule = (typeof DIGEST_SCHEDULES)[number];

/** SaaS apps a tenant can protect (SPEC §3 "Apps"). */
export const SAAS_APPS = [
  'office365_emails',
  'google_mail',
  'office365_onedrive',
  'office365_sharepoint',
  'teams',
  'google_drive',
  'slack',
  'box',
  'dropbox',
  'smtp_emails',
] as const;
export type SaasApp = (typeof SAAS_APPS)[number];
export const saasAppSchema = z.enum(SAAS_APPS);

/** Security tools (engines) a tenant can activate. */
export const SECURITY_TOOLS = [
  'ap_avanan',
  'anti_malware',
  'anti_spam',
  'dlp',
  'url_reputation',
  'click_time_protection',
  'archiving',
  'phishing_training',
  'dmarc',
  'sspm',
] as const;
export type SecurityTool = (typeof SECURITY_TOOLS)[number];
export const securityToolSchema = z.enum(SECURITY_TOOLS);

/** The SaaS apps this edition protects: SMTP mail through the gateway (the others need cloud connectors). */
export const AVAILABLE_SAAS_APPS = ['smtp_emails'] as const satisfies readonly SaasApp[];

/** The security tools this edition runs: the gateway's three engines, each one per tool. */
export const AVAILABLE_SECURITY_TOOLS = [
  'anti_malware',
  'ap_avanan',
  'anti_spam',
  /** Data loss prevention of outbound mail (issue 38): DLP Data Types and its exceptions. */
  'dlp',
] as const satisfies readonly SecurityTool[];

/** The gateway engine each tool of this edition is (the environment components name the engines). */
export const ENGINE_OF_TOOL: Record<(typeof AVAILABLE_SECURITY_TOOLS)[number], string> = {
  anti_malware: 'anti_malware',
  ap_avanan: 'anti_phishing',
  // Moat's own anti-spam engine: always on; rspamd and SpamAssassin add their scores when configured.
  anti_spam: 'moat_spam',
  dlp: 'dlp',
};

/** What a new tenant starts with: SMTP mail protected by every engine of this edition. */
export const DEFAULT_SAAS_APPS: readonly SaasApp[] = AVAILABLE_SAAS_APPS;
export const DEFAULT_SECURITY_TOOLS: readonly SecurityTool[] = AVAILABLE_SECURITY_TOOLS;

export const APP_STATES = ['enabled', 'disabled', 'pending'] as const;
export type AppState = (typeof APP_STATES)[number];
export const appStateSchema = z.enum(APP_STATES);
