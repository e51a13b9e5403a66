/**
 * The side navigation of the main shell as one declarative rule table (SPEC §2.4 "Side navigation",
 * §6 "Roles and permissions"). Pure data and pure functions: no React. The shell renders
 * `visibleNavItems(ctx)`; page frames find their title and breadcrumb with `navTrail(pathname)`.
 */
import type { AppsResponse, DeploymentConfig } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { SaasApp, SecurityTool } from '@moat/contracts/deployment';
import type { FeatureFlags } from '@moat/contracts/features';
import { MESSAGE_TRACE_ROUTES, ROUTES, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { encodeDrillDown } from '../../lib/drill-down';
import type { TranslationKey } from '../../lib/i18n';
import { isAdminOnlyPath } from './admin-only';

/** Everything a visibility rule may look at. */
export interface NavContext {
  user: CurrentUser;
  features: FeatureFlags;
  deployment: DeploymentConfig;
  apps: AppsResponse;
  /** Troubleshooting mode (SPEC §2.3 `?debug=1` / `?debug=0`). */
  debug: boolean;
  /** Whether the tenant has a licence page at all (see `licencePageShown`). */
  licencePageShown: boolean;
}

export type NavIconName =
  | 'dashboard'
  | 'events'
  | 'mail'
  | 'userInteraction'
  | 'restore'
  | 'phishing'
  | 'quarantine'
  | 'attachment'
  | 'banner'
  | 'analytics'
  | 'risk'
  | 'shadowIt'
  | 'query'
  | 'checkup'
  | 'supplyChain'
  | 'schedule'
  | 'report'
  | 'training'
  | 'policy'
  | 'archive'
  | 'search'
  | 'dmarc'
  | 'dns'
  | 'key'
  | 'cloud'
  | 'settings'
  | 'apps'
  | 'engine'
  | 'dataType'
  | 'exception'
  | 'system'
  | 'users'
  | 'palette'
  | 'tasks'
  | 'logs'
  | 'status'
  | 'licence'
  | 'version'
  | 'store';

/** What an item does instead of navigating. */
export type NavAction = 'versionInfo';

/** SPEC §3 "Navigation item". */
export interface NavItem {
  /** Stable id; service-status incidents name it in `nav_item`. */
  id: string;
  title: TranslationKey;
  icon: NavIconName;
  /** Where the item leads; absent on a pure section and on an action item. */
  href?: string;
  queryParams?: Readonly<Record<string, string>>;
  children?: readonly NavItem[];
  /** Active only on exactly `href` (not on the paths below it). */
  activeExactPath?: boolean;
  /** A separator is drawn above the item. */
  displayLineBreak?: boolean;
  action?: NavAction;
  /** Absent means always shown. A section is also hidden when none of its children is shown. */
  visible?: (ctx: NavContext) => boolean;
}

// ---------------------------------------------------------------------------------------------
// Rule helpers, each a reading of a phrase of SPEC §2.4 / §6.

const isEnabled = <T extends string>(list: ReadonlyArray<{ name: T; state: string }>, name: T) =>
  list.some((entry) => entry.name === name && entry.state === 'enabled');

/** An "active SaaS app": one of `apps.apps` in state 'enabled'. */
export const appActive = (ctx: NavContext, app: SaasApp) => isEnabled(ctx.apps.apps, app);
/** An "active security tool": one of `apps.tools` in state 'enabled'. */
export const toolActive = (ctx: NavContext, tool: SecurityTool) => isEnabled(ctx.apps.tools, tool);

/** "A Google-type or Microsoft-type mail app is active". */
export const googleOrMicrosoftMailActive = (ctx: NavContext) =>
  appActive(ctx, 'google_mail') || appActive(ctx, 'office365_emails');
/**
 * "A mail app active" (Phishing Reports). Reading: any of the tenant's mail apps, i.e. the
 * Google-type and Microsoft-type ones plus the SMTP gateway's mail flow.
 */
export const mailAppActive = (ctx: NavContext) =>
  googleOrMicrosoftMailActive(ctx) || appActive(ctx, 'smtp_emails');

export const isAdmin = (ctx: NavContext) => ctx.user.role === 'admin';
/** "Demo customer": a deployment in mode demo. */
export const isDemoCustomer = (ctx: NavContext) => ctx.deployment.deploymentMode === 'demo';
export const isPoc = (ctx: NavContext) => ctx.deployment.deploymentMode === 'poc';
export const isMsp = (ctx: NavContext) => ctx.deployment.is_msp;
/** SPEC §6: "Admin (or demo customer)" see User Management, Settings, Licenses, Archiving, Add-ons Store. */
export const isAdminOrDemo = (ctx: NavContext) => isAdmin(ctx) || isDemoCustomer(ctx);
/** SPEC §6 "Admin and user": the two known roles (further role values are not shown by SPEC). */
export const hasConsoleRole = (ctx: NavContext) => ctx.user.role === 'admin' || ctx.user.role === 'user';
/** Policy: role admin or user, a demo customer, or a policy view property (SPEC §2.4, §2.5, §6). */
export const canSeePolicy = (ctx: NavContext) =>
  hasConsoleRole(ctx) || isDemoCustomer(ctx) || ctx.user.view_policy || ctx.user.view_edit_policy;
/** "For MSP only if the MSP allows it": a non-MSP portal always may. */
const mspAllows = (ctx: NavContext, config: 'training' | 'dmarc' | 'archiving' | 'sspm') =>
  !isMsp(ctx) || ctx.deployment[config].msp_allowed;

/**
 * "Licence page shown". Reading: a tenant has its own licence page unless its licences are
 * handled by a managed-service provider (SPEC §6: MSP portals get no licence banner or label
 * either) or it is a demo, which has no licence.
 */
export function licencePageShown(deployment: DeploymentConfig): boolean {
  return !deployment.is_msp && deployment.deploymentMode !== 'demo';
}

/** Security Training: debug, training config active, enablePhishingTraining or poc; the MSP gate always applies. */
export const trainingVisible = (ctx: NavContext) =>
  (ctx.debug || ctx.deployment.training.is_active || ctx.features.enablePhishingTraining || isPoc(ctx)) &&
  mspAllows(ctx, 'training');

/** DMARC: never under HideDMARCForFedRAMP; otherwise debug, DMARC config active, enableDMARC or poc. */
export const dmarcVisible = (ctx: NavContext) =>
  !ctx.features.HideDMARCForFedRAMP &&
  (ctx.debug || ctx.deployment.dmarc.is_active || ctx.features.enableDMARC || isPoc(ctx));

/**
 * SSPM: (enableAtmosecIntegration and the tenant's SSPM integration active), or poc, or the MSP
 * bypass flag (mspSSPMBypass) on its own.
 */
export const sspmVisible = (ctx: NavContext) =>
  (ctx.features.enableAtmosecIntegration && ctx.deployment.sspm.is_active) ||
  isPoc(ctx) ||
  ctx.features.mspSSPMBypass;

/** Restore Requests, older variant: the TEX feature off and a Google-type or Microsoft-type mail app active. */
export const olderRestoreRequests = (ctx: NavContext) =>
  !ctx.features.enableTEX && googleOrMicrosoftMailActive(ctx);

/**
 * Add-ons: "shown only when not already active and allowed by deployment and MSP rules".
 * Reading: the add-on's customer config (or its tool) is not active, and an MSP portal sells it
 * only when the MSP allows it. DMARC also follows its FedRAMP hiding flag. IRaaS has no
 * customer config: it is sold to tenants that are not MSP (an MSP answers incidents itself).
 */
const addOnSellable = (
  ctx: NavContext,
  config: 'training' | 'dmarc' | 'archiving' | 'sspm',
  tool: SecurityTool,
) => !ctx.deployment[config].is_active && !toolActive(ctx, tool) && mspAllows(ctx, config);

/** The DMARC pages open on the last month (the filter's encoding: lib/drill-down). */
const LAST_MONTH_DRILL_DOWN = { drillDown: encodeDrillDown({ dateRange: 'month' }) } as const;

const UI = ROUTES.userInteraction;
const ANALYTICS = ROUTES.analytics;
const TRAINING = ROUTES.phishingTraining;
const DMARC = ROUTES.dmarc;
const CONFIG = ROUTES.configuration;
const EXCEPTIONS = `${CONFIG}/security-exceptions`;
const SYSTEM = ROUTES.systemSettings;
const ADD_ONS = ROUTES.addOnsStore;
export const PRODUCT_UPDATES_PATH = `${SYSTEM}/product-updates`;
export const SERVICE_STATUS_PATH = `${SYSTEM}/service-status`;

// ---------------------------------------------------------------------------------------------

/**
 * The whole side navigation, in display order (SPEC §2.4). Besides each item's own rule, an item
 * leading to an admin-only page (admin-only.ts) is shown to admins only.
 */
export const NAV_ITEMS: readonly NavItem[] = [
  { id: 'dashboard', title: 'nav.items.overview', icon: 'dashboard', href: ROUTES.dashboard },
  { id: 'security-events', title: 'nav.items.securityEvents', icon: 'events', href: ROUTES.securityEvents },
  { id: 'mail-explorer', title: 'nav.items.mailExplorer', icon: 'mail', href: ROUTES.mailExplorer },
  {
    id: 'user-interaction',
    title: 'nav.items.userInteraction',
    icon: 'userInteraction',
    href: UI,
    children: [
      {
        id: 'user-interaction-dashboard',
        title: 'nav.items.dashboard',
        icon: 'dashboard',
        href: `${UI}/dashboard`,
        visible: (ctx) => ctx.features.enableUserInteractionScreen,
      },
      {
        id: 'restore-request',
        title: 'nav.items.restoreRequests',
        icon: 'restore',
        href: `${UI}/restore-request`,
        visible: olderRestoreRequests,
      },
      {
        id: 'restore-request-and-clean-attachments',
        title: 'nav.items.restoreRequests',
        icon: 'restore',
        href: USER_INTERACTION_ROUTES.restoreRequests,
        visible: (ctx) => !olderRestoreRequests(ctx),
      },
      {
        id: 'reported-phishing',
        title: 'nav.items.phishingReports',
        icon: 'phishing',
        href: `${UI}/reported-phishing`,
        visible: (ctx) => ctx.features.enableUserReportedPhishing && mailAppActive(ctx),
      },
      {
        id: 'quarantine-item',
        title: 'nav.items.quarantinedItems',
        icon: 'quarantine',
        href: USER_INTERACTION_ROUTES.quarantineItems,
      },
      {
        // SPEC gives this entry's link only as "{token}" (a link carrying the session token to
        // another screen). It stays inside the console: a frame under User Interaction.
        id: 'modified-attachments',
        title: 'nav.items.modifiedAttachments',
        icon: 'attachment',
        href: `${UI}/modified-attachments`,
      },
      {
        id: 'smart-banners',
        title: 'nav.items.smartBanners',
        icon: 'banner',
        href: `${UI}/configuration/smart-banners`,
        visible: (ctx) => ctx.features.enableSmartBanners || ctx.debug,
      },
    ],
  },
  {
    id: 'analytics',
    title: 'nav.items.analytics',
    icon: 'analytics',
    href: ANALYTICS,
    children: [
      {
        id: 'analytics-dashboard',
        title: 'nav.items.dashboard',
        icon: 'dashboard',
        href: `${ANALYTICS}/dashboard`,
      },
      {
        id: 'vendor-risk',
        title: 'nav.items.partnerRisk',
        icon: 'risk',
        href: `${ANALYTICS}/vendor-risk`,
        visible: (ctx) => ctx.features.enableVendorRisk || ctx.debug,
      },
      { id: 'shadow-it', title: 'nav.items.shadowIt', icon: 'shadowIt', href: `${ANALYTICS}/shadow-it` },
      {
        id: 'custom-queries',
        title: 'nav.items.customQueries',
        icon: 'query',
        href: `${ANALYTICS}/custom-queries`,
      },
      {
        id: 'security-checkup',
        title: 'nav.items.securityCheckup',
        icon: 'checkup',
        href: `${ANALYTICS}/security-checkup`,
        visible: (ctx) => ctx.features.showCheckupReportsScreen,
      },
      {
        // "enableSupplyChainThreats, MSP variant": SPEC names an MSP variant without describing
        // it; the flag decides, and the page itself shows its MSP view on an MSP portal.
        id: 'supply-chain-threats',
        title: 'nav.items.supplyChainThreats',
        icon: 'supplyChain',
        href: `${ANALYTICS}/supply-chain-threats`,
        visible: (ctx) => ctx.features.enableSupplyChainThreats,
      },
      {
        id: 'report-scheduler',
        title: 'nav.items.reportScheduler',
        icon: 'schedule',
        href: `${ANALYTICS}/report-scheduler`,
        visible: (ctx) => ctx.features.enableReportSchedulingScreen,
      },
      {
        id: 'summary-report',
        title: 'nav.items.summaryReports',
        icon: 'report',
        href: `${ANALYTICS}/summary-report`,
        visible: (ctx) => !ctx.features.showCheckupReportsScreen,
      },
      {
        id: 'periodic-reports',
        title: 'nav.items.periodicReports',
        icon: 'report',
        href: `${ANALYTICS}/periodic-reports`,
        visible: (ctx) => !ctx.features.showCheckupReportsScreen,
      },
    ],
  },
  {
    id: 'phishing-training',
    title: 'nav.items.securityTraining',
    icon: 'training',
    href: TRAINING,
    visible: trainingVisible,
    children: [
      {
        id: 'phishing-training-dashboard',
        title: 'nav.items.dashboard',
        icon: 'dashboard',
        href: TRAINING,
        activeExactPath: true,
      },
      {
        id: 'phishing-training-policies',
        title: 'nav.items.trainingPolicy',
        icon: 'policy',
        href: `${TRAINING}/policies`,
      },
    ],
  },
  {
    id: 'archiving',
    title: 'nav.items.archiving',
    icon: 'archive',
    href: ROUTES.archiving,
    visible: (ctx) => isAdminOrDemo(ctx) && toolActive(ctx, 'archiving'),
  },
  {
    id: 'smart-archiving',
    title: 'nav.items.smartArchiving',
    icon: 'archive',
    href: ROUTES.smartArchiving,
    visible: (ctx) => ctx.features.enableSmartArchiveTestFF,
    children: [
      {
        id: 'smart-archiving-overview',
        title: 'nav.items.smartArchivingOverview',
        icon: 'archive',
        href: ROUTES.smartArchiving,
        activeExactPath: true,
      },
      {
        id: 'smart-archiving-search',
        title: 'nav.items.search',
        icon: 'search',
        href: `${ROUTES.smartArchiving}/search`,
      },
    ],
  },
  {
    id: 'dmarc',
    title: 'nav.items.dmarc',
    icon: 'dmarc',
    href: DMARC,
    visible: dmarcVisible,
    children: [
      {
        id: 'dmarc-overview',
        title: 'nav.items.dmarcOverview',
        icon: 'dashboard',
        href: `${DMARC}/overview`,
      },
      {
        id: 'dmarc-domain-recommendations',
        title: 'nav.items.dmarcRecommendations',
        icon: 'checkup',
        href: `${DMARC}/domain-recommendations`,
        queryParams: LAST_MONTH_DRILL_DOWN,
      },
      {
        id: 'dmarc-rua-explorer',
        title: 'nav.items.dmarcReportsExplorer',
        icon: 'query',
        href: `${DMARC}/rua-explorer`,
        queryParams: LAST_MONTH_DRILL_DOWN,
      },
      {
        id: 'dmarc-spf-dmarc-changes',
        title: 'nav.items.dmarcDnsChangeLog',
        icon: 'dns',
        href: `${DMARC}/spf-dmarc-changes`,
        queryParams: LAST_MONTH_DRILL_DOWN,
      },
      {
        id: 'dmarc-spf-management',
        title: 'nav.items.spfManagement',
        icon: 'dns',
        href: `${DMARC}/spf-management`,
        visible: (ctx) => ctx.features.enableSPFManagement,
      },
      {
        id: 'dmarc-dkim-management',
        title: 'nav.items.dkimManagement',
        icon: 'key',
        href: `${DMARC}/dkim-management`,
        visible: (ctx) => ctx.features.enableDKIMManagement,
      },
    ],
  },
  {
    id: 'sspm',
    title: 'nav.items.sspm',
    icon: 'cloud',
    href: `${ROUTES.checkpoint}/infinity-redirect`,
    queryParams: { appName: 'sspm' },
    visible: sspmVisible,
  },
  { id: 'policy', title: 'nav.items.policy', icon: 'policy', href: ROUTES.policy, visible: canSeePolicy },
  {
    id: 'configuration',
    title: 'nav.items.securitySettings',
    icon: 'settings',
    href: CONFIG,
    children: [
      {
        id: 'cloud-apps',
        title: 'nav.items.saasApplications',
        icon: 'apps',
        href: `${CONFIG}/cloud-apps`,
        visible: (ctx) => ctx.features.cloudAppsTab && hasConsoleRole(ctx),
      },
      {
        id: 'app-store',
        title: 'nav.items.securityEngines',
        icon: 'engine',
        href: `${CONFIG}/app-store`,
        visible: (ctx) => ctx.features.appStoreTab && hasConsoleRole(ctx),
      },
      {
        id: 'data-types',
        title: 'nav.items.dlpDataTypes',
        icon: 'dataType',
        href: `${CONFIG}/data-types`,
        visible: (ctx) => ctx.features.enableGoogleDlpScanTemplate && toolActive(ctx, 'dlp'),
      },
      {
        id: 'security-exceptions',
        title: 'nav.items.exceptions',
        icon: 'exception',
        href: EXCEPTIONS,
        children: [
          {
            id: 'exceptions-anti-phishing',
            title: 'nav.items.antiPhishing',
            icon: 'phishing',
            href: `${EXCEPTIONS}/anti-phishing`,
            visible: (ctx) => toolActive(ctx, 'ap_avanan'),
          },
          {
            id: 'exceptions-anti-malware',
            title: 'nav.items.antiMalware',
            icon: 'exception',
            href: `${EXCEPTIONS}/external/anti-malware`,
          },
          {
            id: 'exceptions-anti-spam',
            title: 'nav.items.antiSpam',
            icon: 'mail',
            href: `${EXCEPTIONS}/spam-exceptions`,
            visible: (ctx) => ctx.features.enableTrustedSenders,
          },
          {
            id: 'exceptions-url-reputation',
            title: 'nav.items.urlReputation',
            icon: 'shadowIt',
            href: `${EXCEPTIONS}/external/url-reputation`,
          },
          {
            id: 'exceptions-click-time',
            title: 'nav.items.clickTime',
            icon: 'shadowIt',
            href: `${EXCEPTIONS}/clicktime-protection-list-management`,
          },
          {
            // Outbound mail's DLP entries: shown where DLP itself is (DLP Data Types).
            id: 'exceptions-dlp',
            title: 'nav.items.dlpExceptions',
            icon: 'dataType',
            href: `${EXCEPTIONS}/external/dlp`,
            visible: (ctx) => toolActive(ctx, 'dlp'),
          },
        ],
      },
      {
        // "enableUserInteractionScreen and a role check". Reading: these set what end users may
        // do with their quarantine, an administrator's decision, so the role is admin.
        id: 'user-interaction-settings',
        title: 'nav.items.userInteractionSettings',
        icon: 'userInteraction',
        href: `${CONFIG}/user-interaction`,
        visible: (ctx) => ctx.features.enableUserInteractionScreen && isAdmin(ctx),
        children: [
          {
            id: 'user-interaction-settings-quarantine',
            title: 'nav.items.quarantine',
            icon: 'quarantine',
            href: `${CONFIG}/user-interaction/restore-requests`,
          },
          {
            id: 'user-interaction-settings-phishing-reports',
            title: 'nav.items.phishingReports',
            icon: 'phishing',
            href: `${CONFIG}/user-interaction/phishing-reports`,
          },
        ],
      },
    ],
  },
  {
    id: 'system-settings',
    title: 'nav.items.systemSettings',
    icon: 'system',
    href: SYSTEM,
    children: [
      {
        id: 'user-management',
        title: 'nav.items.userManagement',
        icon: 'users',
        href: ROUTES.userManagement,
        visible: (ctx) => isAdminOrDemo(ctx) && ctx.features.userManagementTab,
      },
      {
        id: 'customization',
        title: 'nav.items.customization',
        icon: 'palette',
        href: `${SYSTEM}/customization`,
        visible: (ctx) => ctx.features.enableCustomLogo || ctx.features.enableChangeApplicationMode,
      },
      {
        id: 'settings',
        title: 'nav.items.settings',
        icon: 'settings',
        href: `${CONFIG}/settings`,
        visible: isAdminOrDemo,
      },
      {
        id: 'system-tasks',
        title: 'nav.items.systemTasks',
        icon: 'tasks',
        href: `${SYSTEM}/system-tasks`,
        visible: (ctx) => ctx.features.enableSystemTask,
      },
      { id: 'system-logs', title: 'nav.items.systemLogs', icon: 'logs', href: `${SYSTEM}/system-logs` },
      {
        id: 'service-status',
        title: 'nav.items.serviceStatus',
        icon: 'status',
        href: SERVICE_STATUS_PATH,
        visible: (ctx) => ctx.features.serviceStatus,
      },
      {
        id: 'license-configuration',
        title: 'nav.items.licenses',
        icon: 'licence',
        href: `${SYSTEM}/license-configuration`,
        visible: (ctx) => isAdminOrDemo(ctx) && ctx.licencePageShown,
      },
      {
        id: 'system-version',
        title: 'nav.items.systemVersion',
        icon: 'version',
        action: 'versionInfo',
        visible: (ctx) => ctx.features.showVersionInfoLinkCP,
      },
    ],
  },
  {
    // "admin, flag enableAddOnsStore, and at least one sellable add-on": the last part is the
    // section rule of `visibleNavItems` (a section with no child left is dropped).
    id: 'add-ons-store',
    title: 'nav.items.addOnsStore',
    icon: 'store',
    href: ADD_ONS,
    displayLineBreak: true,
    visible: (ctx) => isAdminOrDemo(ctx) && ctx.features.enableAddOnsStore,
    children: [
      {
        id: 'add-on-dmarc',
        title: 'nav.items.addOnDmarc',
        icon: 'dmarc',
        href: `${DMARC}/add-on-dmarc`,
        visible: (ctx) => !ctx.features.HideDMARCForFedRAMP && addOnSellable(ctx, 'dmarc', 'dmarc'),
      },
      {
        id: 'add-on-iraas',
        title: 'nav.items.addOnIraas',
        icon: 'status',
        href: `${ADD_ONS}/add-on-iraas`,
        visible: (ctx) => !isMsp(ctx),
      },
      {
        id: 'add-on-sspm',
        title: 'nav.items.addOnSspm',
        icon: 'cloud',
        href: `${ADD_ONS}/add-on-sspm`,
        visible: (ctx) => addOnSellable(ctx, 'sspm', 'sspm'),
      },
      {
        id: 'add-on-archiving',
        title: 'nav.items.addOnArchiving',
        icon: 'archive',
        href: `${ADD_ONS}/add-on-archiving`,
        visible: (ctx) => addOnSellable(ctx, 'archiving', 'archiving'),
      },
      {
        id: 'add-on-phishing-training',
        title: 'nav.items.addOnPhishingTraining',
        icon: 'training',
        href: `${ADD_ONS}/add-on-phishing-training`,
        visible: (ctx) => addOnSellable(ctx, 'training', 'phishing_training'),
      },
    ],
  },
];

/** The items `ctx` may see: rules applied at every level; a section left with no child is dropped. */
export function visibleNavItems(ctx: NavContext, items: readonly NavItem[] = NAV_ITEMS): NavItem[] {
  const shown: NavItem[] = [];
  for (const item of items) {
    if (item.visible && !item.visible(ctx)) continue;
    if (item.href && !isAdmin(ctx) && isAdminOnlyPath(item.href)) continue;
    if (item.children) {
      const children = visibleNavItems(ctx, item.children);
      if (children.length === 0) continue;
      shown.push({ ...item, children });
    } else {
      shown.push(item);
    }
  }
  return shown;
}

/** The link of an item: its href with its query parameters. */
export function navLink(item: NavItem): string | null {
  if (!item.href) return null;
  const query = new URLSearchParams(item.queryParams).toString();
  return query ? `${item.href}?${query}` : item.href;
}

function matches(item: NavItem, pathname: string): boolean {
  if (!item.href) return false;
  if (pathname === item.href) return true;
  return !item.activeExactPath && pathname.startsWith(`${item.href}/`);
}

/**
 * The chain of items from the top level down to the item that best matches `pathname` (the one
 * with the longest matching href), or [] when none does. A section's own href matches too, so a
 * path below a section without its own entry still gets the section.
 */
export function navTrail(pathname: string, items: readonly NavItem[] = NAV_ITEMS): NavItem[] {
  let best: NavItem[] = [];
  let bestLength = -1;
  const walk = (level: readonly NavItem[], parents: NavItem[]) => {
    for (const item of level) {
      const chain = [...parents, item];
      // `>=`: a child with the same href as its section (activeExactPath) wins over the section.
      if (matches(item, pathname) && (item.href?.length ?? 0) >= bestLength) {
        best = chain;
        bestLength = item.href?.length ?? 0;
      }
      if (item.children) walk(item.children, chain);
    }
  };
  walk(items, []);
  return best;
}

/** Every item of `items`, depth first. */
export function flattenNavItems(items: readonly NavItem[] = NAV_ITEMS): NavItem[] {
  return items.flatMap((item) => [item, ...flattenNavItems(item.children ?? [])]);
}

/** Pages the shell links to from outside the side navigation (help menu, search results), for their frames. */
export const PAGE_ONLY_ITEMS: readonly NavItem[] = [
  {
    id: 'product-updates',
    title: 'nav.items.productUpdates',
    icon: 'version',
    href: PRODUCT_UPDATES_PATH,
  },
  { id: 'profile', title: 'nav.items.profile', icon: 'users', href: ROUTES.profile },
  // The message trace's frame: titled as itself, under the Mail Explorer in the breadcrumb.
  {
    id: 'mail-explorer-pages',
    title: 'nav.items.mailExplorer',
    icon: 'mail',
    href: ROUTES.mailExplorer,
    children: [{ id: 'message-trace', title: 'trace.title', icon: 'mail', href: MESSAGE_TRACE_ROUTES.root }],
  },
];
