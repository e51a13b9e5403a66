import type { LoginStepResponse } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { PublicFeatures } from '@moat/contracts/features';
import { QueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';
import { AppProviders } from '../app/AppProviders';
import { createRoutes } from '../app/router';

export const PUBLIC_FEATURES: PublicFeatures = {
  checkpointTheme: false,
  sonicwallTheme: false,
  samlAuth: false,
  office365Auth: false,
  googleAuth: false,
  clearSessionOnAppStart: false,
  troubleshooting: false,
};

/** A signed-in user as GET /api/v1/current_user answers it. */
export function buildCurrentUser(overrides: Partial<CurrentUser> = {}): CurrentUser {
  return {
    id: 'u1',
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    role: 'admin',
    hidden: false,
    mfa_secret_set: false,
    on_boarding_required: false,
    automation_customer: false,
    view_private_data: false,
    view_policy: false,
    view_edit_policy: false,
    locked_status: { should_lock: false },
    user_preferences: {},
    ...overrides,
  };
}

/** A sign-in step answer (POST login, mfa/verify, mail_verification/verify, …). */
export function stepResponse(overrides: Partial<LoginStepResponse> = {}): LoginStepResponse {
  return {
    success: true,
    next: 'done',
    email: 'ada@example.com',
    mfaWasSet: false,
    automation_customer: false,
    login_reason_required: false,
    ...overrides,
  };
}

export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function errorResponse(
  status: number,
  code: string,
  message: string,
  details: Array<{ field: string; message: string }> | null = null,
): Response {
  return jsonResponse(status, { statusCode: status, code, message, details, reqId: 'req-test' });
}

export interface RecordedCall {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

type Handler = (call: RecordedCall) => Response | Promise<Response>;

/**
 * Fakes the network boundary: `handlers` are keyed "METHOD /path" (no query). Unknown paths answer
 * the API's 404. Unless a handler says otherwise, GET public features answers `PUBLIC_FEATURES`,
 * the captcha configuration is ALTCHA's default and the session probe says there is no session.
 */
export function stubApi(handlers: Record<string, Handler> = {}) {
  const calls: RecordedCall[] = [];
  const all: Record<string, Handler> = {
    'GET /api/v1/generic/ui_features_public': () => jsonResponse(200, PUBLIC_FEATURES),
    'GET /api/v1/generic/recaptcha_config': () =>
      jsonResponse(200, { provider: 'altcha', key: AUTH_API.captchaChallenge }),
    'GET /api/v1/auth/session': () =>
      jsonResponse(200, {
        authenticated: false,
        login_reason_required: false,
        password_change_required: false,
      }),
    ...handlers,
  };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = init.method ?? 'GET';
    const call: RecordedCall = {
      method,
      url,
      headers: new Headers(init.headers),
      body:
        typeof init.body === 'string'
          ? JSON.parse(init.body)
          : init.body instanceof FormData
            ? Object.fromEntries(init.body)
            : undefined,
    };
    calls.push(call);
    const handler = all[`${method} ${url.pathname}`];
    return handler
      ? handler(call)
      : errorResponse(404, 'not_found', `Route ${method}:${url.pathname} not found`);
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

/** Renders the app's real route table at `path` in a memory router, with fresh caches. */
export function renderRoute(path: string) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const router = createMemoryRouter(createRoutes(queryClient), { initialEntries: [path] });
  const view = render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  const location = () => `${router.state.location.pathname}${router.state.location.search}`;
  return { ...view, router, queryClient, location };
}
