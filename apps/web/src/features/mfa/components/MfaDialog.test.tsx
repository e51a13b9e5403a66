import type { MfaSettings } from '@moat/contracts/auth';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildDeployment, consoleHandlers } from '../../../test/console-status-fixtures';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  type RecordedCall,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const QR = 'data:image/png;base64,iVBORw0KGgo=';
const PASSWORD = 'correct horse';

/** The MFA calls of one user, with the server's state. */
function mfaApi(initial: Partial<MfaSettings> = {}) {
  const settings: MfaSettings = {
    mfaWasSet: false,
    isMfaEnabled: false,
    isVerified: false,
    mfaRequired: false,
    ...initial,
  };
  const api = stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
    // SPEC §2.4: MFA setup is in the user menu of an MSP portal with enableMFA.
    ...consoleHandlers({ enableMFA: true }, buildDeployment({ is_msp: true })),
    'POST /api/v1/mfa/setup': () => jsonResponse(200, settings),
    'PUT /api/v1/mfa/setup': () =>
      jsonResponse(200, {
        secret: SECRET,
        qrCodeSrc: QR,
        otpauthUrl: `otpauth://totp/Moat?secret=${SECRET}`,
      }),
    'POST /api/v1/mfa/verify_setup': (call) => {
      const success = (call.body as { code: string }).code === '246810';
      if (success) Object.assign(settings, { mfaWasSet: true, isMfaEnabled: true, isVerified: true });
      return jsonResponse(200, { success });
    },
    'DELETE /api/v1/mfa/disable/ada%40example.com': (call) => {
      if ((call.body as { password: string }).password !== PASSWORD) {
        return errorResponse(401, 'invalid_credentials', 'The password is not correct');
      }
      Object.assign(settings, { mfaWasSet: false, isMfaEnabled: false, isVerified: false });
      return jsonResponse(200, { success: true });
    },
  });
  return api;
}

const sent = (calls: RecordedCall[], method: string, path: string) =>
  calls.filter((call) => call.method === method && call.url.pathname === path).map((call) => call.body);

async function openMfaDialog() {
  renderRoute('/dashboard');
  await userEvent.click(await screen.findByRole('button', { name: 'User menu of ada@example.com' }));
  await userEvent.click(await screen.findByRole('menuitem', { name: 'MFA setup' }));
  return screen.findByRole('dialog', { name: 'Multi-factor authentication' });
}

describe('MFA dialog of the signed-in user (SPEC §4 "MFA setup dialog")', () => {
  it('suggestion → setup with QR code and secret → verified → active; turning it off asks for the password and resets', async () => {
    const api = mfaApi();
    const dialog = await openMfaDialog();

    // Suggestion
    expect(await within(dialog).findByText('Protect your account with a second step')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Set up' }));

    // Setup: QR code, the secret as text for any app, the first code
    expect(await within(dialog).findByRole('img', { name: /QR code/ })).toHaveAttribute('src', QR);
    expect(within(dialog).getByText('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP')).toBeInTheDocument();
    const code = within(dialog).getByLabelText(/Code from the app/);
    await userEvent.type(code, '111111');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Verify and turn on' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The code is not valid.');
    await userEvent.type(code, '246810');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Verify and turn on' }));

    // Verified, then active
    expect(await within(dialog).findByText('Multi-factor authentication is on')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(await within(dialog).findByText('On')).toBeInTheDocument();

    // Turning it off: the password again; a wrong one is refused
    await userEvent.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    const password = await within(dialog).findByLabelText(/^Password/);
    await userEvent.type(password, 'wrong');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    expect(await within(dialog).findByText('The password is not correct.')).toBeInTheDocument();
    await userEvent.type(password, PASSWORD);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    expect(await within(dialog).findByText('Protect your account with a second step')).toBeInTheDocument();

    expect(sent(api.calls, 'PUT', '/api/v1/mfa/setup')).toEqual([{ userEmail: 'ada@example.com' }]);
    expect(sent(api.calls, 'POST', '/api/v1/mfa/verify_setup')).toEqual([
      { code: '111111', userEmail: 'ada@example.com', secret: SECRET },
      { code: '246810', userEmail: 'ada@example.com', secret: SECRET },
    ]);
    expect(sent(api.calls, 'DELETE', '/api/v1/mfa/disable/ada%40example.com')).toEqual([
      { password: 'wrong' },
      { password: PASSWORD },
    ]);
  });

  it('does not offer MFA setup in the user menu when the admin requires MFA', async () => {
    mfaApi({ mfaWasSet: true, isMfaEnabled: true, isVerified: true, mfaRequired: true });
    renderRoute('/dashboard');
    await userEvent.click(await screen.findByRole('button', { name: 'User menu of ada@example.com' }));
    await screen.findByRole('menuitem', { name: 'Logout' });
    expect(screen.queryByRole('menuitem', { name: 'MFA setup' })).not.toBeInTheDocument();
  });

  it('closes with its close button', async () => {
    mfaApi();
    const dialog = await openMfaDialog();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });
});
