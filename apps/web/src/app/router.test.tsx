import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  PUBLIC_FEATURES,
  renderRoute,
  stubApi,
} from '../test/render-route';

const NOT_AUTHENTICATED = () => errorResponse(403, 'forbidden', 'not authenticated');

describe('router', () => {
  it('sends the empty path to the sign-in page', async () => {
    stubApi();
    const app = renderRoute('/');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(app.location()).toBe('/auth/login');
  });

  it('shows the not-found page for an unknown path', async () => {
    stubApi();
    const app = renderRoute('/nowhere');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(app.location()).toBe('/nowhere');
  });

  it("uses the checkpoint theme's not-found wording", async () => {
    stubApi({
      'GET /api/v1/generic/ui_features_public': () =>
        jsonResponse(200, { ...PUBLIC_FEATURES, checkpointTheme: true }),
    });
    renderRoute('/nowhere/at/all');
    expect(
      await screen.findByRole('heading', { name: 'Sorry, the page could not be found' }),
    ).toBeInTheDocument();
  });

  it.each([
    ['/email-actions/action?type=a&id=b', '#/email-actions/action?type=a&id=b'],
    // Another spelling the router matches, and entry parameters it has acted on (left out).
    ['/email-actions/action/?type=a&id=b', '#/email-actions/action?type=a&id=b'],
    ['/Email-Actions/Restore-Email?type=t&msg=m&debug=1', '#/email-actions/restore-email?type=t&msg=m'],
  ])(
    'hands %s over to the public bundle: the window hash becomes %s, and the page loads afresh',
    async (from, hash) => {
      stubApi();
      renderRoute(from);
      await waitFor(() => expect(window.location.hash).toBe(hash));
    },
  );

  it.each([
    ['/email_action.html?type=a&id=b', '/email-actions/action?type=a&id=b'],
    ['/email_restore.html?type=t&msg=m', '/email-actions/restore-email?type=t&msg=m'],
    ['/restore_original.html?type=t&msg=m', '/email-actions/restore-original?type=t&msg=m'],
    ['/!/password-reset?token=abc', '/auth/reset-password?token=abc'],
    ['/!', '/auth/login'],
  ])('redirects the legacy path %s to %s', async (from, to) => {
    stubApi();
    const app = renderRoute(from);
    await waitFor(() => expect(app.location()).toBe(to));
  });

  it('appends the rest of the path of !/authorize-error to error/403', async () => {
    stubApi();
    const app = renderRoute('/!/authorize-error/foo');
    expect(await screen.findByRole('heading', { name: 'Access denied' })).toBeInTheDocument();
    expect(app.location()).toBe('/error/403/foo');
  });

  it.each([
    ['/error/401', 'This link is invalid or has expired'],
    ['/error/403', 'Access denied'],
    ['/error/410', 'This email no longer exists'],
  ])('shows the error page %s with a way to sign in', async (path, title) => {
    stubApi();
    renderRoute(path);
    expect(await screen.findByRole('heading', { name: title })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toHaveAttribute('href', '/auth/login');
  });

  it('guards onboarding and the wizard like the shell', async () => {
    stubApi({ 'GET /api/v1/current_user': NOT_AUTHENTICATED });
    const app = renderRoute('/onboarding/saas-selection');
    await waitFor(() => expect(app.location()).toBe('/auth/login?returnUrl=%2Fonboarding%2Fsaas-selection'));
  });

  it('sends a shell route without a session to sign-in with its returnUrl', async () => {
    const api = stubApi({ 'GET /api/v1/current_user': NOT_AUTHENTICATED });
    const app = renderRoute('/security-events?range=week');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(app.location()).toBe(`/auth/login?returnUrl=${encodeURIComponent('/security-events?range=week')}`);
    expect(api.calls.some((call) => call.url.pathname === '/api/v1/current_user')).toBe(true);
  });

  it('handles the legacy #!/dashboard through the shell guard', async () => {
    stubApi({ 'GET /api/v1/current_user': NOT_AUTHENTICATED });
    const app = renderRoute('/!/dashboard');
    await waitFor(() => expect(app.location()).toBe('/auth/login?returnUrl=%2Fdashboard'));
  });

  it('shows the page frame and the side navigation to a signed-in user', async () => {
    stubApi({ 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) });
    renderRoute('/analytics/shadow-it');
    expect(await screen.findByRole('heading', { level: 1, name: 'Shadow IT' })).toBeInTheDocument();
    expect(screen.getByText('Shadow IT is not available in this edition')).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(await within(nav).findByRole('link', { name: 'Shadow IT' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(within(nav).getByRole('link', { name: 'Overview' })).toHaveAttribute('href', '/dashboard');
    expect(screen.getAllByText('ada@example.com').length).toBeGreaterThan(0);
  });

  it('redirects policy/edit/{id} to v1/policy/edit/{id}', async () => {
    stubApi({ 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) });
    const app = renderRoute('/policy/edit/42');
    await waitFor(() => expect(app.location()).toBe('/v1/policy/edit/42'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Classic screen' })).toBeInTheDocument();
    const breadcrumb = screen.getByRole('navigation', { name: 'Breadcrumb' });
    expect(within(breadcrumb).getByRole('link', { name: 'Policy' })).toHaveAttribute('href', '/policy');
  });

  it('sends a locked account to access-blocked/customer-locked', async () => {
    stubApi({
      'GET /api/v1/current_user': () =>
        jsonResponse(200, buildCurrentUser({ locked_status: { should_lock: true } })),
    });
    const app = renderRoute('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Your account is locked' })).toBeInTheDocument();
    expect(app.location()).toBe('/access-blocked/customer-locked');
  });

  it('shows the mapped message when the session check fails for another reason', async () => {
    stubApi({ 'GET /api/v1/current_user': () => errorResponse(503, 'service_unavailable', 'db down') });
    renderRoute('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument();
    expect(
      screen.getByText('The service is temporarily unavailable. Please try again later.'),
    ).toBeInTheDocument();
  });
});
