import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { hasSignInResume, saveSignInResume } from '../../features/auth/sign-in-handover';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  PUBLIC_FEATURES,
  renderRoute,
  stepResponse,
  stubApi,
} from '../../test/render-route';

async function openLogin(path = '/auth/login') {
  const app = renderRoute(path);
  await screen.findByRole('heading', { name: 'Sign in' });
  return app;
}

describe('login page', () => {
  it('shows the invalid_email and invalid_password messages and sends nothing when the form is empty', async () => {
    const api = stubApi();
    await openLogin();
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(screen.getByText('Enter a valid email address.')).toBeInTheDocument();
    expect(screen.getByText('Enter your password.')).toBeInTheDocument();
    expect(screen.getByLabelText(/Email/)).toHaveFocus();
    expect(screen.getByLabelText(/Email/)).toHaveAttribute('aria-invalid', 'true');
    expect(api.calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('refuses an address without a proper domain', async () => {
    stubApi();
    await openLogin();
    await userEvent.type(screen.getByLabelText(/Email/), 'ada@example');
    await userEvent.type(screen.getByLabelText(/Password/), 'secret');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByText('Enter a valid email address.')).toBeInTheDocument();
    expect(screen.queryByText('Enter your password.')).not.toBeInTheDocument();
  });

  it('posts the form and shows the mapped message of a failed call (endpoint missing: 404)', async () => {
    const api = stubApi();
    await openLogin();
    await userEvent.type(screen.getByLabelText(/Email/), ' ada@example.com ');
    await userEvent.type(screen.getByLabelText(/Password/), 'secret');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The requested item or service was not found.',
    );
    const post = api.calls.find((call) => call.method === 'POST');
    expect(post?.url.pathname).toBe('/api/v1/auth/login');
    expect(post?.body).toEqual({
      email: 'ada@example.com',
      current_password: 'secret',
      recaptcha_token: expect.stringMatching(/^captcha-token-\d+@\/api\/v1\/auth\/captcha\/challenge$/),
    });
    expect(post?.headers.get('X-Requested-With')).toBe('moat');
  });

  it('says only "invalid email or password" when the credentials are refused', async () => {
    stubApi({
      'POST /api/v1/auth/login': () => errorResponse(401, 'invalid_credentials', 'Invalid email or password'),
    });
    await openLogin();
    await userEvent.type(screen.getByLabelText(/Email/), 'ada@example.com');
    await userEvent.type(screen.getByLabelText(/Password/), 'wrong');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password.');
  });

  it('goes to the password-expired page when the server says the password has expired', async () => {
    stubApi({
      'POST /api/v1/auth/login': () =>
        errorResponse(400, 'bad_request', 'Expiration error, password has expired'),
    });
    const app = await openLogin();
    await userEvent.type(screen.getByLabelText(/Email/), 'ada@example.com');
    await userEvent.type(screen.getByLabelText(/Password/), 'old-password');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'Your password has expired' })).toBeInTheDocument();
    expect(app.location()).toBe('/auth/password-expired/ada%40example.com');
  });

  it('returns to the returnUrl after a successful sign-in', async () => {
    let signedIn = false;
    stubApi({
      'POST /api/v1/auth/login': () => {
        signedIn = true;
        return jsonResponse(200, stepResponse());
      },
      'GET /api/v1/current_user': () =>
        signedIn
          ? jsonResponse(200, buildCurrentUser({ role: 'user' }))
          : errorResponse(403, 'forbidden', 'not authenticated'),
    });
    const app = await openLogin('/auth/login?returnUrl=%2Fanalytics%2Fshadow-it');
    await userEvent.type(screen.getByLabelText(/Email/), 'ada@example.com');
    await userEvent.type(screen.getByLabelText(/Password/), 'secret');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    // The page's title is its navigation entry's (Analytics › Shadow IT).
    expect(await screen.findByRole('heading', { level: 1, name: 'Shadow IT' })).toBeInTheDocument();
    expect(app.location()).toBe('/analytics/shadow-it');
  });

  it('goes on with a sign-in the public login page started: the one-time code for its email', async () => {
    saveSignInResume({ next: 'mfa_code', email: 'ada@example.com', login_reason_required: false });
    // The session is not open yet: the page does not send the browser away.
    stubApi();
    renderRoute('/auth/login');
    expect(await screen.findByRole('heading', { name: 'Enter your verification code' })).toBeInTheDocument();
    expect(screen.getByText(/ada@example.com/)).toBeInTheDocument();
    expect(hasSignInResume()).toBe(false);
  });

  it('goes on with a finished sign-in: the user is loaded and goes to the returnUrl', async () => {
    saveSignInResume({ next: 'done', email: 'ada@example.com', login_reason_required: false });
    stubApi({
      'GET /api/v1/auth/session': () =>
        jsonResponse(200, {
          authenticated: true,
          login_reason_required: false,
          password_change_required: false,
        }),
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
    });
    const app = renderRoute('/auth/login?returnUrl=%2Fanalytics%2Fshadow-it');
    expect(await screen.findByRole('heading', { level: 1, name: 'Shadow IT' })).toBeInTheDocument();
    expect(app.location()).toBe('/analytics/shadow-it');
  });

  it('offers SAML sign-in only when samlAuth is on', async () => {
    stubApi();
    await openLogin();
    expect(screen.getByRole('link', { name: 'Forgot your password?' })).toHaveAttribute(
      'href',
      '#/auth/forgot-password',
    );
    expect(screen.queryByRole('link', { name: 'Sign in with SAML' })).not.toBeInTheDocument();
  });

  it('shows the SAML button when samlAuth is on', async () => {
    stubApi({
      'GET /api/v1/generic/ui_features_public': () =>
        jsonResponse(200, { ...PUBLIC_FEATURES, samlAuth: true }),
    });
    await openLogin();
    expect(await screen.findByRole('link', { name: 'Sign in with SAML' })).toHaveAttribute(
      'href',
      '#/auth/saml/login',
    );
  });
});

describe('password pages', () => {
  it('reset-password checks length and confirmation, then posts token and new password', async () => {
    const api = stubApi({ 'POST /api/v1/auth/reset_password': () => jsonResponse(200, { success: true }) });
    renderRoute('/auth/reset-password?token=tok-1');
    await screen.findByRole('heading', { name: 'Choose a new password' });

    await userEvent.type(screen.getByLabelText(/^New password/), 'short');
    await userEvent.type(screen.getByLabelText(/^Confirm password/), 'other');
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));
    expect(screen.getByText('The password must be at least 8 characters long.')).toBeInTheDocument();
    expect(screen.getByText('The passwords do not match.')).toBeInTheDocument();

    await userEvent.clear(screen.getByLabelText(/^New password/));
    await userEvent.type(screen.getByLabelText(/^New password/), 'long-enough');
    await userEvent.clear(screen.getByLabelText(/^Confirm password/));
    await userEvent.type(screen.getByLabelText(/^Confirm password/), 'long-enough');
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));

    expect(await screen.findByRole('status')).toHaveTextContent('Your password has been changed.');
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toHaveAttribute('href', '/auth/login');
    expect(api.calls.find((call) => call.method === 'POST')?.body).toEqual({
      token: 'tok-1',
      newPassword: 'long-enough',
    });
  });

  it('reset-password without a token offers a new link instead of a form', async () => {
    stubApi();
    renderRoute('/auth/reset-password');
    expect(
      await screen.findByText('This password reset link is incomplete. Ask for a new link.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toHaveAttribute(
      'href',
      '/auth/forgot-password',
    );
  });

  it('forgot-password shows only a failed captcha, then, on success, the confirmation with a link back', async () => {
    const answers = [
      () => errorResponse(429, 'rate_limited', 'slow down'),
      () => errorResponse(400, 'captcha_failed', 'The security check did not pass.'),
      () => jsonResponse(200, { success: true }),
    ];
    const api = stubApi({ 'POST /api/v1/auth/forgot_password': () => answers.shift()!() });
    renderRoute('/auth/forgot-password');
    await screen.findByRole('heading', { name: 'Reset your password' });
    await userEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(screen.getByText('Enter your email address.')).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText(/Email/), 'ada@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    await waitFor(() => expect(answers).toHaveLength(2));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The security check did not pass.');

    await userEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('an email with a reset link'));
    expect(screen.getByRole('link', { name: 'Back to sign in' })).toHaveAttribute('href', '/auth/login');
    const tokens = api.calls
      .filter((call) => call.url.pathname === '/api/v1/auth/forgot_password')
      .map((call) => (call.body as { recaptcha_token: string }).recaptcha_token);
    expect(new Set(tokens).size).toBe(3);
  });

  it('forgot-password answered with success false shows the reset-error dialog', async () => {
    stubApi({ 'POST /api/v1/auth/forgot_password': () => jsonResponse(200, { success: false }) });
    renderRoute('/auth/forgot-password');
    await userEvent.type(await screen.findByLabelText(/Email/), 'ada@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    const dialog = await screen.findByRole('dialog', { name: 'Password reset failed' });
    expect(dialog).toHaveTextContent('The reset link could not be sent.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('reset-password shows the server message of a used link', async () => {
    stubApi({
      'POST /api/v1/auth/reset_password': () =>
        errorResponse(
          401,
          'invalid_token',
          'This password link is invalid, has expired or was already used.',
        ),
    });
    renderRoute('/auth/reset-password?token=used');
    await userEvent.type(await screen.findByLabelText(/^New password/), 'long-enough');
    await userEvent.type(screen.getByLabelText(/^Confirm password/), 'long-enough');
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This password link is invalid, has expired or was already used.',
    );
  });

  it('password-expired posts email, current and new password, and shows an Error dialog with the server reason', async () => {
    const api = stubApi({
      'POST /api/v1/auth/password_expired': () =>
        errorResponse(400, 'validation_error', 'The new password must differ from the current one'),
    });
    renderRoute('/auth/password-expired/ada%40example.com');
    expect(await screen.findByText('Choose a new password for ada@example.com.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText(/^Current password/), 'old-password');
    await userEvent.type(screen.getByLabelText(/^New password/), 'new-password');
    await userEvent.type(screen.getByLabelText(/^Confirm password/), 'new-password');
    await userEvent.click(screen.getByRole('button', { name: 'Change password' }));

    const dialog = await screen.findByRole('dialog', { name: 'Error' });
    expect(dialog).toHaveTextContent('Some of the information entered is not valid.');
    expect(dialog).toHaveTextContent('The new password must differ from the current one');
    expect(api.calls.find((call) => call.method === 'POST')?.body).toEqual({
      email: 'ada@example.com',
      current_password: 'old-password',
      new_password: 'new-password',
      confirm_password: 'new-password',
    });
  });

  it('password-expired success shows a dialog, then goes to sign-in', async () => {
    stubApi({ 'POST /api/v1/auth/password_expired': () => jsonResponse(200, { success: true }) });
    const app = renderRoute('/auth/password-expired/ada%40example.com');
    await userEvent.type(await screen.findByLabelText(/^Current password/), 'old-password');
    await userEvent.type(screen.getByLabelText(/^New password/), 'new-password');
    await userEvent.type(screen.getByLabelText(/^Confirm password/), 'new-password');
    await userEvent.click(screen.getByRole('button', { name: 'Change password' }));
    const dialog = await screen.findByRole('dialog', { name: 'Password changed' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Go to sign in' }));
    await waitFor(() => expect(app.location()).toBe('/auth/login'));
  });
});

describe('sign-in area guard', () => {
  const signedIn = () =>
    jsonResponse(200, { authenticated: true, login_reason_required: false, password_change_required: false });

  it.each(['/auth/login', '/auth/forgot-password'])(
    'sends a browser with a session from %s to the overview',
    async (path) => {
      stubApi({
        'GET /api/v1/auth/session': signedIn,
        'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
      });
      const app = renderRoute(path);
      expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
      expect(app.location()).toBe('/dashboard');
    },
  );

  it('keeps the reset-password page open with a session (a reset link works anyway)', async () => {
    stubApi({ 'GET /api/v1/auth/session': signedIn });
    const app = renderRoute('/auth/reset-password?token=t');
    expect(await screen.findByRole('heading', { name: 'Choose a new password' })).toBeInTheDocument();
    expect(app.location()).toBe('/auth/reset-password?token=t');
  });

  it('shows the login page when the session probe fails', async () => {
    stubApi({ 'GET /api/v1/auth/session': () => errorResponse(503, 'service_unavailable', 'down') });
    renderRoute('/auth/login');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
  });
});
