/** Filters of an admin list, as the query key holds them (every value that changes the answer). */
export type ListKeyFilters = Readonly<Record<string, string | number | undefined>>;

/** A list query's filters that are set (no empty text, nothing undefined): its key and its query string. */
export function setFilters(query: object): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => [k, String(v)]),
  );
}

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
  /** Onboarding: the organisation's domains and next hop. */
  onboarding: () => ['onboarding'] as const,
  /** Onboarding: what is still missing, looked up now (under `onboarding`: refreshed with it). */
  onboardingChecklist: () => ['onboarding', 'checklist'] as const,
  /** My account: the user's own sessions. */
  account: {
    sessions: () => ['account', 'sessions'] as const,
  },
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
    retention: () => ['quarantine', 'retention'] as const,
  },
  /** Phishing Reports, the User Interaction dashboard, Modified Attachments, alerts (issue 11). */
  userInteraction: {
    all: () => ['user-interaction'] as const,
    reports: (filters: ListKeyFilters) => ['user-interaction', 'reports', filters] as const,
    summary: (from: string, to: string) => ['user-interaction', 'summary', from, to] as const,
    attachments: (filters: ListKeyFilters) => ['user-interaction', 'attachments', filters] as const,
    alertSettings: () => ['user-interaction', 'alert-settings'] as const,
    badge: () => ['user-interaction', 'badge'] as const,
  },
  /** The gateway's log of every processed message (Mail Explorer). */
  /** The Policy screen: the tenant's whole mail policy. */
  policy: {
    current: () => ['policy', 'current'] as const,
  },
  /** User Interaction → Smart Banners: the settings, the messages to preview on, a preview. */
  smartBanners: {
    all: () => ['smart-banners'] as const,
    settings: () => ['smart-banners', 'settings'] as const,
    samples: () => ['smart-banners', 'samples'] as const,
    preview: (input: string) => ['smart-banners', 'preview', input] as const,
  },
  /** Settings → User Interaction: Quarantine and Phishing Reports. */
  interactionSettings: {
    quarantine: () => ['interaction-settings', 'quarantine'] as const,
    reports: () => ['interaction-settings', 'reports'] as const,
  },
  /** The Add-ons Store. */
  addOns: () => ['add-ons'] as const,
  mailExplorer: {
    all: () => ['mail-explorer'] as const,
    messages: (filters: ListKeyFilters) => ['mail-explorer', 'messages', filters] as const,
  },
  /** The Events screen; `all()` refreshes it after a decision changes a message's story. */
  securityEvents: {
    all: () => ['security-events'] as const,
    events: (filters: ListKeyFilters) => ['security-events', 'list', filters] as const,
    event: (id: string) => ['security-events', 'event', id] as const,
  },
  /** Security Settings → Exceptions: `all()` invalidates every page's list after a change. */
  settings: () => ['settings'] as const,
  signInSettings: () => ['settings', 'sign-in'] as const,
  serviceStatus: () => ['service-status'] as const,
  systemTasks: () => ['system-tasks'] as const,
  myQuarantine: {
    all: () => ['my-quarantine'] as const,
    list: (filters: ListKeyFilters) => ['my-quarantine', 'list', filters] as const,
    message: (id: string) => ['my-quarantine', 'message', id] as const,
    /** The user's own allowed and blocked senders. */
    senders: () => ['my-quarantine', 'senders'] as const,
  },
  customization: () => ['customization'] as const,
  users: {
    all: () => ['users'] as const,
    list: (filters: ListKeyFilters) => ['users', 'list', filters] as const,
  },
  auditLog: {
    list: (filters: ListKeyFilters) => ['audit-log', 'list', filters] as const,
  },
  exceptions: {
    all: () => ['exceptions'] as const,
    list: (filters: ListKeyFilters) => ['exceptions', 'list', filters] as const,
  },
  /** Anti-Phishing's protected people (VIPs): one list, never paged by the server. */
  vips: {
    list: () => ['vips', 'list'] as const,
    /** The organisation's users whose name or address contains the text: offered as people to protect. */
    people: (text: string) => ['vips', 'people', text] as const,
  },
  /** Click-time protection: the tenant's choices, and clicks by host, URL or message ("who clicked"). */
  clickTime: {
    settings: () => ['click-time', 'settings'] as const,
    clicks: (filters: ListKeyFilters) => ['click-time', 'clicks', filters] as const,
  },
  outbound: {
    /** The tenant's submission credentials and where to submit. */
    credentials: () => ['outbound', 'credentials'] as const,
    /** Outbound mail DLP held for review, by status filter. */
    held: (status: string) => ['outbound', 'held', status] as const,
  },
  /** DLP: the data types' settings and the custom rules. */
  dlp: {
    settings: () => ['dlp', 'settings'] as const,
  },
  /** DMARC: the aggregate reports taken in, and the sources they name. */
  dmarc: {
    all: () => ['dmarc'] as const,
    /** Failure reports (RFC 6591) and SMTP TLS reports (RFC 8460) taken in. */
    failureReports: (filters: ListKeyFilters) => ['dmarc', 'failure-reports', filters] as const,
    tlsReports: (filters: ListKeyFilters) => ['dmarc', 'tls-reports', filters] as const,
    records: (filters: ListKeyFilters) => ['dmarc', 'records', filters] as const,
    /** What came to the report addresses and the uploads. */
    intake: (filters: ListKeyFilters) => ['dmarc', 'intake', filters] as const,
    /** SPF Management: every domain's SPF record, checked now. */
    spf: () => ['dmarc', 'spf'] as const,
    /** DNS Change-Log: the records as last polled and their changes, per filter. */
    dnsChanges: (filters: ListKeyFilters) => ['dmarc', 'dns-changes', filters] as const,
    /** The recent DMARC alerts and whether they are emailed. */
    alerts: () => ['dmarc', 'alerts'] as const,
    /** DKIM Management: every domain's selectors and keys, looked up now. */
    dkim: () => ['dmarc', 'dkim'] as const,
    /** DKIM signing: each domain's own keys, their records, signing on or off. */
    dkimSigning: () => ['dmarc', 'dkim-signing'] as const,
    /** Per domain over a period: reports, pass rate, policy, trend, failing sources. */
    overview: (days: number) => ['dmarc', 'overview', days] as const,
    /** What to change next, per domain, over a period. */
    recommendations: (days: number) => ['dmarc', 'recommendations', days] as const,
    /** The reverse names of source addresses. */
    reverse: (ips: readonly string[]) => ['dmarc', 'reverse', ips] as const,
  },
  /** The Analytics Dashboard's counts for a time range. */
  analytics: {
    dashboard: (range: ListKeyFilters) => ['analytics', 'dashboard', range] as const,
  },
  /** One message's timeline, by Mail Explorer row or by held message. */
  trace: {
    all: () => ['trace'] as const,
    byMailLog: (id: string) => ['trace', 'mail-log', id] as const,
    byHeld: (id: string) => ['trace', 'held', id] as const,
  },
};
