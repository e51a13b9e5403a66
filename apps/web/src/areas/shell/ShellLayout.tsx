import { AppShell, Burger, Group, NavLink, ScrollArea, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { MENU_WIDTH_LOCKED_PX } from '@moat/contracts/constants';
import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES, SHELL_AREAS } from '@moat/contracts/routes';
import { USER_INTERACTION_ROUTES } from '@moat/contracts/web-routes';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLoaderData, useLocation, useSearchParams } from 'react-router';
import { AppLogo } from '../../components/ui/AppLogo';
import { NotificationsProvider } from '../../components/ui/Notifications';
import { currentUserPollingOptions } from '../../features/session/api/get-current-user';
import type { TranslationKey } from '../../lib/i18n';
import { ThemeSwitch } from './ThemeSwitch';
import { UserMenu } from './UserMenu';

/** `?hide_menu` hides the top bar and the side menu (SPEC §2). */
export const HIDE_MENU_PARAM = 'hide_menu';
const HEADER_HEIGHT_PX = 56;
const NAVBAR_BREAKPOINT = 'sm';
const BELOW_NAVBAR_BREAKPOINT = '(max-width: 47.99em)';

/** Screens under an area that have their own entry in the side navigation (SPEC §2.4). */
const AREA_CHILDREN: Partial<
  Record<(typeof SHELL_AREAS)[number]['key'], Array<{ label: TranslationKey; to: string }>>
> = {
  userInteraction: [
    { label: 'shell.sections.restoreRequests', to: USER_INTERACTION_ROUTES.restoreRequests },
    { label: 'shell.sections.quarantineItems', to: USER_INTERACTION_ROUTES.quarantineItems },
  ],
};

function isHidden(value: string | null): boolean {
  return value !== null && value !== 'false' && value !== '0';
}

/**
 * The signed-in frame: top bar (logo, name, user menu) and the side list of the shell areas.
 * While it is shown, the current user is re-polled (SPEC §4 "Start-up"); leaving it stops that.
 */
export function ShellLayout() {
  const { t } = useTranslation();
  const loaded = useLoaderData<CurrentUser>();
  const user = useQuery(currentUserPollingOptions()).data ?? loaded;
  const { pathname } = useLocation();
  const [searchParams] = useSearchParams();
  const [navOpened, nav] = useDisclosure(false);
  const narrow = useMediaQuery(BELOW_NAVBAR_BREAKPOINT);
  const hideMenu = isHidden(searchParams.get(HIDE_MENU_PARAM));

  if (hideMenu) {
    return (
      <NotificationsProvider>
        <AppShell padding="md">
          <AppShell.Main>
            <Outlet />
          </AppShell.Main>
        </AppShell>
      </NotificationsProvider>
    );
  }

  return (
    <NotificationsProvider>
      <AppShell
        padding="md"
        header={{ height: HEADER_HEIGHT_PX }}
        navbar={{
          width: MENU_WIDTH_LOCKED_PX,
          breakpoint: NAVBAR_BREAKPOINT,
          collapsed: { mobile: !navOpened },
        }}
      >
        <AppShell.Header>
          <Group h="100%" px="md" gap="sm" wrap="nowrap">
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
              <Text fw={700} component="span">
                {t('app.name')}
              </Text>
            </Link>
            <Group ml="auto" gap="xs" wrap="nowrap" miw={0}>
              <UserMenu user={user} />
            </Group>
          </Group>
        </AppShell.Header>

        <AppShell.Navbar
          component="nav"
          aria-label={t('shell.mainNavigation')}
          p="xs"
          inert={narrow && !navOpened ? true : undefined}
        >
          <AppShell.Section grow component={ScrollArea}>
            {SHELL_AREAS.map((area) => {
              const to = `/${area.path}`;
              const inArea = pathname === to || pathname.startsWith(`${to}/`);
              const children = AREA_CHILDREN[area.key] ?? [];
              const childActive = children.some((child) => pathname === child.to);
              return (
                <NavLink
                  key={area.key}
                  component={Link}
                  to={to}
                  label={t(`shell.areas.${area.key}`)}
                  active={inArea && !childActive}
                  aria-current={inArea && !childActive ? 'page' : undefined}
                  opened={inArea && children.length > 0}
                  onClick={nav.close}
                >
                  {children.length > 0 && inArea
                    ? children.map((child) => (
                        <NavLink
                          key={child.to}
                          component={Link}
                          to={child.to}
                          label={t(child.label)}
                          active={pathname === child.to}
                          aria-current={pathname === child.to ? 'page' : undefined}
                          onClick={nav.close}
                        />
                      ))
                    : undefined}
                </NavLink>
              );
            })}
          </AppShell.Section>
          <AppShell.Section pt="sm">
            <ThemeSwitch />
          </AppShell.Section>
        </AppShell.Navbar>

        <AppShell.Main>
          <Outlet />
        </AppShell.Main>
      </AppShell>
    </NotificationsProvider>
  );
}
