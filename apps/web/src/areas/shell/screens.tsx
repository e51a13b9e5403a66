import { Center, Loader, VisuallyHidden } from '@mantine/core';
import {
  ADD_ON_ROUTES,
  ANTI_PHISHING_SETTINGS_ROUTE,
  INTERACTION_SETTINGS_ROUTES,
  MESSAGE_TRACE_ROUTES,
  ROUTES,
} from '@moat/contracts/routes';
import { type ComponentType, lazy, Suspense } from 'react';
import { useTranslation, withAreaTexts } from '../../lib/i18n';

/**
 * The console's screens by path, each its own lazy chunk: a page under an area shows the screen
 * whose path is the longest prefix of its own (a path with `exact` only on itself). A page with
 * no screen here keeps the area's "no data yet" frame. One line per screen, so the screens of
 * the security side and of administration do not step on each other.
 */
interface ScreenEntry {
  path: string;
  exact?: boolean;
  Screen: ComponentType;
}

/** A screen's lazy chunk, shown once it and the areas' words are here (the overview needs none). */
const screen = <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType, areaTexts = true) =>
  lazy(async () => ({ default: pick(await withAreaTexts(load, areaTexts)) }));

export const SCREENS: readonly ScreenEntry[] = [
  {
    path: ROUTES.dashboard,
    exact: true,
    // The signed-in dashboard's first screen: the words the console starts with are enough.
    Screen: screen(
      () => import('../../features/overview/components/OverviewDashboard'),
      (m) => m.OverviewDashboard,
      false,
    ),
  },
  {
    path: ROUTES.securityEvents,
    Screen: screen(
      () => import('../../features/security-events/components/EventsScreen'),
      (m) => m.EventsScreen,
    ),
  },
  {
    path: `${ROUTES.analytics}/dashboard`,
    Screen: screen(
      () => import('../../features/analytics/components/AnalyticsScreen'),
      (m) => m.AnalyticsScreen,
    ),
  },
  {
    path: ROUTES.mailExplorer,
    Screen: screen(
      () => import('../../features/mail-explorer/components/MailExplorerScreen'),
      (m) => m.MailExplorerScreen,
    ),
  },
  {
    // Mail Explorer → Retract delivered mail (issue 36): search delivered mail, preview, pull it back.
    path: `${ROUTES.mailExplorer}/retract`,
    Screen: screen(
      () => import('../../features/retraction/components/RetractScreen'),
      (m) => m.RetractScreen,
    ),
  },
  {
    // Security Settings → Exceptions and its seven engine pages: one screen, its page from the path.
    path: `${ROUTES.configuration}/security-exceptions`,
    Screen: screen(
      () => import('../../features/exceptions/components/ExceptionsScreen'),
      (m) => m.ExceptionsScreen,
    ),
  },
  {
    // Its Anti-Phishing page also holds the people the engine protects from impersonation (VIPs).
    path: ANTI_PHISHING_SETTINGS_ROUTE,
    Screen: screen(
      () => import('./AntiPhishingExceptionsScreen'),
      (m) => m.AntiPhishingExceptionsScreen,
    ),
  },
  {
    // Its Click-Time page also holds click-time protection's choices and "who clicked".
    path: `${ROUTES.configuration}/security-exceptions/clicktime-protection-list-management`,
    Screen: screen(
      () => import('../../features/click-time/components/ClickTimeScreen'),
      (m) => m.ClickTimeScreen,
    ),
  },
  {
    path: `${ROUTES.configuration}/cloud-apps`,
    Screen: screen(
      () => import('../../features/apps/components/AppsScreen'),
      (m) => m.SaasAppsScreen,
    ),
  },
  {
    path: `${ROUTES.configuration}/app-store`,
    Screen: screen(
      () => import('../../features/apps/components/AppsScreen'),
      (m) => m.SecurityEnginesScreen,
    ),
  },
  {
    path: `${ROUTES.configuration}/settings`,
    Screen: screen(
      () => import('../../features/settings/components/SettingsScreen'),
      (m) => m.SettingsScreen,
    ),
  },
  {
    path: `${ROUTES.systemSettings}/customization`,
    Screen: screen(
      () => import('../../features/customization/components/CustomizationScreen'),
      (m) => m.CustomizationScreen,
    ),
  },
  {
    path: `${ROUTES.systemSettings}/service-status`,
    Screen: screen(
      () => import('../../features/system-status/components/ServiceStatusScreen'),
      (m) => m.ServiceStatusScreen,
    ),
  },
  {
    path: `${ROUTES.systemSettings}/system-tasks`,
    Screen: screen(
      () => import('../../features/system-status/components/SystemTasksScreen'),
      (m) => m.SystemTasksScreen,
    ),
  },
  {
    path: `${ROUTES.systemSettings}/license-configuration`,
    Screen: screen(
      () => import('../../features/licence/components/LicensesScreen'),
      (m) => m.LicensesScreen,
    ),
  },
  {
    path: `${ROUTES.systemSettings}/user-management`,
    Screen: screen(
      () => import('../../features/user-management/components/UserManagementScreen'),
      (m) => m.UserManagementScreen,
    ),
  },
  {
    path: `${ROUTES.systemSettings}/system-logs`,
    Screen: screen(
      () => import('../../features/system-logs/components/SystemLogsScreen'),
      (m) => m.SystemLogsScreen,
    ),
  },
  {
    // `/policy/edit-rule/{id}` (quick-search rule links) opens the same screen on that rule.
    path: ROUTES.policy,
    Screen: screen(
      () => import('../../features/policy/components/PolicyScreen'),
      (m) => m.PolicyScreen,
    ),
  },
  {
    path: `${ROUTES.userInteraction}/reported-phishing`,
    Screen: screen(
      () => import('../../features/phishing-reports/components/PhishingReportsScreen'),
      (m) => m.PhishingReportsScreen,
    ),
  },
  {
    path: `${ROUTES.userInteraction}/dashboard`,
    Screen: screen(
      () => import('../../features/user-interaction-dashboard/components/UserInteractionDashboard'),
      (m) => m.UserInteractionDashboard,
    ),
  },
  {
    path: `${ROUTES.userInteraction}/modified-attachments`,
    Screen: screen(
      () => import('../../features/modified-attachments/components/ModifiedAttachmentsScreen'),
      (m) => m.ModifiedAttachmentsScreen,
    ),
  },
  {
    path: INTERACTION_SETTINGS_ROUTES.smartBanners,
    Screen: screen(
      () => import('../../features/smart-banners/components/SmartBannersScreen'),
      (m) => m.SmartBannersScreen,
    ),
  },
  {
    path: INTERACTION_SETTINGS_ROUTES.settings,
    exact: true,
    Screen: screen(
      () => import('../../features/user-interaction-settings/components/UserInteractionSettingsIndex'),
      (m) => m.UserInteractionSettingsIndex,
    ),
  },
  {
    path: INTERACTION_SETTINGS_ROUTES.quarantine,
    Screen: screen(
      () => import('../../features/user-interaction-settings/components/QuarantineSettingsScreen'),
      (m) => m.QuarantineSettingsScreen,
    ),
  },
  {
    path: INTERACTION_SETTINGS_ROUTES.reports,
    Screen: screen(
      () => import('../../features/user-interaction-settings/components/ReportSettingsScreen'),
      (m) => m.ReportSettingsScreen,
    ),
  },
  {
    path: ADD_ON_ROUTES.store,
    exact: true,
    Screen: screen(
      () => import('../../features/add-ons/components/AddOnScreens'),
      (m) => m.AddOnsStoreScreen,
    ),
  },
  // Each add-on's page (DMARC's lives under /dmarc): one screen, its add-on from the path.
  ...(['dmarc', 'iraas', 'sspm', 'archiving', 'phishing_training'] as const).map((id) => ({
    path: ADD_ON_ROUTES[id],
    exact: true,
    Screen: screen(
      () => import('../../features/add-ons/components/AddOnScreens'),
      (m) => m.AddOnScreen,
    ),
  })),
  {
    // The DMARC area's own address opens its Overview.
    path: ROUTES.dmarc,
    exact: true,
    Screen: screen(
      () => import('../../features/dmarc/components/DmarcOverviewScreen'),
      (m) => m.DmarcOverviewScreen,
    ),
  },
  {
    path: `${ROUTES.dmarc}/overview`,
    Screen: screen(
      () => import('../../features/dmarc/components/DmarcOverviewScreen'),
      (m) => m.DmarcOverviewScreen,
    ),
  },
  {
    path: `${ROUTES.dmarc}/domain-recommendations`,
    Screen: screen(
      () => import('../../features/dmarc/components/RecommendationsScreen'),
      (m) => m.RecommendationsScreen,
    ),
  },
  {
    path: `${ROUTES.dmarc}/rua-explorer`,
    Screen: screen(
      () => import('../../features/dmarc/components/ReportsExplorerScreen'),
      (m) => m.ReportsExplorerScreen,
    ),
  },
  {
    path: `${ROUTES.dmarc}/spf-dmarc-changes`,
    Screen: screen(
      () => import('../../features/dmarc/components/DnsChangeLogScreen'),
      (m) => m.DnsChangeLogScreen,
    ),
  },
  {
    path: `${ROUTES.dmarc}/spf-management`,
    Screen: screen(
      () => import('../../features/dmarc/components/SpfManagementScreen'),
      (m) => m.SpfManagementScreen,
    ),
  },
  {
    // Security Settings → DLP Data Types (issue 38): its tabs (custom rules, try it, held mail) are sub-paths.
    path: `${ROUTES.configuration}/data-types`,
    Screen: screen(
      () => import('../../features/dlp/components/DlpDataTypesScreen'),
      (m) => m.DlpDataTypesScreen,
    ),
  },
  {
    path: `${ROUTES.dmarc}/dkim-management`,
    Screen: screen(
      () => import('../../features/dmarc/components/DkimManagementScreen'),
      (m) => m.DkimManagementScreen,
    ),
  },
  {
    path: ROUTES.noAccess,
    exact: true,
    Screen: screen(
      () => import('./NoAccessScreen'),
      (m) => m.NoAccessScreen,
    ),
  },
  {
    path: MESSAGE_TRACE_ROUTES.root,
    Screen: screen(
      () => import('../../features/message-trace/components/MessageTraceScreen'),
      (m) => m.MessageTraceScreen,
    ),
  },
];

/** The screen of a path, if it has one. */
export function screenOf(pathname: string): ComponentType | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  let best: ScreenEntry | undefined;
  for (const entry of SCREENS) {
    const matches = entry.exact
      ? path === entry.path
      : path === entry.path || path.startsWith(`${entry.path}/`);
    if (matches && (!best || entry.path.length > best.path.length)) best = entry;
  }
  return best?.Screen;
}

/** A screen while its chunk loads. */
export function ScreenSuspense({ Screen }: { Screen: ComponentType }) {
  const { t } = useTranslation();
  return (
    <Suspense
      fallback={
        <Center py="xl" role="status">
          <Loader />
          <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
        </Center>
      }
    >
      <Screen />
    </Suspense>
  );
}
