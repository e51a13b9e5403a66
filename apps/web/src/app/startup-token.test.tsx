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

/**
 * The portal sign-in calls of SPEC §7: server_login takes the msp token XYZ as a form and answers
 * text; auto_login takes the checkpoint token XYZ, or the firewall token XYZ for serial SN1.
 */
function tokenApi(user = buildCurrentUser()) {
  let signedIn = false;
  const refused = () => errorResponse(401, 'invalid_token', 'This sign-in link is invalid.');
  return stubApi({
    'POST /api/v1/current_user/server_login': (call) => {
      if ((call.body as { token: string }).token !== 'XYZ') return refused();
      signedIn = true;
      return new Response('success', {
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    },
    'POST /api/v1/current_user/auto_login': (call) => {
      const body = call.body as { session_id: string; serial_number?: string };
      if (body.session_id !== 'XYZ' || (body.serial_number ?? 'SN1') !== 'SN1') return refused();
      signedIn = true;
      return jsonResponse(200, stepResponse());
    },
    'GET /api/v1/current_user': () =>
      signedIn ? jsonResponse(200, user) : errorResponse(403, 'forbidden', 'not authenticated'),
  });
}

const tokenPosts = (api: ReturnType<typeof stubApi>) =>
  api.calls.filter((call) => call.url.pathname.startsWith('/api/v1/current_user/'));

describe('start-up token (SPEC §4 "Start-up")', () => {
  it('signs in with the msp token as a form and goes to the requested route without it, replacing the history entry', async () => {
    const api = tokenApi();
    const app = renderRoute('/security-events?accessToken=XYZ&range=week');
    expect(await screen.findByRole('heading', { level: 1, name: 'Events' })).toBeInTheDocument();
    expect(app.location()).toBe('/security-events?range=week');
    expect(app.router.state.historyAction).toBe('REPLACE');
    expect(tokenPosts(api).map((call) => [call.url.pathname, call.body])).toEqual([
      ['/api/v1/current_user/server_login', { token: 'XYZ' }],
    ]);
    const firstUserCall = api.calls.findIndex((call) => call.url.pathname === '/api/v1/current_user');
    expect(firstUserCall).toBeGreaterThan(api.calls.indexOf(tokenPosts(api)[0]!));
  });

  it.each([
    ['firstTimeToken=XYZ', { session_id: 'XYZ' }],
    ['authtoken=XYZ&domain=SN1', { session_id: 'XYZ', serial_number: 'SN1' }],
    [`spogSrc=${btoa('authtoken=XYZ&domain=SN1')}`, { session_id: 'XYZ', serial_number: 'SN1' }],
  ])('signs in with %s through auto_login', async (query, body) => {
    const api = tokenApi();
    const app = renderRoute(`/policy?${query}&tab=rules`);
    await waitFor(() => expect(app.location()).toBe('/policy?tab=rules'));
    expect(tokenPosts(api).map((call) => [call.url.pathname, call.body])).toEqual([
      ['/api/v1/current_user/auto_login', body],
    ]);
  });

  it.each(['authtoken=XYZ', 'spogSrc=%25%25not-base64', `spogSrc=${btoa('domain=SN1')}`])(
    'goes to error/401 for an incomplete firewall sign-in (%s) without calling the server',
    async (query) => {
      const api = tokenApi();
      const app = renderRoute(`/dashboard?${query}`);
      await waitFor(() => expect(app.location()).toBe('/error/401'));
      expect(tokenPosts(api)).toHaveLength(0);
    },
  );

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
