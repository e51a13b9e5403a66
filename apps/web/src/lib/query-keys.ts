/** Filters of an admin list, as the query key holds them (every value that changes the answer). */
export type ListKeyFilters = Readonly<Record<string, string | number | undefined>>;

/** Every TanStack Query key of the app, from one factory so invalidation matches what was cached. */
export const queryKeys = {
  publicFeatures: () => ['public-features'] as const,
  currentUser: () => ['current-user'] as const,
  captchaConfig: () => ['captcha-config'] as const,
  mfaSettings: (email: string) => ['mfa-settings', email] as const,
  requiredMfaEnrolment: (email: string) => ['required-mfa-enrolment', email] as const,
  identificationNeeded: (type: string, actionName: string, query: string) =>
    ['identification-needed', type, actionName, query] as const,
  entityExists: (type: string, msg: string) => ['entity-exists', type, msg] as const,
  restoreStatus: (type: string, msg: string) => ['restore-status', type, msg] as const,
  /** The signed-in console's tenant and service data (SPEC §2.4, §4). */
  console: {
    features: () => ['console', 'features'] as const,
    deployment: () => ['console', 'deployment'] as const,
    apps: () => ['console', 'apps'] as const,
    licenceSeats: () => ['console', 'licence-seats'] as const,
    version: () => ['console', 'version'] as const,
    environmentComponents: () => ['console', 'environment-components'] as const,
    incidents: () => ['console', 'incidents'] as const,
    learningMode: () => ['console', 'learning-mode'] as const,
    overview: () => ['console', 'overview'] as const,
    search: (params: ListKeyFilters) => ['console', 'search', params] as const,
  },
  /** The admin's quarantine screens; `all()` invalidates every list and preview after a decision. */
  quarantine: {
    all: () => ['quarantine'] as const,
    restoreRequests: (filters: ListKeyFilters) => ['quarantine', 'restore-requests', filters] as const,
    messages: (filters: ListKeyFilters) => ['quarantine', 'messages', filters] as const,
    message: (id: string) => ['quarantine', 'message', id] as const,
  },
  /** The gateway's log of every processed message (Mail Explorer). */
  mailExplorer: {
    messages: (filters: ListKeyFilters) => ['mail-explorer', 'messages', filters] as const,
  },
  /** One message's timeline, by Mail Explorer row or by held message. */
  trace: {
    byMailLog: (id: string) => ['trace', 'mail-log', id] as const,
    byHeld: (id: string) => ['trace', 'held', id] as const,
  },
};
