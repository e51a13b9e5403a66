import { z } from 'zod/mini';
import { mailSummarySchema } from './analytics.ts';
import { LICENCE_WARNING_WINDOW_DAYS, QUICK_SEARCH_DATE_RANGES, THEMES } from './constants.ts';
import { userPreferencesSchema } from './current-user.ts';
import {
  APP_STATES,
  AVAILABLE_SAAS_APPS,
  AVAILABLE_SECURITY_TOOLS,
  BRANDS,
  DEPLOYMENT_MODES,
  SAAS_APPS,
  SECURITY_TOOLS,
} from './deployment.ts';
import { noNul } from './validation.ts';

/**
 * Calls of the signed-in console (SPEC §2.4, §4, §7). Paths SPEC §7 gives are served as written;
 * the others follow DESIGN §4 (/api/v1/<resource>). Every one needs a session.
 */
export const CONSOLE_API = {
  /** SPEC §7: the tenant's flags, all of them (the public call returns only a few). */
  uiFeatures: '/api/v1/generic/ui_features',
  /** SPEC §3 "Deployment config" plus the licence status of SPEC §4 "Licence state". */
  deployment: '/api/v1/deployment',
  /** SPEC §3 "Apps" and the tenant's security tools; PUT turns those of this edition on or off (admins). */
  apps: '/api/v1/apps',
  /** SPEC §3 "Licence seats". */
  licenceSeats: '/api/v1/licence_seats',
  /** SPEC §3 "Version response". */
  version: '/api/v1/version',
  /** SPEC §3 "Environment components". */
  environmentComponents: '/api/v1/environment_components',
  /** SPEC §3 "Service-status incident": the open incidents, each on a navigation item. */
  incidents: '/api/v1/incidents',
  /** SPEC §3 "Learning mode data". */
  learningMode: '/api/v1/learning_mode',
  /** The signed-in user's preferences (theme); answers the updated current user. */
  preferences: '/api/v1/current_user/preferences',
  /** SPEC §7: quick search. */
  search: '/api/v1/search',
  /** SPEC §7: trial extension request. */
  trialStatus: '/api/v1/trial_status',
  /** SPEC §4 "Licence banner": the Contact us request. */
  licenceContact: '/api/v1/licence_contact',
  /** Overview dashboard counts. */
  overview: '/api/v1/dashboard/overview',
  /** The top bar's Microsoft unified quarantine toggle (admins); answers the deployment config. */
  unifiedQuarantine: '/api/v1/unified_quarantine',
  /** System Settings → Service Status: components, incidents, queues and the relay. */
  serviceStatus: '/api/v1/service_status',
  /** System Settings → System Tasks (admins, enableSystemTask): background tasks and their runs. */
  systemTasks: '/api/v1/system_tasks',
} as const;

const customerConfigSchema = z.object({ is_active: z.boolean(), msp_allowed: z.boolean() });

/** SPEC §4 "Licence state". */
export const licenceStatusSchema = z
  .object({
    isExpired: z.boolean(),
    isAboutToExpire: z.boolean(),
    /** ISO date (YYYY-MM-DD) of the paid licence's end, or null. */
    licenseExpirationDate: z.nullable(z.string()),
  })
  .register(z.globalRegistry, { id: 'LicenceStatus' });
export type LicenceStatus = z.infer<typeof licenceStatusSchema>;

/** SPEC §3 "Deployment config" of the signed-in user's tenant. Dates are ISO strings or null. */
export const deploymentConfigSchema = z
  .object({
    tenant_name: z.string(),
    brand: z.enum(BRANDS),
    brandName: z.string(),
    deploymentMode: z.enum(DEPLOYMENT_MODES),
    /** 'locked' when the provider locked the portal; null otherwise. */
    portalLicenseState: z.nullable(z.enum(['locked'])),
    is_msp: z.boolean(),
    isManagedService: z.boolean(),
    is_avanan_msp: z.boolean(),
    is_cp_msp: z.boolean(),
    mspBrandID: z.nullable(z.string()),
    associationDate: z.nullable(z.string()),
    demoExpirationDate: z.nullable(z.string()),
    paidStartDate: z.nullable(z.string()),
    paidExpirationDate: z.nullable(z.string()),
    /** Whole days from today to the paid expiry (negative once past); null without one. */
    paidExpirationInDays: z.nullable(z.int()),
    paidDurationInDays: z.nullable(z.int()),
    trialExpirationDays: z.int(),
    /** Whole days left of a poc trial (negative once past); null for other modes. */
    pocExpiresInDays: z.nullable(z.int()),
    trialExpired: z.boolean(),
    waitingForApproval: z.boolean(),
    unifiedQuarantineManuallyDisabled: z.boolean(),
    licence: licenceStatusSchema,
    training: customerConfigSchema,
    dmarc: customerConfigSchema,
    archiving: customerConfigSchema,
    sspm: customerConfigSchema,
    /** Where "Contact support" writes to. */
    /** Null: no support address is set (SUPPORT_EMAIL, or a PUBLIC_URL on a mail domain). */
    support_email: z.nullable(z.string()),
    /** The theme of anyone who has not chosen one (Customization). */
    default_application_mode: z.enum(THEMES),
  })
  .register(z.globalRegistry, { id: 'DeploymentConfig' });
export type DeploymentConfig = z.infer<typeof deploymentConfigSchema>;

export const appsResponseSchema = z
  .object({
    apps: z.array(z.object({ name: z.enum(SAAS_APPS), state: z.enum(APP_STATES) })),
    tools: z.array(z.object({ name: z.enum(SECURITY_TOOLS), state: z.enum(APP_STATES) })),
  })
  .register(z.globalRegistry, { id: 'AppsResponse' });
export type AppsResponse = z.infer<typeof appsResponseSchema>;

const switchedState = z.enum(['enabled', 'disabled']);

/**
 * PUT /api/v1/apps (SaaS Applications and Security Engines, admins): the apps and tools to turn
 * on or off. Only those this edition runs can be switched from the console.
 */
export const appsUpdateBodySchema = z
  .strictObject({
    apps: z._default(
      z
        .array(z.strictObject({ name: z.enum(AVAILABLE_SAAS_APPS), state: switchedState }))
        .check(z.maxLength(AVAILABLE_SAAS_APPS.length)),
      [],
    ),
    tools: z._default(
      z
        .array(z.strictObject({ name: z.enum(AVAILABLE_SECURITY_TOOLS), state: switchedState }))
        .check(z.maxLength(AVAILABLE_SECURITY_TOOLS.length)),
      [],
    ),
  })
  .check(
    z.refine((body) => body.apps.length + body.tools.length > 0, {
      message: 'name at least one app or tool',
    }),
  )
  .register(z.globalRegistry, { id: 'AppsUpdate' });
export type AppsUpdateBody = z.input<typeof appsUpdateBodySchema>;

export const licenceSeatsResponseSchema = z
  .object({
    data: z.array(
      z.object({
        saas: z.nullable(z.enum(SAAS_APPS)),
        security_tool: z.nullable(z.enum(SECURITY_TOOLS)),
        seats: z.int(),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'LicenceSeats' });
export type LicenceSeatsResponse = z.infer<typeof licenceSeatsResponseSchema>;

export const versionResponseSchema = z
  .object({
    version_info: z.object({
      /** The id of the web build the server now serves; a change means a new UI is out. */
      ui2_version: z.string(),
      /** The server's version. */
      flask_version: z.string(),
    }),
  })
  .register(z.globalRegistry, { id: 'VersionResponse' });
export type VersionResponse = z.infer<typeof versionResponseSchema>;

const componentSchema = z.object({
  name: z.string(),
  version: z.string(),
  /** 'on', or 'off' with the reason in `detail` (an engine that is not configured). */
  status: z.enum(['on', 'off']),
  detail: z.optional(z.string()),
});
export const environmentComponentsSchema = z
  .object({ services: z.array(componentSchema), engines: z.array(componentSchema) })
  .register(z.globalRegistry, { id: 'EnvironmentComponents' });
export type EnvironmentComponents = z.infer<typeof environmentComponentsSchema>;

export const INCIDENT_SEVERITIES = ['info', 'warning', 'error'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

/**
 * SPEC §3 "Service-status incident". `nav_item` is the id of the navigation item it is shown on
 * (for example 'security-events' or 'mail-explorer'); null means the whole service.
 */
export const incidentSchema = z.object({
  id: z.string(),
  nav_item: z.nullable(z.string()),
  severity: z.enum(INCIDENT_SEVERITIES),
  title: z.string(),
  started_at: z.string(),
});
export type Incident = z.infer<typeof incidentSchema>;
export const incidentsResponseSchema = z
  .array(incidentSchema)
  .register(z.globalRegistry, { id: 'Incidents' });

/** SPEC §3 "Learning mode data"; `progress_number` 0–100; the banner shows below 100. */
export const learningModeSchema = z
  .object({
    progress_number: z.int().check(z.gte(0), z.lte(100)),
    modal_popup_title: z.string(),
    modal_popup_text: z.string(),
    modal_popup_href_text: z.string(),
    modal_popup_href: z.string(),
  })
  .register(z.globalRegistry, { id: 'LearningMode' });
export type LearningMode = z.infer<typeof learningModeSchema>;

/**
 * PUT body of the user's preferences: merged into what is stored. The known preferences only
 * (`userPreferencesSchema`); an unknown key is refused (400), as other settings refuse one.
 */
export const preferencesUpdateSchema = z
  .strictObject(userPreferencesSchema.shape)
  .register(z.globalRegistry, { id: 'UserPreferencesUpdate' });

/** SPEC §7 quick search. */
export const searchQuerySchema = z.object({
  nosystem: z.optional(z.enum(['0', '1'])),
  date_range: z._default(z.enum(QUICK_SEARCH_DATE_RANGES), 'month'),
  /** Comma list of active app ids; empty means all of the tenant's apps. */
  saas: z.optional(z.string().check(z.maxLength(500))),
  category_limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(50)), 8),
  keyword: z._default(
    z.string().check(z.maxLength(200), z.refine(noNul, 'must not contain a NUL character')),
    '',
  ),
});
export interface SearchQuery {
  keyword: string;
  date_range?: (typeof QUICK_SEARCH_DATE_RANGES)[number];
  /** Comma list of app ids. */
  saas?: string;
  category_limit?: number;
}

export const SEARCH_RESULT_TYPES = ['email', 'event', 'user', 'rule'] as const;
export const searchResultSchema = z.object({
  /** What the result is called in the list (a subject, an address, a rule name). */
  name: z.string(),
  /** email, event, user or rule. */
  type: z.enum(SEARCH_RESULT_TYPES),
  /** The profile kind (message, event, user, rule). */
  entity_type: z.string(),
  entity_id: z.string(),
  mime: z.nullable(z.string()),
  /** A second line: sender and recipient, verdict, role … */
  description: z.optional(z.string()),
  error: z.optional(z.string()),
});
export type SearchResult = z.infer<typeof searchResultSchema>;
export const searchGroupSchema = z.object({
  app_name: z.string(),
  results: z.array(searchResultSchema),
  error: z.optional(z.string()),
});
export type SearchGroup = z.infer<typeof searchGroupSchema>;
export const searchResponseSchema = z
  .array(searchGroupSchema)
  .register(z.globalRegistry, { id: 'SearchResponse' });

/** SPEC §3 "Trial extension request". */
export const trialExtensionRequestSchema = z
  .object({
    requester_email_address: z.email().check(z.maxLength(254)),
    requester_first_name: z.string().check(z.maxLength(100)),
    requester_last_name: z.string().check(z.maxLength(100)),
  })
  .register(z.globalRegistry, { id: 'TrialExtensionRequest' });
export type TrialExtensionRequest = z.infer<typeof trialExtensionRequestSchema>;
export const trialExtensionResponseSchema = z
  .object({ success: z.boolean(), info: z.string() })
  .register(z.globalRegistry, { id: 'TrialExtensionResponse' });
export type TrialExtensionResponse = z.infer<typeof trialExtensionResponseSchema>;

export const unifiedQuarantineBodySchema = z
  .strictObject({ enabled: z.boolean() })
  .register(z.globalRegistry, { id: 'UnifiedQuarantineToggle' });

export const licenceContactResponseSchema = z
  .object({ success: z.boolean(), info: z.string() })
  .register(z.globalRegistry, { id: 'LicenceContactResponse' });

export const overviewSchema = z
  .object({
    /** Messages held now (quarantined or attachments removed). */
    quarantined: z.int(),
    /** Restore requests waiting for an admin. */
    pending_requests: z.int(),
    /** Messages released to their recipients in the last 30 days. */
    restored_30d: z.int(),
    /** The gateway's mail of the last 30 days (MAIL_SUMMARY_DAYS), counted as the Analytics dashboard counts it. */
    mail_30d: mailSummarySchema,
    /** The newest events (at most 5). */
    recent_events: z.array(
      z.object({
        id: z.string(),
        verdict: z.string(),
        subject: z.string(),
        recipient: z.string(),
        detected_at: z.string(),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'Overview' });
export type Overview = z.infer<typeof overviewSchema>;

/**
 * SPEC §4 "Licence state": for paid, non-MSP deployments expiring within the warning window,
 * about-to-expire while days left are 0 or more, expired when negative; otherwise both false.
 */
export function licenceState(input: {
  deploymentMode: string;
  isMsp: boolean;
  paidExpirationInDays: number | null;
}): { isExpired: boolean; isAboutToExpire: boolean } {
  const days = input.paidExpirationInDays;
  if (input.deploymentMode !== 'paid' || input.isMsp || days === null || days > LICENCE_WARNING_WINDOW_DAYS) {
    return { isExpired: false, isAboutToExpire: false };
  }
  return { isAboutToExpire: days >= 0, isExpired: days < 0 };
}

/** A quick-search result that is mail the gateway delivered (a Mail Explorer row). */
export const MAIL_LOG_ENTITY = 'mail_log';

/**
 * Where a quick-search result leads (SPEC §2.4 "Search result links"); delivered mail opens its
 * message trace.
 */
export function searchResultPath(result: Pick<SearchResult, 'type' | 'entity_type' | 'entity_id'>): string {
  const id = encodeURIComponent(result.entity_id);
  if (result.entity_type === MAIL_LOG_ENTITY) return `/mail-explorer/message/${id}`;
  if (result.type === 'rule') return `/policy/edit-rule/${id}`;
  if (['email', 'message', 'file'].includes(result.type)) {
    return `/profile/${result.type}/${encodeURIComponent(result.entity_type)}/${id}`;
  }
  return `/profile/${encodeURIComponent(result.entity_type)}/${id}`;
}

/** How much mail waits, and how much failed: the gateway's intake (all tenants) and the tenant's outbox. */
export const queuesSchema = z.object({
  inbound_waiting: z.int(),
  inbound_failed: z.int(),
  outbox_waiting: z.int(),
  /** Bounced or failed in the last 24 hours. */
  outbox_failed_24h: z.int(),
  /** The oldest mail still waiting to go out; null if none. */
  oldest_waiting_at: z.nullable(z.string()),
});
export type Queues = z.infer<typeof queuesSchema>;

export const serviceStatusSchema = z
  .object({
    services: z.array(componentSchema),
    engines: z.array(componentSchema),
    incidents: incidentsResponseSchema,
    queues: queuesSchema,
    relay: z.object({
      configured: z.boolean(),
      /** The latest delivery error of the tenant's mail (admins only: it may name addresses). */
      last_error: z.nullable(z.string()),
      last_error_at: z.nullable(z.string()),
    }),
  })
  .register(z.globalRegistry, { id: 'ServiceStatus' });
export type ServiceStatus = z.infer<typeof serviceStatusSchema>;

export const systemTaskSchema = z.object({
  name: z.string(),
  /** How often it runs, in minutes. */
  every_minutes: z.number(),
  running: z.boolean(),
  last_run: z.nullable(
    z.object({
      node: z.string(),
      started_at: z.string(),
      finished_at: z.nullable(z.string()),
      outcome: z.nullable(z.enum(['ok', 'failed'])),
      detail: z.nullable(z.string()),
    }),
  ),
  /** Runs in the last 24 hours, and how many of them failed. */
  runs_24h: z.int(),
  failures_24h: z.int(),
});
export type SystemTask = z.infer<typeof systemTaskSchema>;
export const systemTasksSchema = z
  .object({ tasks: z.array(systemTaskSchema), queues: queuesSchema })
  .register(z.globalRegistry, { id: 'SystemTasks' });
export type SystemTasks = z.infer<typeof systemTasksSchema>;
