import { MAIL_VERIFICATION_MAX_ATTEMPTS } from '@moat/contracts/constants';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  type RecordedCall,
  renderRoute,
  stepResponse,
  stubApi,
} from '../../../test/render-route';

const assignDocumentLocation = vi.hoisted(() => vi.fn());
vi.mock('../../../lib/return-url', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../lib/return-url')>()),
  assignDocumentLocation,
}));

const QR = 'data:image/png;base64,iVBORw0KGgo=';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** A session that opens when `open()` is called: current_user answers 403 before, the user after. */
function session(user = buildCurrentUser()) {
  let opened = false;
  return {
    open: () => {
      opened = true;
    },
    currentUser: () =>
      opened ? jsonResponse(200, user) : errorResponse(403, 'forbidden', 'not authenticated'),
  };
}

const posts = (calls: RecordedCall[], path: string) =>
  calls.filter((call) => call.method !== 'GET' && call.url.pathname === path);

async function signIn(user = userEvent.setup(), path = '/auth/login') {
  const app = renderRoute(path);
  await user.type(await screen.findByLabelText(/Email/), 'ada@example.com');
  await user.type(screen.getByLabelText(/Password/), 'secret');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return app;
}

afterEach(() => {
  vi.useRealTimers();
  assignDocumentLocation.mockReset();
});

describe('sign-in: password only', () => {
  it('goes to the overview once the session is open and the user is fetched', async () => {
    const s = session();
    const api = stubApi({
      'POST /api/v1/auth/login': () => {
        s.open();
        return jsonResponse(200, stepResponse());
      },
      'GET /api/v1/current_user': s.currentUser,
    });
    const app = await signIn();
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    expect(app.location()).toBe('/dashboard');
    expect(posts(api.calls, '/api/v1/auth/login')[0]?.body).toMatchObject({
      email: 'ada@example.com',
      recaptcha_token: expect.stringContaining('/api/v1/auth/captcha/challenge'),
    });
  });

  it('retries the current user every second until it answers', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const times: number[] = [];
    let signedIn = false;
    stubApi({
      'POST /api/v1/auth/login': () => {
        signedIn = true;
        return jsonResponse(200, stepResponse());
      },
      'GET /api/v1/current_user': () => {
        if (!signedIn) return errorResponse(403, 'forbidden', 'not authenticated');
        times.push(Date.now());
        return times.length < 3
          ? errorResponse(503, 'service_unavailable', 'starting')
          : jsonResponse(200, buildCurrentUser());
      },
    });
    const app = await signIn(user);
    await waitFor(() => expect(times).toHaveLength(1));
    expect(screen.getByRole('status')).toHaveTextContent('Signing you in…');
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
    expect(times).toHaveLength(3);
    for (const [i, time] of times.slice(1).entries()) {
      const gap = time - times[i]!;
      expect(gap).toBeGreaterThanOrEqual(1_000);
      expect(gap).toBeLessThan(1_500);
    }
  });

  it('goes to onboarding when the user record requires it, whatever the returnUrl', async () => {
    const s = session(buildCurrentUser({ on_boarding_required: true }));
    stubApi({
      'POST /api/v1/auth/login': () => {
        s.open();
        return jsonResponse(200, stepResponse());
      },
      'GET /api/v1/current_user': s.currentUser,
    });
    const app = await signIn(undefined, '/auth/login?returnUrl=%2Fpolicy');
    await waitFor(() => expect(app.location()).toBe('/onboarding'));
  });

  it("leaves the app with a full location change for a returnUrl containing '#'", async () => {
    const s = session();
    stubApi({
      'POST /api/v1/auth/login': () => {
        s.open();
        return jsonResponse(200, stepResponse());
      },
      'GET /api/v1/current_user': s.currentUser,
    });
    const app = await signIn(undefined, `/auth/login?returnUrl=${encodeURIComponent('/legacy/#/policy')}`);
    await waitFor(() => expect(assignDocumentLocation).toHaveBeenCalledWith('/legacy/#/policy'));
    expect(app.location()).toMatch(/^\/auth\/login/);
  });

  it('shows the tenant-approval notice for a support user whose tenant has support access off', async () => {
    stubApi({
      'POST /api/v1/auth/login': () =>
        errorResponse(403, 'tenant_approval_required', 'Support access to this tenant is turned off.'),
    });
    await signIn();
    // Said beside the form (the same notice as the public bundle's login page), not as a failure.
    const notice = await screen.findByRole('status');
    expect(notice).toHaveTextContent('Tenant approval needed');
    expect(notice).toHaveTextContent('An administrator of the tenant must approve support access');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows a failed captcha and sends a new token with the next try', async () => {
    let tries = 0;
    const api = stubApi({
      'POST /api/v1/auth/login': () =>
        ++tries === 1
          ? errorResponse(400, 'captcha_failed', 'The security check did not pass.')
          : errorResponse(401, 'invalid_credentials', 'Invalid email or password'),
    });
    await signIn();
    expect(await screen.findByRole('alert')).toHaveTextContent('The security check did not pass.');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Invalid email or password.')).toBeInTheDocument();
    const [first, second] = posts(api.calls, '/api/v1/auth/login').map(
      (call) => (call.body as { recaptcha_token: string }).recaptcha_token,
    );
    expect(first).toBeTruthy();
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
  });
});

describe('sign-in: an account that sees many failed sign-ins', () => {
  it('solves the stronger captcha it asks for and sends the sign-in again, once', async () => {
    const s = session();
    const api = stubApi({
      'POST /api/v1/auth/login': (call) => {
        if (!(call.body as { recaptcha_token: string }).recaptcha_token.includes('strength=strong')) {
          return errorResponse(400, 'captcha_required', 'This browser must pass a stronger security check.');
        }
        s.open();
        return jsonResponse(200, stepResponse());
      },
      'GET /api/v1/current_user': s.currentUser,
    });
    await signIn();
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    const tokens = posts(api.calls, '/api/v1/auth/login').map(
      (call) => (call.body as { recaptcha_token: string }).recaptcha_token,
    );
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).not.toContain('strength=strong');
    expect(tokens[1]).toContain('/api/v1/auth/captcha/challenge?strength=strong');
  });

  it('says so when the stronger captcha did not do either', async () => {
    const api = stubApi({
      'POST /api/v1/auth/login': () =>
        errorResponse(400, 'captcha_required', 'This browser must pass a stronger security check.'),
    });
    await signIn();
    expect(await screen.findByRole('alert')).toHaveTextContent('needs a longer security check');
    expect(posts(api.calls, '/api/v1/auth/login')).toHaveLength(2);
  });
});

describe('sign-in: one-time code (MFA active)', () => {
  it('asks for the code, says so when it is not valid, and signs in with the right one', async () => {
    const s = session();
    const api = stubApi({
      'POST /api/v1/auth/login': () => jsonResponse(200, stepResponse({ next: 'mfa_code', mfaWasSet: true })),
      'POST /api/v1/auth/mfa/verify': (call) => {
        const right = (call.body as { code: string }).code === '123456';
        if (right) s.open();
        return jsonResponse(200, stepResponse({ success: right, next: right ? 'done' : 'mfa_code' }));
      },
      'GET /api/v1/current_user': s.currentUser,
    });
    const app = await signIn();
    expect(await screen.findByRole('heading', { name: 'Enter your verification code' })).toBeInTheDocument();
    const field = screen.getByLabelText(/Verification code/);
    expect(field).toHaveAttribute('inputmode', 'numeric');
    expect(field).toHaveAttribute('maxlength', '6');
    expect(field).toHaveFocus();

    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Enter the code.')).toBeInTheDocument();
    await userEvent.type(field, '12ab34');
    expect(field).toHaveValue('1234');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Enter the 6-digit code.')).toBeInTheDocument();
    expect(posts(api.calls, '/api/v1/auth/mfa/verify')).toHaveLength(0);

    await userEvent.type(field, '99');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The code is not valid.');

    await userEvent.type(field, '1234567');
    expect(field).toHaveValue('123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
    expect(posts(api.calls, '/api/v1/auth/mfa/verify').map((call) => call.body)).toEqual([
      { code: '123499' },
      { code: '123456' },
    ]);
  });

  it('returns from the code form to the login form after too many codes (429)', async () => {
    stubApi({
      'POST /api/v1/auth/login': () => jsonResponse(200, stepResponse({ next: 'mfa_code' })),
      'POST /api/v1/auth/mfa/verify': () => errorResponse(429, 'rate_limited', 'Too many wrong codes.'),
    });
    await signIn();
    await userEvent.type(await screen.findByLabelText(/Verification code/), '000000');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.queryByLabelText(/Verification code/)).not.toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Too many wrong codes. Sign in again.');
    expect(screen.getByLabelText(/Email/)).toHaveValue('ada@example.com');
  });

  it('returns to the login form saying the codes are paused when the account is locked (429 mfa_locked)', async () => {
    stubApi({
      'POST /api/v1/auth/login': () => jsonResponse(200, stepResponse({ next: 'mfa_code' })),
      'POST /api/v1/auth/mfa/verify': () =>
        errorResponse(429, 'mfa_locked', 'Too many wrong codes for this account. Try again after …'),
    });
    await signIn();
    await userEvent.type(await screen.findByLabelText(/Verification code/), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('sign-in codes are paused for a while');
    expect(screen.getByRole('alert')).toHaveTextContent('We sent you an email');
  });

  it('returns to the login form with its message when the sign-in expired (401 login_expired)', async () => {
    stubApi({
      'POST /api/v1/auth/login': () => jsonResponse(200, stepResponse({ next: 'mfa_code' })),
      'POST /api/v1/auth/mfa/verify': () => errorResponse(401, 'login_expired', 'Your sign-in has expired.'),
    });
    await signIn();
    await userEvent.type(await screen.findByLabelText(/Verification code/), '000000');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Your sign-in has expired. Sign in again.');
  });
});

describe('sign-in: mail verification, then the MFA setup the admin requires', () => {
  const toMailVerification = () => jsonResponse(200, stepResponse({ next: 'mail_verification' }));

  it('counts wrong codes (403) and disables the submit with the max-attempts message after the third', async () => {
    const api = stubApi({
      'POST /api/v1/auth/login': toMailVerification,
      'POST /api/v1/mail_verification/verify': () =>
        errorResponse(403, 'invalid_code', 'The code is not valid. 2 attempt(s) left.'),
    });
    await signIn();
    const dialog = await screen.findByRole('dialog', { name: 'Confirm your email address' });
    expect(dialog).toHaveTextContent('We sent a verification code to ada@example.com');
    const field = within(dialog).getByLabelText(/Code from the email/);
    const submit = within(dialog).getByRole('button', { name: 'Verify' });

    for (let attempt = 1; attempt <= MAIL_VERIFICATION_MAX_ATTEMPTS; attempt++) {
      expect(submit).toBeEnabled();
      await userEvent.type(field, `00000${attempt}`);
      await userEvent.click(submit);
      await waitFor(() => expect(posts(api.calls, '/api/v1/mail_verification/verify')).toHaveLength(attempt));
      if (attempt < MAIL_VERIFICATION_MAX_ATTEMPTS) {
        expect(await within(dialog).findByRole('alert')).toHaveTextContent(
          'The code is not correct. Check the email and try again.',
        );
      }
    }
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'You have entered a wrong code 3 times. Send a new code or sign in again.',
    );
    expect(submit).toBeDisabled();
    await userEvent.type(field, '123456{Enter}');
    expect(posts(api.calls, '/api/v1/mail_verification/verify')).toHaveLength(MAIL_VERIFICATION_MAX_ATTEMPTS);
    expect(posts(api.calls, '/api/v1/mail_verification/verify')[0]?.body).toEqual({
      email: 'ada@example.com',
      code: '000001',
    });
  });

  it('hides the resend link until wait_time has passed; a new code gives new attempts', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const api = stubApi({
      'POST /api/v1/auth/login': toMailVerification,
      'POST /api/v1/mail_verification/send': () => jsonResponse(200, { success: true, wait_time: 30 }),
      'POST /api/v1/mail_verification/verify': () =>
        errorResponse(403, 'max_attempts_reached', 'You have reached the maximum number of attempts.'),
    });
    await signIn(user);
    const dialog = await screen.findByRole('dialog', { name: 'Confirm your email address' });
    await user.type(within(dialog).getByLabelText(/Code from the email/), '000000');
    await user.click(within(dialog).getByRole('button', { name: 'Verify' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('wrong code 3 times');
    expect(within(dialog).getByRole('button', { name: 'Verify' })).toBeDisabled();

    await user.click(within(dialog).getByRole('button', { name: 'Send a new code' }));
    expect(await within(dialog).findByText('You can ask for a new code in 30 s.')).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Send a new code' })).not.toBeInTheDocument();
    expect(within(dialog).getByRole('status')).toHaveTextContent('A new code is on its way.');
    expect(within(dialog).getByRole('button', { name: 'Verify' })).toBeEnabled();

    await act(() => vi.advanceTimersByTimeAsync(20_000));
    expect(within(dialog).getByText('You can ask for a new code in 10 s.')).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Send a new code' })).not.toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(await within(dialog).findByRole('button', { name: 'Send a new code' })).toBeInTheDocument();
    expect(posts(api.calls, '/api/v1/mail_verification/send')).toHaveLength(1);
  });

  it('a resend asked too early shows the wait without a new code', async () => {
    stubApi({
      'POST /api/v1/auth/login': toMailVerification,
      'POST /api/v1/mail_verification/send': () => jsonResponse(200, { success: false, wait_time: 12 }),
    });
    await signIn();
    const dialog = await screen.findByRole('dialog', { name: 'Confirm your email address' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Send a new code' }));
    expect(await within(dialog).findByText('You can ask for a new code in 12 s.')).toBeInTheDocument();
    expect(within(dialog).queryByRole('status')).not.toBeInTheDocument();
  });

  it('after the right code sets up MFA with the QR code and the secret, and signs in with the first code', async () => {
    const s = session();
    const api = stubApi({
      'POST /api/v1/auth/login': toMailVerification,
      'POST /api/v1/mail_verification/verify': () => jsonResponse(200, stepResponse({ next: 'mfa_setup' })),
      'PUT /api/v1/mfa/setup_public': () =>
        jsonResponse(200, { secret: SECRET, qrCodeSrc: QR, otpauthUrl: `otpauth://totp/x?secret=${SECRET}` }),
      'POST /api/v1/mfa/verify_public': (call) => {
        const right = (call.body as { code: string }).code === '654321';
        if (right) s.open();
        return jsonResponse(
          200,
          stepResponse({ success: right, next: right ? 'done' : 'mfa_setup', mfaWasSet: right }),
        );
      },
      'GET /api/v1/current_user': s.currentUser,
    });
    const app = await signIn();
    const mail = await screen.findByRole('dialog', { name: 'Confirm your email address' });
    await userEvent.type(within(mail).getByLabelText(/Code from the email/), '111111');
    await userEvent.click(within(mail).getByRole('button', { name: 'Verify' }));

    const setup = await screen.findByRole('dialog', { name: 'Set up multi-factor authentication' });
    expect(await within(setup).findByRole('img', { name: /QR code/ })).toHaveAttribute('src', QR);
    expect(within(setup).getByText('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP')).toBeInTheDocument();
    expect(within(setup).getByRole('button', { name: 'Copy key' })).toBeInTheDocument();
    const code = within(setup).getByLabelText(/Code from the app/);
    await userEvent.type(code, '000000');
    await userEvent.click(within(setup).getByRole('button', { name: 'Verify and sign in' }));
    expect(await within(setup).findByRole('alert')).toHaveTextContent('The code is not valid.');

    await userEvent.type(code, '654321');
    await userEvent.click(within(setup).getByRole('button', { name: 'Verify and sign in' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
    expect(posts(api.calls, '/api/v1/mfa/setup_public')).toHaveLength(1);
    expect(posts(api.calls, '/api/v1/mfa/setup_public')[0]?.body).toEqual({ userEmail: 'ada@example.com' });
    expect(posts(api.calls, '/api/v1/mfa/verify_public').at(-1)?.body).toEqual({
      code: '654321',
      userEmail: 'ada@example.com',
      secret: SECRET,
    });
  });

  it('closing the mail verification dialog goes back to the login form', async () => {
    stubApi({ 'POST /api/v1/auth/login': toMailVerification });
    await signIn();
    const dialog = await screen.findByRole('dialog', { name: 'Confirm your email address' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
  });
});

describe('sign-in: maintenance rule', () => {
  it('asks for the login reason before going on, requires it, and posts it', async () => {
    const s = session();
    const api = stubApi({
      'POST /api/v1/auth/login': () => {
        s.open();
        return jsonResponse(200, stepResponse({ login_reason_required: true }));
      },
      'GET /api/v1/current_user': s.currentUser,
      'POST /api/v1/auth/login_reason': () => jsonResponse(200, { success: true }),
    });
    const app = await signIn();
    const dialog = await screen.findByRole('dialog', { name: 'Reason for signing in' });
    expect(within(dialog).queryByRole('button', { name: 'Close' })).not.toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Reason for signing in' })).toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(within(dialog).getByText('Provide the reason for this sign-in.')).toBeInTheDocument();
    expect(posts(api.calls, '/api/v1/auth/login_reason')).toHaveLength(0);
    expect(app.location()).toBe('/auth/login');

    await userEvent.type(within(dialog).getByLabelText(/Login reason/), '  Ticket 4711 ');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
    expect(posts(api.calls, '/api/v1/auth/login_reason').map((call) => call.body)).toEqual([
      { loginReason: 'Ticket 4711' },
    ]);
  });
});

describe('sign-in with a one-time password (the generated first admin)', () => {
  /** The server side: the one-time password signs in to a session that owes a new password. */
  function oneTimeSession() {
    const s = session();
    let due = false;
    let changedTo: string | null = null;
    const api = stubApi({
      'POST /api/v1/auth/login': () => {
        due = true;
        return jsonResponse(200, stepResponse({ next: 'password_change' }));
      },
      'GET /api/v1/current_user': () =>
        due ? errorResponse(403, 'password_change_required', 'Choose a new password first') : s.currentUser(),
      'POST /api/v1/auth/password_change': (call) => {
        const body = call.body as { new_password: string };
        if (body.new_password === 'secret-one-time') {
          return errorResponse(400, 'validation_error', 'The new password must differ', [
            { field: 'body.new_password', message: 'password_unchanged' },
          ]);
        }
        due = false;
        changedTo = body.new_password;
        s.open();
        return jsonResponse(200, stepResponse({ next: 'mfa_offer' }));
      },
      'POST /api/v1/mfa/setup': () =>
        jsonResponse(200, { mfaWasSet: false, isMfaEnabled: false, isVerified: false, mfaRequired: false }),
      'PUT /api/v1/mfa/setup': () =>
        jsonResponse(200, { secret: SECRET, qrCodeSrc: QR, otpauthUrl: `otpauth://totp/x?secret=${SECRET}` }),
      'POST /api/v1/auth/logout': () => jsonResponse(200, { success: true }),
    });
    return { api, changedTo: () => changedTo };
  }

  it('asks for a new password (at least 8, confirmed, not the one-time one), then offers MFA, which can be skipped', async () => {
    const user = userEvent.setup();
    const server = oneTimeSession();
    const app = await signIn(user);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Choose a new password' }),
    ).toBeInTheDocument();
    expect(screen.getByText(/generated when Moat first started and works only once/)).toHaveTextContent(
      'ada@example.com',
    );
    const save = screen.getByRole('button', { name: 'Save and continue' });
    await user.type(screen.getByLabelText(/^New password/), 'short');
    await user.type(screen.getByLabelText(/^Confirm password/), 'other');
    await user.click(save);
    expect(await screen.findByText('The password must be at least 8 characters long.')).toBeInTheDocument();
    expect(screen.getByText('The passwords do not match.')).toBeInTheDocument();
    expect(posts(server.api.calls, '/api/v1/auth/password_change')).toHaveLength(0);

    await user.clear(screen.getByLabelText(/^New password/));
    await user.clear(screen.getByLabelText(/^Confirm password/));
    await user.type(screen.getByLabelText(/^New password/), 'secret-one-time');
    await user.type(screen.getByLabelText(/^Confirm password/), 'secret-one-time');
    await user.click(save);
    expect(
      await screen.findByText('Choose a password other than the one you signed in with.'),
    ).toBeInTheDocument();

    await user.clear(screen.getByLabelText(/^New password/));
    await user.clear(screen.getByLabelText(/^Confirm password/));
    await user.type(screen.getByLabelText(/^New password/), 'my-own-password');
    await user.type(screen.getByLabelText(/^Confirm password/), 'my-own-password');
    await user.click(save);
    expect(posts(server.api.calls, '/api/v1/auth/password_change').at(-1)?.body).toEqual({
      new_password: 'my-own-password',
      confirm_password: 'my-own-password',
    });

    // MFA is offered; the tenant does not require it, so it can wait.
    const dialog = await screen.findByRole('dialog', { name: 'Multi-factor authentication' });
    expect(within(dialog).getByText('Protect your account with a second step')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Set up' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Skip for now' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
    expect(server.changedTo()).toBe('my-own-password');
  });

  it('the offered MFA can be set up there and then', async () => {
    const user = userEvent.setup();
    const server = oneTimeSession();
    await signIn(user);
    await user.type(await screen.findByLabelText(/^New password/), 'my-own-password');
    await user.type(screen.getByLabelText(/^Confirm password/), 'my-own-password');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const dialog = await screen.findByRole('dialog', { name: 'Multi-factor authentication' });
    await user.click(within(dialog).getByRole('button', { name: 'Set up' }));
    expect(await within(dialog).findByRole('img', { name: /QR code/ })).toBeInTheDocument();
    expect(posts(server.api.calls, '/api/v1/mfa/setup').at(-1)?.method).toBe('PUT');
  });

  it('signing out instead ends the session and shows the login form again', async () => {
    const user = userEvent.setup();
    const server = oneTimeSession();
    await signIn(user);
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(posts(server.api.calls, '/api/v1/auth/logout')).toHaveLength(1);
  });

  it('a reload (or any console page) with such a session comes back to the step', async () => {
    stubApi({
      'GET /api/v1/auth/session': () =>
        jsonResponse(200, {
          authenticated: true,
          login_reason_required: false,
          password_change_required: true,
        }),
      'GET /api/v1/current_user': () =>
        errorResponse(403, 'password_change_required', 'Choose a new password first'),
    });
    const app = renderRoute('/dashboard');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Choose a new password' }),
    ).toBeInTheDocument();
    // The page asked for stays the target once the new password is chosen.
    expect(app.location()).toBe('/auth/login?returnUrl=%2Fdashboard');
  });
});
