import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  renderRoute,
  stepResponse,
  stubApi,
} from '../test/render-route';

/** The token endpoint: XYZ opens a session, anything else is refused. */
function tokenApi(user = buildCurrentUser()) {
  let signedIn = false;
  return stubApi({
    'POST /api/v1/auth/token': (call) => {
      if ((call.body as { accessToken: string }).accessToken !== 'XYZ') {
        return errorResponse(401, 'invalid_token', 'This sign-in link is invalid.');
      }
      signedIn = true;
      return jsonResponse(200, stepResponse());
    },
    'GET /api/v1/current_user': () =>
      signedIn ? jsonResponse(200, user) : errorResponse(403, 'forbidden', 'not authenticated'),
  });
}

const tokenPosts = (api: ReturnType<typeof stubApi>) =>
  api.calls.filter((call) => call.url.pathname === '/api/v1/auth/token');

describe('start-up token (SPEC §4 "Start-up")', () => {
  it('signs in with the token and goes to the requested route without it, replacing the history entry', async () => {
    const api = tokenApi();
    const app = renderRoute('/security-events?accessToken=XYZ&range=week');
    expect(await screen.findByRole('heading', { level: 1, name: 'Events' })).toBeInTheDocument();
    expect(app.location()).toBe('/security-events?range=week');
    expect(app.router.state.historyAction).toBe('REPLACE');
    expect(tokenPosts(api).map((call) => call.body)).toEqual([{ accessToken: 'XYZ' }]);
    const firstUserCall = api.calls.findIndex((call) => call.url.pathname === '/api/v1/current_user');
    expect(firstUserCall).toBeGreaterThan(api.calls.indexOf(tokenPosts(api)[0]!));
  });

  it.each(['firstTimeToken', 'authtoken'])('takes the token from %s too', async (param) => {
    const api = tokenApi();
    const app = renderRoute(`/policy?${param}=XYZ`);
    await waitFor(() => expect(app.location()).toBe('/policy'));
    expect(tokenPosts(api)).toHaveLength(1);
  });

  it('goes to the overview from the root', async () => {
    tokenApi();
    const app = renderRoute('/?accessToken=XYZ');
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    expect(app.location()).toBe('/dashboard');
  });

  it('goes to onboarding when the user must onboard', async () => {
    tokenApi(buildCurrentUser({ on_boarding_required: true }));
    const app = renderRoute('/dashboard?accessToken=XYZ');
    await waitFor(() => expect(app.location()).toBe('/onboarding'));
  });

  it('goes to error/401 for a refused token, without the token in the URL', async () => {
    const api = tokenApi();
    const app = renderRoute('/dashboard?accessToken=used-one');
    expect(
      await screen.findByRole('heading', { name: 'This link is invalid or has expired' }),
    ).toBeInTheDocument();
    expect(app.location()).toBe('/error/401');
    expect(app.router.state.historyAction).toBe('REPLACE');
    expect(tokenPosts(api)).toHaveLength(1);
  });
});
