import { AppShell, Box, Burger, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, Outlet, useLoaderData, useLocation, useSearchParams } from 'react-router';
import { AppLogo } from '../../components/ui/AppLogo';
import { lazyDialog } from '../../components/ui/lazy-dialog';
import { NotificationsProvider } from '../../components/ui/Notifications';
import { SideNav } from '../../features/navigation/components/SideNav';
import { visibleNavItems } from '../../features/navigation/nav-items';
import { useNavContext } from '../../features/navigation/use-nav-context';
import { useSideNav } from '../../features/navigation/use-side-nav';
import { QuickSearch } from '../../features/search/components/QuickSearch';
import { currentUserPollingOptions } from '../../features/session/api/get-current-user';
import { UnifiedQuarantineToggle } from '../../features/unified-quarantine/components/UnifiedQuarantineToggle';
import { showsUnifiedQuarantineToggle } from '../../features/unified-quarantine/show-toggle';
import { useAlertBadge } from '../../features/user-interaction-dashboard/api/get-alert-badge';
import { deploymentQueryOptions } from '../../lib/console-data/get-deployment';
import { incidentsQueryOptions } from '../../lib/console-data/get-incidents';
import { useTranslation } from '../../lib/i18n';
import { useSavedTheme } from '../../lib/use-saved-theme';
import { FloatingMenu } from './FloatingMenu';
import { HelpMenu } from './HelpMenu';
import { NavbarLabel, ShellStatus } from './ShellStatus';
import { TenantLogo } from './TenantLogo';
import { ThemeSwitch } from './ThemeSwitch';
import { UserMenu } from './UserMenu';
import './shell.css';

/** `?hide_menu` hides the top bar and the side menu (SPEC §2). */
export const HIDE_MENU_PARAM = 'hide_menu';
const VersionInfoDialog = lazyDialog(() => import('./VersionInfoDialog').then((m) => m.VersionInfoDialog));

const HEADER_HEIGHT_PX = 56;
/** Below Mantine's `sm` (48em) the side menu is a drawer behind the burger, with full labels. */
const NAVBAR_BREAKPOINT = 'sm';
const BELOW_NAVBAR_BREAKPOINT = '(max-width: 47.99em)';

function isHidden(value: string | null): boolean {
  return value !== null && value !== 'false' && value !== '0';
}

/**
 * The signed-in frame (SPEC §2.4): the top bar (logo, quick search on the overview, help, theme,
 * the firewall-vendor brand's floating menu, the user menu), the side navigation built from the
 * rule table, and the page. While it is shown, the current user is re-polled (SPEC §4
 * "Start-up"); leaving it stops that.
 */
export function ShellLayout() {
  const { t } = useTranslation();
  const loaded = useLoaderData<CurrentUser>();
  const user = useQuery(currentUserPollingOptions()).data ?? loaded;
  const { pathname } = useLocation();
  const [searchParams] = useSearchParams();
  const [navOpened, nav] = useDisclosure(false);
  const [versionOpened, version] = useDisclosure(false);
  const phone = useMediaQuery(BELOW_NAVBAR_BREAKPOINT) ?? false;
  const hideMenu = isHidden(searchParams.get(HIDE_MENU_PARAM));
  const ctx = useNavContext(user);
  const deployment = useQuery(deploymentQueryOptions()).data;
  useSavedTheme(user, deployment?.default_application_mode);
  const incidents = useQuery({ ...incidentsQueryOptions(), enabled: !hideMenu }).data;
  const items = useMemo(() => (ctx ? visibleNavItems(ctx) : null), [ctx]);
  // What waits for an admin (open reports, restore requests) on the User Interaction entries.
  const waiting = useAlertBadge(user.role === 'admin').data;
  const badges = useMemo(
    () =>
      waiting
        ? {
            'user-interaction': waiting.total,
            'reported-phishing': waiting.open_reports,
            'restore-request-and-clean-attachments': waiting.waiting_requests,
          }
        : undefined,
    [waiting],
  );
  const sideNav = useSideNav();

  const versionDialog = <VersionInfoDialog opened={versionOpened} onClose={version.close} />;
  const main = (
    <AppShell.Main>
      <ShellStatus user={user} />
      <Outlet />
    </AppShell.Main>
  );

  if (hideMenu) {
    return (
      <NotificationsProvider>
        <AppShell padding="md">{main}</AppShell>
      </NotificationsProvider>
    );
  }

  const showSearch = ctx !== null && pathname === ROUTES.dashboard && !ctx.features.hideSearchInputFF;
  const showUnifiedQuarantine =
    ctx !== null && showsUnifiedQuarantineToggle(pathname, ctx.features, ctx.apps);
  const wide = phone || sideNav.wide;

  return (
    <NotificationsProvider>
      <AppShell
        padding="md"
        header={{ height: HEADER_HEIGHT_PX }}
        navbar={{
          width: sideNav.reservedWidth,
          breakpoint: NAVBAR_BREAKPOINT,
          collapsed: { mobile: !navOpened },
        }}
      >
        {/* Above the side menu: the quick-search panel hangs from the top bar over it. */}
        <AppShell.Header style={{ zIndex: 'calc(var(--mantine-z-index-app) + 2)' }}>
          <div className="shell-topbar">
            <Burger
              opened={navOpened}
              onClick={nav.toggle}
              hiddenFrom={NAVBAR_BREAKPOINT}
              size="sm"
              aria-label={t('shell.toggleNavigation')}
              aria-expanded={navOpened}
            />
            <Link to={ROUTES.dashboard} className="shell-brand">
              <AppLogo size={32} />
              <Text fw={700} component="span" visibleFrom="sm">
                {t('app.name')}
              </Text>
            </Link>
            {showSearch && (
              // biome-ignore lint/a11y/useSemanticElements: <search> is not known to every supported browser yet.
              <div className="shell-topbar__search" role="search">
                <QuickSearch />
              </div>
            )}
            <div className="shell-topbar__end">
              {showUnifiedQuarantine && ctx && (
                <Box visibleFrom="sm">
                  <UnifiedQuarantineToggle deployment={ctx.deployment} canChange={user.role === 'admin'} />
                </Box>
              )}
              {deployment?.brand === 'sonicwall' && <FloatingMenu />}
              <HelpMenu supportEmail={deployment?.support_email ?? null} onVersionInfo={version.open} />
              {ctx?.features.enableChangeApplicationMode && <ThemeSwitch user={user} />}
              <UserMenu
                user={user}
                enableMFA={ctx?.features.enableMFA ?? false}
                isMsp={ctx?.deployment.is_msp ?? false}
                supportEmail={deployment?.support_email ?? null}
                onVersionInfo={version.open}
              />
            </div>
          </div>
        </AppShell.Header>

        <AppShell.Navbar
          component="nav"
          aria-label={t('shell.mainNavigation')}
          className="shell-navbar"
          data-state={phone ? 'drawer' : sideNav.locked ? 'locked' : sideNav.wide ? 'unfolded' : 'mini'}
          style={phone ? undefined : { width: sideNav.width }}
          inert={phone && !navOpened ? true : undefined}
          {...(phone ? {} : sideNav.handlers)}
        >
          <SideNav
            items={items}
            incidents={incidents ?? []}
            wide={wide}
            header={
              <>
                <TenantLogo size={wide ? 40 : 32} />
                <NavbarLabel user={user} />
              </>
            }
            lock={phone ? undefined : { locked: sideNav.locked, onToggle: sideNav.toggleLock }}
            onNavigate={nav.close}
            onAction={(action) => {
              if (action === 'versionInfo') version.open();
            }}
            badges={badges}
          />
        </AppShell.Navbar>
        {!phone && sideNav.overlay && (
          <div className="shell-nav-overlay" data-testid="nav-overlay" aria-hidden="true" />
        )}

        {main}
      </AppShell>
      {versionDialog}
    </NotificationsProvider>
  );
}
