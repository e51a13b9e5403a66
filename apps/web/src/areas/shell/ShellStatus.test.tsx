import type { DeploymentConfig, LearningMode } from '@moat/contracts/console';
import {
  BANNER_DISMISS_MS,
  BANNER_SLIDE_IN_DELAY_MS,
  WELCOME_BANNER_DELAY_MS,
} from '@moat/contracts/constants';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags } from '@moat/contracts/features';
import { QueryClient } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '../../app/AppProviders';
import { apiGet } from '../../lib/http';
import { buildDeployment, consoleHandlers } from '../../test/console-status-fixtures';
import { buildCurrentUser, jsonResponse, stubApi } from '../../test/render-route';
import { NavbarLabel, ShellStatus } from './ShellStatus';

const realMatchMedia = window.matchMedia;

/** Pretends the window is `width` px wide for min-width media queries. */
function windowWidth(width: number) {
  window.matchMedia = ((query: string) => {
    const min = /min-width:\s*(\d+)px/.exec(query);
    return {
      ...realMatchMedia(query),
      matches: min ? width >= Number(min[1]) : false,
    };
  }) as typeof window.matchMedia;
}

afterEach(() => {
  window.matchMedia = realMatchMedia;
  window.sessionStorage.clear();
  vi.useRealTimers();
});

const aboutToExpire = buildDeployment({
  paidExpirationInDays: 12,
  licence: { isExpired: false, isAboutToExpire: true, licenseExpirationDate: '2026-05-01' },
});

const learning: LearningMode = {
  progress_number: 40,
  modal_popup_title: 'Learning your traffic',
  modal_popup_text: 'Moat is learning how your organisation mails.',
  modal_popup_href_text: 'How learning works',
  modal_popup_href: 'https://docs.moat.example/learning',
};

function renderStatus({
  user = buildCurrentUser(),
  features = {},
  deployment = buildDeployment(),
  handlers = {},
}: {
  user?: CurrentUser;
  features?: Partial<FeatureFlags>;
  deployment?: DeploymentConfig;
  handlers?: Parameters<typeof stubApi>[0];
} = {}) {
  const api = stubApi({ ...consoleHandlers(features, deployment), ...handlers });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <AppProviders queryClient={queryClient}>
      <NavbarLabel user={user} />
      <ShellStatus user={user} />
    </AppProviders>,
  );
  return { api, view };
}

describe('licence banner (SPEC §4)', () => {
  it('offers Contact us; a sent request thanks the user and hides the banner for the session', async () => {
    const user = userEvent.setup();
    const { api } = renderStatus({
      deployment: aboutToExpire,
      handlers: { 'POST /api/v1/licence_contact': () => jsonResponse(200, { success: true, info: '' }) },
    });
    const banner = await screen.findByRole('region', { name: 'Licence notice' });
    expect(
      within(banner).getByText('Your licence expires in 12 days. Contact us to renew it.'),
    ).toBeVisible();
    await user.click(within(banner).getByRole('button', { name: 'Contact us' }));

    const dialog = await screen.findByRole('dialog', { name: 'Thank you for reaching out' });
    expect(within(dialog).getByText('A representative will contact you shortly.')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Licence notice' })).not.toBeInTheDocument();
    expect(api.calls.filter((call) => call.url.pathname === '/api/v1/licence_contact')).toHaveLength(1);
    expect(window.sessionStorage.getItem('moat.licenceBannerDismissed')).toBe('1');
  });

  it('says the request failed and to contact support, and keeps the banner', async () => {
    const user = userEvent.setup();
    renderStatus({
      deployment: aboutToExpire,
      handlers: { 'POST /api/v1/licence_contact': () => jsonResponse(200, { success: false, info: 'no' }) },
    });
    await user.click(await screen.findByRole('button', { name: 'Contact us' }));
    const dialog = await screen.findByRole('dialog', { name: 'Request submission failed' });
    expect(within(dialog).getByText(/contact support/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'OK' }));
    expect(screen.getByRole('region', { name: 'Licence notice' })).toBeInTheDocument();
  });

  it('is dismissed for the rest of the browser session', async () => {
    const user = userEvent.setup();
    const first = renderStatus({ deployment: aboutToExpire });
    await user.click(await screen.findByRole('button', { name: 'Dismiss the licence notice' }));
    expect(screen.queryByRole('region', { name: 'Licence notice' })).not.toBeInTheDocument();
    first.view.unmount();

    renderStatus({ deployment: aboutToExpire });
    await screen.findByText('Expires in 12 days');
    expect(screen.queryByRole('region', { name: 'Licence notice' })).not.toBeInTheDocument();
  });

  it('shows hidden users of a locked account the internal-access message, without a button', async () => {
    renderStatus({
      user: buildCurrentUser({ hidden: true }),
      deployment: { ...aboutToExpire, portalLicenseState: 'locked' },
    });
    expect(await screen.findByText(/you have internal access/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Contact us' })).not.toBeInTheDocument();
  });
});

describe('navbar label (SPEC §4)', () => {
  const poc = (days: number) =>
    buildDeployment({ deploymentMode: 'poc', pocExpiresInDays: days, paidExpirationInDays: null });

  it.each([
    ['a poc with 1 day left', poc(1), '1 day left', 'label-item'],
    ['a poc with 14 days left', poc(14), '14 days left', 'label-item'],
    ['a poc past its end', poc(-2), 'Expired', 'license-expired'],
    ['a managed service', buildDeployment({ isManagedService: true }), 'Premium', 'label-item'],
    ['a demo', buildDeployment({ deploymentMode: 'demo' }), 'Demo', 'label-item'],
    ['a paid licence about to expire', aboutToExpire, 'Expires in 12 days', 'license-about-to-expire'],
  ])('labels %s "%s"', async (_case, deployment, text, className) => {
    renderStatus({ deployment });
    const label = await screen.findByText(text);
    expect(label.closest('.label-item')).toHaveClass(className);
  });
});

describe('request modes (SPEC §4 "No-RDS mode")', () => {
  it('switches the http layer to No-RDS once the flags say so, and back when the shell goes', async () => {
    const { api, view } = renderStatus({ features: { enableUINoRDS: true } });
    const systemLogCalls = () =>
      api.calls.filter((call) => call.url.pathname === '/api/v1/system_log').length;
    const answer = { info: 'An error occurred. Please try again later.', rdsError: true };
    await waitFor(async () => expect(await apiGet('/api/v1/system_log').catch(() => null)).toEqual(answer));
    const before = systemLogCalls();
    await expect(apiGet('/api/v1/system_log')).resolves.toEqual(answer);
    expect(systemLogCalls()).toBe(before);
    view.unmount();
    await apiGet('/api/v1/system_log').catch(() => null);
    expect(systemLogCalls()).toBe(before + 1);
  });
});

describe('welcome and learning banners (SPEC §2.4, §4, §9)', () => {
  async function advance(ms: number) {
    await act(() => vi.advanceTimersByTimeAsync(ms));
  }

  it('appear after 4 s, slide in 2 s later and leave 1 s after being closed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    windowWidth(1440);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderStatus({
      features: { enableLearningMode: true },
      handlers: { 'GET /api/v1/learning_mode': () => jsonResponse(200, learning) },
    });
    await screen.findByRole('complementary', { name: 'Announcements' });
    await advance(WELCOME_BANNER_DELAY_MS - 100);
    expect(screen.queryByRole('region', { name: 'Welcome' })).not.toBeInTheDocument();

    await advance(100);
    const welcome = screen.getByRole('region', { name: 'Welcome' });
    expect(welcome).toHaveAttribute('data-phase', 'entering');
    expect(screen.getByRole('region', { name: 'Learning mode' })).toHaveAttribute('data-phase', 'entering');
    await advance(BANNER_SLIDE_IN_DELAY_MS);
    expect(welcome).toHaveAttribute('data-phase', 'shown');

    const learningBanner = screen.getByRole('region', { name: 'Learning mode' });
    expect(within(learningBanner).getByText('Learning mode is 40% complete.')).toBeInTheDocument();
    await user.click(within(learningBanner).getByRole('button', { name: 'Details' }));
    const dialog = await screen.findByRole('dialog', { name: 'Learning your traffic' });
    expect(within(dialog).getByText(learning.modal_popup_text)).toBeInTheDocument();
    expect(within(dialog).getByRole('link', { name: 'How learning works' })).toHaveAttribute(
      'href',
      learning.modal_popup_href,
    );
    await user.keyboard('{Escape}');

    await user.click(within(welcome).getByRole('button', { name: 'Close' }));
    expect(welcome).toHaveAttribute('data-phase', 'leaving');
    await advance(BANNER_DISMISS_MS);
    expect(screen.queryByRole('region', { name: 'Welcome' })).not.toBeInTheDocument();
  });

  it("welcome: read more, contact support by mail, and don't show again for this user", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    windowWidth(1600);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const first = renderStatus();
    await screen.findByRole('complementary', { name: 'Announcements' });
    await advance(WELCOME_BANNER_DELAY_MS + BANNER_SLIDE_IN_DELAY_MS);
    const welcome = screen.getByRole('region', { name: 'Welcome' });
    expect(within(welcome).getByRole('link', { name: 'Contact support' })).toHaveAttribute(
      'href',
      'mailto:support@moat.example',
    );
    const readMore = within(welcome).getByRole('button', { name: 'Read more' });
    expect(readMore).toHaveAttribute('aria-expanded', 'false');
    await user.click(readMore);
    expect(within(welcome).getByRole('button', { name: 'Read less' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );

    await user.click(within(welcome).getByRole('button', { name: "Don't show again" }));
    await advance(BANNER_DISMISS_MS);
    expect(screen.queryByRole('region', { name: 'Welcome' })).not.toBeInTheDocument();
    first.view.unmount();

    renderStatus();
    await screen.findByRole('complementary', { name: 'Announcements' });
    await advance(WELCOME_BANNER_DELAY_MS + BANNER_SLIDE_IN_DELAY_MS);
    expect(screen.queryByRole('region', { name: 'Welcome' })).not.toBeInTheDocument();
  });

  it('shows no learning banner when learning is complete or the flag is off', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    windowWidth(1600);
    renderStatus({
      features: { enableLearningMode: true },
      handlers: {
        'GET /api/v1/learning_mode': () => jsonResponse(200, { ...learning, progress_number: 100 }),
      },
    });
    await screen.findByRole('complementary', { name: 'Announcements' });
    await advance(WELCOME_BANNER_DELAY_MS + BANNER_SLIDE_IN_DELAY_MS);
    expect(screen.getByRole('region', { name: 'Welcome' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Learning mode' })).not.toBeInTheDocument();
  });

  it('hides both banners below 1400 px', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    windowWidth(1399);
    const { api } = renderStatus({
      features: { enableLearningMode: true },
      handlers: { 'GET /api/v1/learning_mode': () => jsonResponse(200, learning) },
    });
    // The shell state has what it decides on: the tenant's flags and deployment.
    await waitFor(() =>
      expect(api.calls.map((c) => c.url.pathname)).toEqual(
        expect.arrayContaining(['/api/v1/generic/ui_features', '/api/v1/deployment']),
      ),
    );
    await advance(WELCOME_BANNER_DELAY_MS + BANNER_SLIDE_IN_DELAY_MS);
    expect(screen.queryByRole('complementary', { name: 'Announcements' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Welcome' })).not.toBeInTheDocument();
  });
});
