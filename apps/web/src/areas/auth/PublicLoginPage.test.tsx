import { screen, waitFor } from '@testing-library/dom';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { takeSignInResume } from '../../features/auth/sign-in-handover';
import { renderPublicLoginPage } from '../../test/render-public-page';
import { errorResponse, jsonResponse, PUBLIC_FEATURES, stepResponse, stubApi } from '../../test/render-route';

const reloads = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../lib/return-url', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../lib/return-url')>()),
  reloadDocument: () => {
    reloads.count++;
  },
}));

beforeEach(() => {
  reloads.count = 0;
  window.history.replaceState(null, '', '/#/auth/login');
});
afterEach(() => {
  window.sessionStorage.clear();
});

async function openLogin() {
  renderPublicLoginPage();
  await screen.findByRole('heading', { name: 'Sign in' });
}

async function signIn(email = 'ada@example.com', password = 'secret') {
  await userEvent.type(screen.getByLabelText(/Email/), email);
  await userEvent.type(screen.getByLabelText(/Password/), password);
  await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('the login page of the public bundle', () => {
  it('shows the invalid_email and invalid_password messages and sends nothing when the form is empty', async () => {
    const api = stubApi();
    await openLogin();
    expect(document.title).toBe('Sign in - Moat');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByText('Enter a valid email address.')).toBeInTheDocument();
    expect(screen.getByText('Enter your password.')).toBeInTheDocument();
    expect(screen.getByLabelText(/Email/)).toHaveFocus();
    expect(screen.getByLabelText(/Email/)).toHaveAttribute('aria-invalid', 'true');
    expect(api.calls.filter((call) => call.method === 'POST')).toEqual([]);
    // Typing clears the field's message.
    await userEvent.type(screen.getByLabelText(/Email/), 'a');
    expect(screen.queryByText('Enter a valid email address.')).not.toBeInTheDocument();
  });

  it('answers a wrong password as a wrong email, with the reference of the call', async () => {
    const api = stubApi({
      'POST /api/v1/auth/login': () => errorResponse(401, 'invalid_credentials', 'Invalid email or password'),
    });
    await openLogin();
    await signIn(' ada@example.com ');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Invalid email or password.');
    expect(alert).toHaveTextContent('Reference: req-test');
    const posted = api.calls.find((call) => call.method === 'POST');
    expect(posted?.body).toMatchObject({ email: 'ada@example.com', current_password: 'secret' });
    // The captcha's token goes with it (ALTCHA, solved in the background).
    expect(posted?.body).toMatchObject({ recaptcha_token: expect.stringMatching(/^captcha-token-/) });
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    expect(takeSignInResume()).toBeNull();
  });

  it('starts the captcha when the visitor turns to the form, not with the page', async () => {
    const api = stubApi();
    await openLogin();
    const captchaCalls = () => api.calls.filter((call) => call.url.pathname.endsWith('recaptcha_config'));
    expect(captchaCalls()).toHaveLength(0);
    await userEvent.click(screen.getByLabelText(/Email/));
    await waitFor(() => expect(captchaCalls()).toHaveLength(1));
  });

  it('shows the throttling message of a 429', async () => {
    stubApi({
      'POST /api/v1/auth/login': () => errorResponse(429, 'rate_limited', 'Too many requests'),
    });
    await openLogin();
    await signIn();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Too many attempts. Wait a moment and try again.',
    );
  });

  it('puts the server’s field errors on their fields', async () => {
    stubApi({
      'POST /api/v1/auth/login': () =>
        errorResponse(400, 'validation_error', 'Invalid request', [
          { field: 'body.current_password', message: 'too long' },
        ]),
    });
    await openLogin();
    await signIn();
    expect(await screen.findByText('Enter your password.')).toBeInTheDocument();
    expect(screen.getByLabelText(/Password/)).toHaveFocus();
  });

  it('hands the server’s answer to the console: the next step and the email wait in session storage', async () => {
    stubApi({
      'POST /api/v1/auth/login': () =>
        jsonResponse(200, stepResponse({ next: 'mfa_code', email: 'ada@example.com' })),
    });
    await openLogin();
    await signIn();
    await waitFor(() => expect(reloads.count).toBe(1));
    expect(screen.getByRole('button', { name: 'Sign in' })).toHaveAttribute('aria-busy', 'true');
    expect(takeSignInResume()).toEqual({
      next: 'mfa_code',
      email: 'ada@example.com',
      login_reason_required: false,
    });
  });

  it('a one-time password: the answer hands the new-password step to the console', async () => {
    stubApi({
      'POST /api/v1/auth/login': () =>
        jsonResponse(200, stepResponse({ next: 'password_change', email: 'ada@example.com' })),
    });
    await openLogin();
    await signIn();
    await waitFor(() => expect(reloads.count).toBe(1));
    expect(takeSignInResume()).toEqual({
      next: 'password_change',
      email: 'ada@example.com',
      login_reason_required: false,
    });
  });

  it('opened again with a session that still owes its new password: the console goes on with that step', async () => {
    stubApi({
      'GET /api/v1/auth/session': () =>
        jsonResponse(200, {
          authenticated: true,
          login_reason_required: false,
          password_change_required: true,
        }),
    });
    renderPublicLoginPage();
    await waitFor(() => expect(reloads.count).toBe(1));
    expect(takeSignInResume()).toMatchObject({ next: 'password_change' });
    expect(window.location.hash).toBe('#/auth/login');
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('without session storage, hands over to the console’s own login page with the same returnUrl', async () => {
    window.history.replaceState(null, '', '/#/auth/login?returnUrl=%2Fsettings%3Ftab%3Da');
    stubApi({ 'POST /api/v1/auth/login': () => jsonResponse(200, stepResponse({ next: 'mfa_code' })) });
    const setItem = vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    try {
      await openLogin();
      await signIn();
      await waitFor(() =>
        expect(window.location.hash).toBe('#/auth/login?returnUrl=%2Fsettings%3Ftab%3Da&signIn=console'),
      );
      expect(reloads.count).toBe(0);
    } finally {
      setItem.mockRestore();
    }
  });

  it('sends an expired password to its page in the console', async () => {
    stubApi({
      'POST /api/v1/auth/login': () =>
        errorResponse(403, 'password_expired', 'Expiration error, password has expired'),
    });
    await openLogin();
    await signIn('ada@example.com');
    await waitFor(() => expect(window.location.hash).toBe('#/auth/password-expired/ada%40example.com'));
  });

  it('explains a refused support sign-in instead of an error', async () => {
    stubApi({
      'POST /api/v1/auth/login': () =>
        errorResponse(403, 'tenant_approval_required', 'Support access is off'),
    });
    await openLogin();
    await signIn();
    expect(await screen.findByText('Tenant approval needed')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('sends a browser with a session to the overview', async () => {
    stubApi({
      'GET /api/v1/auth/session': () =>
        jsonResponse(200, {
          authenticated: true,
          login_reason_required: false,
          password_change_required: false,
        }),
    });
    renderPublicLoginPage();
    await waitFor(() => expect(window.location.hash).toBe('#/dashboard'));
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('offers SAML when the public settings say so, and links to the forgotten-password page', async () => {
    stubApi({
      'GET /api/v1/generic/ui_features_public': () =>
        jsonResponse(200, { ...PUBLIC_FEATURES, samlAuth: true }),
    });
    await openLogin();
    expect(screen.getByRole('link', { name: 'Sign in with SAML' })).toHaveAttribute(
      'href',
      '#/auth/saml/login',
    );
    expect(screen.getByRole('link', { name: 'Forgot your password?' })).toHaveAttribute(
      'href',
      '#/auth/forgot-password',
    );
  });
});
