/**
 * Console pages for administrators only (issue 11): their data comes from every mailbox of the
 * tenant or changes how every message is handled, so the API answers a plain user 403. One list
 * serves the side navigation (the entries are not shown to others) and the shell's guard (a
 * plain user who opens one by its address lands on the no-access page, not on an error).
 * Sub-paths are included: a message trace lives under Mail Explorer. Quarantined Items is not
 * here: anyone else sees their own held mail there.
 */
import { INTERACTION_SETTINGS_ROUTES, ROUTES, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';

export const ADMIN_ONLY_PATHS: readonly string[] = [
  ROUTES.mailExplorer,
  `${ROUTES.analytics}/dashboard`,
  `${ROUTES.configuration}/security-exceptions`,
  `${ROUTES.userInteraction}/dashboard`,
  `${ROUTES.userInteraction}/restore-request`,
  USER_INTERACTION_ROUTES.restoreRequests,
  `${ROUTES.userInteraction}/reported-phishing`,
  `${ROUTES.userInteraction}/modified-attachments`,
  `${ROUTES.systemSettings}/system-tasks`,
  // Smart Banners and Settings → User Interaction change what every recipient sees and may do;
  // the banners' preview shows other people's mail. (The Add-ons Store is "admin or demo", as
  // Settings is: a demo deployment's users look, its navigation rule says so.)
  INTERACTION_SETTINGS_ROUTES.smartBanners,
  INTERACTION_SETTINGS_ROUTES.settings,
  // DMARC's screens read the reports about every domain of the tenant and its DNS (issue 37); the
  // DMARC add-on's page is the store's.
  ...[
    'overview',
    'domain-recommendations',
    'rua-explorer',
    'spf-dmarc-changes',
    'spf-management',
    'dkim-management',
  ].map((page) => `${ROUTES.dmarc}/${page}`),
];

/** Whether `pathname` is one of the admin-only pages or below one. */
export function isAdminOnlyPath(pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '') || '/';
  return ADMIN_ONLY_PATHS.some((entry) => path === entry || path.startsWith(`${entry}/`));
}

/**
 * Links from the organisation's figures and events lead to an admin's view of these pages; a plain
 * user's Quarantined Items holds only their own mail, so such a link would not lead them there.
 */
export function isAdminViewPath(pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '') || '/';
  return isAdminOnlyPath(path) || path === USER_INTERACTION_ROUTES.quarantineItems;
}
