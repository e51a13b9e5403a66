/**
 * Route paths of the web app (SPEC §2). The web's router tree and every link use these;
 * no component writes a path as a literal.
 */
export const ROUTES = {
  root: '/',
  auth: {
    root: '/auth',
    login: '/auth/login',
    forgotPassword: '/auth/forgot-password',
    resetPassword: '/auth/reset-password',
    passwordExpired: (email: string) => `/auth/password-expired/${encodeURIComponent(email)}`,
    samlLogin: '/auth/saml/login',
    office365: '/auth/office365',
    loginGoogle: '/auth/login_google',
  },
  emailActions: {
    root: '/email-actions',
    restoreEmail: '/email-actions/restore-email',
    restoreAttachment: '/email-actions/restore-attachment',
    restoreOriginal: '/email-actions/restore-original',
    action: '/email-actions/action',
    /** The warning or block page of a rewritten link (click-time protection, issue 36). */
    link: '/email-actions/link',
  },
  errors: {
    root: '/error',
    unauthorized: '/error/401',
    forbidden: '/error/403',
    gone: '/error/410',
  },
  accessBlocked: {
    root: '/access-blocked',
    customerLocked: '/access-blocked/customer-locked',
    requestSent: '/access-blocked/request-sent',
  },
  onboarding: {
    root: '/onboarding',
    saasSelection: '/onboarding/saas-selection',
    allSet: '/onboarding/all-set',
  },
  wizard: '/v1/wizard',
  redirectRoute: '/redirect_route',
  sonicwallLogin: '/sonicwall/login',
  trial: '/trial',
  dashboard: '/dashboard',
  securityEvents: '/security-events',
  mailExplorer: '/mail-explorer',
  policy: '/policy',
  policyEditRule: (id: string) => `/policy/edit-rule/${encodeURIComponent(id)}`,
  profile: '/profile',
  userInteraction: '/user-interaction',
  analytics: '/analytics',
  phishingTraining: '/phishing-training',
  configuration: '/configuration',
  systemSettings: '/system-settings',
  userManagement: '/system-settings/user-management',
  checkpoint: '/checkpoint',
  archiving: '/archiving',
  archiveSearch: '/archiving/archive-search',
  smartArchiving: '/smart-archiving',
  dmarc: '/dmarc',
  addOnsStore: '/add-ons-store',
  noAccess: '/no-access-page',
} as const;

/**
 * Route patterns of the web's router table that carry parameters or wildcards (SPEC §2), next to
 * the concrete paths of `ROUTES`; paths here match `ROUTES`.
 */
export const ROUTE_PATTERNS = {
  passwordExpired: '/auth/password-expired/:email',
  forbiddenWithRest: '/error/403/*',
  policyEdit: '/policy/edit/:id',
  v1Feature: '/v1/:feature',
  v1Subfeature: '/v1/:feature/:subfeature',
  v1SubfeatureId: '/v1/:feature/:subfeature/:id',
  notFound: '*',
} as const;

/** `/v1/{feature}[/{subfeature}[/{id}]]`, each segment URL-encoded. */
export function v1Path(feature: string, subfeature?: string, id?: string): string {
  return ['/v1', feature, subfeature, id]
    .filter((segment): segment is string => segment !== undefined)
    .map((segment, index) => (index === 0 ? segment : encodeURIComponent(segment)))
    .join('/');
}

/** Where `/policy/edit/{id}` goes (SPEC §2.4). */
export function v1PolicyEditPath(id: string): string {
  return v1Path('policy', 'edit', id);
}

/** Screens of the User Interaction area (SPEC §2.4 side navigation) that the web builds. */
export const USER_INTERACTION_ROUTES = {
  restoreRequests: `${ROUTES.userInteraction}/restore-request-and-clean-attachments`,
  quarantineItems: `${ROUTES.userInteraction}/quarantine-item`,
} as const;

/**
 * Smart Banners and Settings → User Interaction (issue 33): the screens where what recipients of
 * warned and held mail see and may do is set.
 */
export const INTERACTION_SETTINGS_ROUTES = {
  smartBanners: `${ROUTES.userInteraction}/configuration/smart-banners`,
  settings: `${ROUTES.configuration}/user-interaction`,
  quarantine: `${ROUTES.configuration}/user-interaction/restore-requests`,
  reports: `${ROUTES.configuration}/user-interaction/phishing-reports`,
} as const;

/** The Add-ons Store's pages (SPEC §2.4): the store, and each add-on's (DMARC's under /dmarc). */
export const ADD_ON_ROUTES = {
  store: ROUTES.addOnsStore,
  dmarc: `${ROUTES.dmarc}/add-on-dmarc`,
  iraas: `${ROUTES.addOnsStore}/add-on-iraas`,
  sspm: `${ROUTES.addOnsStore}/add-on-sspm`,
  archiving: `${ROUTES.addOnsStore}/add-on-archiving`,
  phishing_training: `${ROUTES.addOnsStore}/add-on-phishing-training`,
} as const;

/**
 * Security Settings → Exceptions → Anti-Phishing: the engine's allow and block entries and the
 * people it protects from impersonation (VIPs); the Security Engines page links to it.
 */
export const ANTI_PHISHING_SETTINGS_ROUTE = `${ROUTES.configuration}/security-exceptions/anti-phishing`;

/** The message trace screen (issue 11): by Mail Explorer row, or by held message. */
export const MESSAGE_TRACE_ROUTES = {
  root: `${ROUTES.mailExplorer}/message`,
  byMailLog: `${ROUTES.mailExplorer}/message/:id`,
} as const;

/** The trace of a Mail Explorer row. */
export function messageTracePath(mailLogId: string): string {
  return `${MESSAGE_TRACE_ROUTES.root}/${encodeURIComponent(mailLogId)}`;
}

/** The trace of a held message (Quarantined Items, Security Events). */
export function heldMessageTracePath(quarantineMessageId: string): string {
  return `${MESSAGE_TRACE_ROUTES.root}?held=${encodeURIComponent(quarantineMessageId)}`;
}

/**
 * The main-shell areas (SPEC §2.4): each is a lazy route whose own screens come with the
 * issue that builds them. `key` doubles as the i18n key of the area's title.
 */
export const SHELL_AREAS = [
  { key: 'dashboard', path: 'dashboard' },
  { key: 'securityEvents', path: 'security-events' },
  { key: 'mailExplorer', path: 'mail-explorer' },
  { key: 'policy', path: 'policy' },
  { key: 'profile', path: 'profile' },
  { key: 'userInteraction', path: 'user-interaction' },
  { key: 'analytics', path: 'analytics' },
  { key: 'phishingTraining', path: 'phishing-training' },
  { key: 'configuration', path: 'configuration' },
  { key: 'systemSettings', path: 'system-settings' },
  { key: 'checkpoint', path: 'checkpoint' },
  { key: 'archiving', path: 'archiving' },
  { key: 'smartArchiving', path: 'smart-archiving' },
  { key: 'dmarc', path: 'dmarc' },
  { key: 'addOnsStore', path: 'add-ons-store' },
  { key: 'noAccess', path: 'no-access-page' },
] as const;

/**
 * Legacy paths (SPEC §2.3) and where they go. A trailing `*` keeps the rest of the path;
 * query parameters are always kept.
 */
export const LEGACY_REDIRECTS: ReadonlyArray<{ from: string; to: string; keepRest?: boolean }> = [
  { from: '!', to: '/' },
  { from: '!/authorize-error', to: '/error/403', keepRest: true },
  { from: '!/password-reset', to: '/auth/reset-password' },
  { from: '!/password-expired', to: '/auth/password-expired', keepRest: true },
  { from: '!/dashboard/google_mail', to: '/onboarding/saas-selection' },
  { from: '!/dashboard', to: '/dashboard' },
  { from: 'email_restore.html', to: '/email-actions/restore-email' },
  { from: 'email_action.html', to: '/email-actions/action' },
  { from: 'restore_original.html', to: '/email-actions/restore-original' },
  { from: 'v1/wizard-user-management', to: '/system-settings/user-management' },
];

/**
 * Where a legacy path goes, or null when it is not a legacy path. `pathname` is the hash
 * route without its leading slash and without the query.
 */
export function legacyTarget(pathname: string): string | null {
  const path = pathname.replace(/^\/+/, '');
  for (const { from, to, keepRest } of LEGACY_REDIRECTS) {
    if (path === from) return to;
    if (keepRest && path.startsWith(`${from}/`)) return `${to}${path.slice(from.length)}`;
  }
  return null;
}
