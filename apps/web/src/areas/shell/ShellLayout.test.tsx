import {
  FLOATING_MENU_CLOSE_MS,
  FLOATING_MENU_OPEN_DELAY_MS,
  MENU_FOLD_DELAY_MS,
  MENU_WIDTH_LOCKED_PX,
  MENU_WIDTH_MINI_PX,
} from '@moat/contracts/constants';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryKeys } from '../../lib/query-keys';
import { buildCurrentUser, jsonResponse, renderRoute } from '../../test/render-route';
import { stubShell } from './shell-fixtures';

afterEach(() => vi.useRealTimers());

const mainNav = () => screen.getByRole('navigation', { name: 'Main navigation' });
const navbar = () => mainNav() as HTMLElement;
/** The side navigation once the tenant's data has arrived and its entries show. */
async function loadedNav() {
  const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
  await within(nav).findByRole('link', { name: 'Events' });
  return nav;
}

async function openUserMenu() {
  await userEvent.click(await screen.findByRole('button', { name: 'User menu of ada@example.com' }));
}

describe('signed-in shell: side navigation', () => {
  it('lists the entries the rule table shows this user, with the current page marked', async () => {
    stubShell({ user: { role: 'user' } });
    renderRoute('/analytics/shadow-it');
    expect(await screen.findByRole('heading', { level: 1, name: 'Shadow IT' })).toBeInTheDocument();
    const nav = mainNav();
    const current = await within(nav).findByRole('link', { name: 'Shadow IT' });
    expect(current).toHaveAttribute('aria-current', 'page');
    expect(current).toHaveAttribute('href', '/analytics/shadow-it');
    expect(within(nav).getByRole('link', { name: 'Overview' })).not.toHaveAttribute('aria-current');
    expect(within(nav).getByRole('button', { name: 'Analytics' })).toHaveAttribute('aria-expanded', 'true');
    // A user is no admin: no Analytics Dashboard, User Management, Settings or Licenses.
    expect(within(nav).queryByRole('link', { name: 'Analytics Dashboard' })).not.toBeInTheDocument();
    await userEvent.click(within(nav).getByRole('button', { name: 'System Settings' }));
    expect(await within(nav).findByRole('link', { name: 'System Logs' })).toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'User Management' })).not.toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'Licenses' })).not.toBeInTheDocument();
  });

  it('opens and closes a section from the keyboard', async () => {
    stubShell();
    renderRoute('/dashboard');
    const analytics = within(await loadedNav()).getByRole('button', { name: 'Analytics' });
    expect(analytics).toHaveAttribute('aria-expanded', 'false');
    analytics.focus();
    await userEvent.keyboard('{Enter}');
    expect(analytics).toHaveAttribute('aria-expanded', 'true');
    expect(await within(mainNav()).findByRole('link', { name: 'Shadow IT' })).toHaveAttribute(
      'href',
      '/analytics/shadow-it',
    );
    await userEvent.keyboard('{Enter}');
    expect(analytics).toHaveAttribute('aria-expanded', 'false');
  });

  it('marks the entry of an open service incident and tells its severity and title', async () => {
    stubShell({
      incidents: [
        {
          id: 'i1',
          nav_item: 'security-events',
          severity: 'warning',
          title: 'Event processing is delayed',
          started_at: '2026-01-01T10:00:00Z',
        },
      ],
    });
    renderRoute('/dashboard');
    const events = within(await loadedNav()).getByRole('link', { name: 'Events' });
    await waitFor(() =>
      expect(events).toHaveAccessibleDescription('Warning. Service incidents: Event processing is delayed'),
    );
    expect(within(mainNav()).getByRole('link', { name: 'Mail Explorer' })).not.toHaveAttribute(
      'aria-describedby',
    );
  });

  it('is locked wide (250 px) by default; unlocked it is mini (70 px) and unfolds on hover over an overlay, folding 100 ms after the pointer leaves', async () => {
    stubShell();
    renderRoute('/dashboard');
    await loadedNav();
    expect(navbar()).toHaveStyle({ width: `${MENU_WIDTH_LOCKED_PX}px` });
    expect(navbar()).toHaveAttribute('data-state', 'locked');

    const lock = within(navbar()).getByRole('button', { name: 'Keep the menu open' });
    expect(lock).toHaveAttribute('aria-pressed', 'true');
    await userEvent.click(lock);
    expect(lock).toHaveAttribute('aria-pressed', 'false');
    expect(window.localStorage.getItem('moat.navLocked')).toBe('0');

    vi.useFakeTimers();
    fireEvent.mouseLeave(navbar());
    act(() => vi.advanceTimersByTime(MENU_FOLD_DELAY_MS));
    expect(navbar()).toHaveAttribute('data-state', 'mini');
    expect(navbar()).toHaveStyle({ width: `${MENU_WIDTH_MINI_PX}px` });
    expect(screen.queryByTestId('nav-overlay')).not.toBeInTheDocument();
    // Mini keeps every entry reachable by name.
    expect(within(mainNav()).getByRole('link', { name: 'Events' })).toBeInTheDocument();

    fireEvent.mouseEnter(navbar());
    expect(navbar()).toHaveAttribute('data-state', 'unfolded');
    expect(navbar()).toHaveStyle({ width: `${MENU_WIDTH_LOCKED_PX}px` });
    expect(screen.getByTestId('nav-overlay')).toBeInTheDocument();

    fireEvent.mouseLeave(navbar());
    act(() => vi.advanceTimersByTime(MENU_FOLD_DELAY_MS - 1));
    expect(navbar()).toHaveAttribute('data-state', 'unfolded');
    act(() => vi.advanceTimersByTime(1));
    expect(navbar()).toHaveAttribute('data-state', 'mini');
    expect(screen.queryByTestId('nav-overlay')).not.toBeInTheDocument();
  });

  it('unfolds a mini menu when the keyboard focus enters it', async () => {
    window.localStorage.setItem('moat.navLocked', '0');
    stubShell();
    renderRoute('/dashboard');
    const events = within(await loadedNav()).getByRole('link', { name: 'Events' });
    expect(navbar()).toHaveAttribute('data-state', 'mini');
    act(() => events.focus());
    expect(navbar()).toHaveAttribute('data-state', 'unfolded');
  });

  it('shows the System Version entry with showVersionInfoLinkCP, which opens the version dialog', async () => {
    stubShell({
      features: { showVersionInfoLinkCP: true },
      handlers: {
        'GET /api/v1/version': () =>
          jsonResponse(200, { version_info: { ui2_version: 'w1', flask_version: 's1' } }),
        'GET /api/v1/environment_components': () => jsonResponse(200, { services: [], engines: [] }),
      },
    });
    renderRoute('/system-settings/system-logs');
    const nav = await loadedNav();
    // On a System Settings page, its section is open.
    await userEvent.click(await within(nav).findByRole('button', { name: 'System Version' }));
    expect(await screen.findByRole('dialog', { name: 'Version info' })).toBeInTheDocument();
  });

  it('hides the top bar and the menu with ?hide_menu', async () => {
    stubShell();
    renderRoute('/dashboard?hide_menu=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main navigation' })).not.toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
  });
});

describe('signed-in shell: top bar', () => {
  it('offers the quick search only on exactly /dashboard', async () => {
    stubShell();
    const app = renderRoute('/dashboard');
    expect(await screen.findByRole('combobox', { name: 'Quick search' })).toBeInTheDocument();
    await userEvent.click(within(await loadedNav()).getByRole('link', { name: 'Events' }));
    await waitFor(() => expect(app.location()).toBe('/security-events'));
    await screen.findByRole('heading', { level: 1, name: 'Events' });
    expect(screen.queryByRole('combobox', { name: 'Quick search' })).not.toBeInTheDocument();
  });

  it('hides the quick search when hideSearchInputFF is on', async () => {
    stubShell({ features: { hideSearchInputFF: true } });
    renderRoute('/dashboard');
    await loadedNav();
    expect(screen.queryByRole('combobox', { name: 'Quick search' })).not.toBeInTheDocument();
  });

  it('shows the email with the admin label only for admins', async () => {
    stubShell({ user: { role: 'user' } });
    renderRoute('/dashboard');
    expect(await screen.findByRole('button', { name: 'User menu of ada@example.com' })).toBeInTheDocument();
    expect(screen.getAllByText('ada@example.com').length).toBeGreaterThan(0);
    expect(screen.queryByText('admin')).not.toBeInTheDocument();
  });

  it('Version info: a 620 px dialog with the web and server versions and the components, not closed by the backdrop', async () => {
    stubShell({
      handlers: {
        'GET /api/v1/version': () =>
          jsonResponse(200, { version_info: { ui2_version: 'web-abc123', flask_version: '2.4.0' } }),
        'GET /api/v1/environment_components': () =>
          jsonResponse(200, {
            services: [{ name: 'smtp-gateway', version: '1.2.0', status: 'on' }],
            engines: [{ name: 'sandbox', version: '0.9.1', status: 'off', detail: 'not configured' }],
          }),
      },
    });
    renderRoute('/dashboard');
    await openUserMenu();
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Version info' }));
    const dialog = await screen.findByRole('dialog', { name: 'Version info' });
    expect(await within(dialog).findByText('web-abc123')).toBeInTheDocument();
    expect(within(dialog).getByText('2.4.0')).toBeInTheDocument();
    const services = within(dialog).getByRole('table', { name: 'Services' });
    expect(within(services).getByRole('rowheader', { name: 'smtp-gateway' })).toBeInTheDocument();
    expect(within(services).getByText('On')).toBeInTheDocument();
    const engines = within(dialog).getByRole('table', { name: 'Engines' });
    expect(within(engines).getByText('Off (not configured)')).toBeInTheDocument();

    const overlay = document.querySelector('.mantine-Modal-overlay');
    expect(overlay).not.toBeNull();
    await userEvent.click(overlay as Element);
    expect(screen.getByRole('dialog', { name: 'Version info' })).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Version info' })).not.toBeInTheDocument(),
    );
  });

  it('offers MFA setup only with enableMFA on an MSP portal when the admin does not require MFA', async () => {
    const mfa = (mfaRequired: boolean) => () =>
      jsonResponse(200, { mfaWasSet: false, isMfaEnabled: false, isVerified: false, mfaRequired });
    const cases = [
      { features: { enableMFA: true }, deployment: { is_msp: true }, required: false, offered: true },
      { features: { enableMFA: true }, deployment: { is_msp: true }, required: true, offered: false },
      { features: { enableMFA: true }, deployment: { is_msp: false }, required: false, offered: false },
      { features: { enableMFA: false }, deployment: { is_msp: true }, required: false, offered: false },
    ];
    for (const { features, deployment, required, offered } of cases) {
      stubShell({ features, deployment, handlers: { 'POST /api/v1/mfa/setup': mfa(required) } });
      const app = renderRoute('/dashboard');
      await loadedNav();
      await waitFor(() => expect(app.queryClient.isFetching()).toBe(0));
      await openUserMenu();
      await screen.findByRole('menuitem', { name: 'Logout' });
      expect(Boolean(screen.queryByRole('menuitem', { name: 'MFA setup' }))).toBe(offered);
      app.unmount();
    }
  });

  it('Contact support writes to the support address, in the user menu and the help menu', async () => {
    stubShell({ deployment: { support_email: 'help@acme.example' } });
    renderRoute('/dashboard');
    await openUserMenu();
    expect(await screen.findByRole('menuitem', { name: 'Contact support' })).toHaveAttribute(
      'href',
      'mailto:help@acme.example',
    );
    await userEvent.keyboard('{Escape}');
    await userEvent.click(screen.getByRole('button', { name: 'Help' }));
    expect(await screen.findByRole('menuitem', { name: 'Contact support' })).toHaveAttribute(
      'href',
      'mailto:help@acme.example',
    );
  });

  it('without a support address, Contact support says none is set instead of offering a broken one', async () => {
    stubShell({ deployment: { support_email: null } });
    renderRoute('/dashboard');
    await openUserMenu();
    const item = await screen.findByRole('menuitem', { name: 'Contact support: no support address is set' });
    expect(item).not.toHaveAttribute('href');
    expect(item).toBeDisabled();
    await userEvent.keyboard('{Escape}');
    await userEvent.click(screen.getByRole('button', { name: 'Help' }));
    expect(
      await screen.findByRole('menuitem', { name: 'Contact support: no support address is set' }),
    ).toBeDisabled();
    expect(document.querySelector('a[href^="mailto:"]')).toBeNull();
  });

  it('help menu: status and product updates inside the console, documentation in a new tab', async () => {
    stubShell();
    const app = renderRoute('/dashboard');
    await userEvent.click(await screen.findByRole('button', { name: 'Help' }));
    const docs = await screen.findByRole('menuitem', { name: 'Documentation (opens in a new tab)' });
    expect(docs).toHaveAttribute('href', '/help');
    expect(docs).toHaveAttribute('target', '_blank');
    expect(screen.getByRole('menuitem', { name: 'Product updates' })).toHaveAttribute(
      'href',
      '/system-settings/product-updates',
    );
    await userEvent.click(screen.getByRole('menuitem', { name: 'Status' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Service Status' })).toBeInTheDocument();
    expect(app.location()).toBe('/system-settings/service-status');
  });

  it('saves the chosen theme to the user preferences and keeps the answer as the current user', async () => {
    const api = stubShell({
      handlers: {
        'PUT /api/v1/current_user/preferences': (call) =>
          jsonResponse(200, buildCurrentUser({ user_preferences: call.body as Record<string, unknown> })),
      },
    });
    const app = renderRoute('/dashboard');
    await userEvent.click(await screen.findByRole('button', { name: 'Theme' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Dark theme' }));
    await waitFor(() =>
      expect(document.documentElement).toHaveAttribute('data-mantine-color-scheme', 'dark'),
    );
    await waitFor(() =>
      expect(app.queryClient.getQueryData(queryKeys.currentUser())).toMatchObject({
        user_preferences: { applicationMode: 'dark' },
      }),
    );
    expect(api.calls.filter((call) => call.method === 'PUT').map((call) => call.body)).toEqual([
      { applicationMode: 'dark' },
    ]);
  });

  it("applies the user's saved theme on load", async () => {
    stubShell({ user: { user_preferences: { applicationMode: 'dark' } } });
    renderRoute('/dashboard');
    await screen.findByRole('heading', { level: 1, name: 'Overview' });
    await waitFor(() =>
      expect(document.documentElement).toHaveAttribute('data-mantine-color-scheme', 'dark'),
    );
  });

  it('gives the firewall-vendor brand a floating menu: opens 10 ms after the click, closes after 550 ms', async () => {
    stubShell({ deployment: { brand: 'sonicwall' } });
    renderRoute('/dashboard');
    const toggle = await screen.findByRole('button', { name: 'Open the portal menu' });
    vi.useFakeTimers();
    fireEvent.click(toggle);
    const panel = screen.getByRole('region', { name: 'Portal menu' });
    expect(panel).not.toHaveAttribute('data-open');
    expect(within(panel).getByTitle('Portal menu').tagName).toBe('IFRAME');
    act(() => vi.advanceTimersByTime(FLOATING_MENU_OPEN_DELAY_MS));
    expect(panel).toHaveAttribute('data-open');
    expect(panel).toHaveStyle({ '--floating-menu-height': '690px' });

    fireEvent.click(screen.getByRole('button', { name: 'Close the portal menu' }));
    expect(panel).not.toHaveAttribute('data-open');
    act(() => vi.advanceTimersByTime(FLOATING_MENU_CLOSE_MS - 1));
    expect(screen.getByRole('region', { name: 'Portal menu' })).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByRole('region', { name: 'Portal menu' })).not.toBeInTheDocument();
  });

  it('has no floating menu for other brands', async () => {
    stubShell({ deployment: { brand: 'moat' } });
    renderRoute('/dashboard');
    await screen.findByRole('button', { name: 'Help' });
    expect(screen.queryByRole('button', { name: 'Open the portal menu' })).not.toBeInTheDocument();
  });
});
