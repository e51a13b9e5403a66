import type { SmtpCredential, SmtpCredentialList } from '@moat/contracts/outbound';
import type { Settings } from '@moat/contracts/settings';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const SETTINGS: Settings = {
  mfa_required: false,
  password_max_age_days: null,
  session_idle_minutes: 30,
  session_absolute_hours: 12,
  support_access_enabled: false,
  retention_days: 30,
  mail_from_address: null,
  mail_from_name: null,
  alert_recipients: [],
  default_mail_from: 'no-reply@moat.example.test',
  default_mail_from_name: 'Moat',
  domains: ['example.com'],
};

function settingsApi(role: 'admin' | 'user' = 'admin') {
  let stored = SETTINGS;
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role })),
    'GET /api/v1/settings': () => jsonResponse(200, stored),
    'PUT /api/v1/settings': (call) => {
      const body = call.body as Partial<Settings>;
      if (body.mail_from_address && !body.mail_from_address.endsWith('@example.com')) {
        return errorResponse(
          400,
          'validation_error',
          'The sender must be an address of your domains (example.com)',
          [{ field: 'body.mail_from_address', message: 'domain_not_yours' }],
        );
      }
      stored = { ...stored, ...body };
      return jsonResponse(200, stored);
    },
  });
}

describe('Settings (/configuration/settings)', () => {
  it('warns when Moat has no sender address for its mail, and names the default otherwise', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      'GET /api/v1/settings': () => jsonResponse(200, { ...SETTINGS, default_mail_from: null, domains: [] }),
    });
    const app = renderRoute('/configuration/settings');
    const mail = await screen.findByRole('region', { name: 'Mail sender' });
    expect(within(mail).getByText('Moat has no address to send its mail from')).toBeInTheDocument();
    expect(within(mail).getByText(/wait in the outbox/)).toBeInTheDocument();
    app.unmount();

    settingsApi();
    renderRoute('/configuration/settings');
    const named = await screen.findByRole('region', { name: 'Mail sender' });
    expect(within(named).queryByText('Moat has no address to send its mail from')).not.toBeInTheDocument();
    expect(
      within(named).getByText('Left empty, mail comes from no-reply@moat.example.test.'),
    ).toBeInTheDocument();
  });

  it('saves only what changed, says a refused sender under its field, and confirms', async () => {
    const user = userEvent.setup();
    const api = settingsApi();
    renderRoute('/configuration/settings');
    const signIn = await screen.findByRole('region', { name: 'Sign-in' });
    await user.click(within(signIn).getByRole('switch', { name: /Require MFA for everyone/ }));
    const idle = screen.getByRole('textbox', { name: /idle minutes/ });
    await user.clear(idle);
    await user.type(idle, '15');
    const sender = screen.getByRole('textbox', { name: 'Sender address' });
    await user.type(sender, 'ceo@bank.test');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText(/The sender must be an address of your domains/)).toBeInTheDocument();
    await user.clear(sender);
    await user.type(sender, 'security@example.com');
    await user.type(screen.getByRole('textbox', { name: /Who gets the admins' alerts/ }), 'soc@example.com');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Settings saved. They apply from now on.')).toBeInTheDocument();
    const puts = api.calls.filter((c) => c.method === 'PUT').map((c) => c.body);
    expect(puts.at(-1)).toEqual({
      mfa_required: true,
      session_idle_minutes: 15,
      mail_from_address: 'security@example.com',
      alert_recipients: ['soc@example.com'],
    });
    expect(screen.getByRole('button', { name: 'Save changes' })).toBeDisabled();
  }, 30_000);

  it('shows a demo deployment user the settings without a way to change them', async () => {
    settingsApi('user');
    renderRoute('/configuration/settings');
    expect(await screen.findByText(/only an admin can change them/)).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: /Require MFA for everyone/ })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save changes' })).not.toBeInTheDocument();
  }, 30_000);
});

const LIST = 'GET /api/v1/outbound/credentials';
const endpoint = { port: 587, host: 'mx.moat.example', starttls: true };
const credential = (extra: Partial<SmtpCredential> = {}): SmtpCredential => ({
  id: '0b5c3c1e-6a8e-4a59-9d44-2a2b2b8f0a11',
  username: 'smtp-k3j9xq2m7p',
  label: 'Exchange server',
  createdAt: '2026-12-07T10:00:00.000Z',
  lastUsedAt: null,
  revokedAt: null,
  ...extra,
});

describe('Settings → Mail flow → Outbound submission', () => {
  it('makes a credential, shows its password once, and revokes one after a second click', async () => {
    const user = userEvent.setup();
    let list: SmtpCredentialList = { credentials: [], endpoint };
    const api = stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      'GET /api/v1/settings': () => jsonResponse(200, SETTINGS),
      [LIST]: () => jsonResponse(200, list),
      'POST /api/v1/outbound/credentials': () => {
        list = { credentials: [credential()], endpoint };
        return jsonResponse(200, { credential: credential(), password: 'Zx9-secret-shown-once' });
      },
      'DELETE /api/v1/outbound/credentials/0b5c3c1e-6a8e-4a59-9d44-2a2b2b8f0a11': () => {
        list = { credentials: [credential({ revokedAt: '2026-12-07T11:00:00.000Z' })], endpoint };
        return jsonResponse(200, list.credentials[0]);
      },
    });
    renderRoute('/configuration/settings');
    const section = await screen.findByRole('region', { name: 'Outbound submission' });
    expect(await within(section).findByText('No credentials yet')).toBeInTheDocument();
    expect(
      within(section).getByText(/at mx\.moat\.example, port 587, with STARTTLS and SMTP AUTH/),
    ).toBeInTheDocument();

    await user.type(within(section).getByRole('textbox', { name: /Label/ }), 'Exchange server');
    await user.click(within(section).getByRole('button', { name: 'Create credential' }));
    expect(await within(section).findByText('Zx9-secret-shown-once')).toBeInTheDocument();
    expect(within(section).getAllByText('smtp-k3j9xq2m7p').length).toBeGreaterThan(0);
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ label: 'Exchange server' });
    await user.click(within(section).getByRole('button', { name: 'Done' }));
    expect(within(section).queryByText('Zx9-secret-shown-once')).not.toBeInTheDocument();

    const card = within(section).getByRole('listitem');
    expect(within(card).getByText('Active')).toBeInTheDocument();
    expect(within(card).getByText('Exchange server')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Revoke smtp-k3j9xq2m7p' }));
    // Nothing is revoked on the first click: it asks.
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(card).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(within(section).getByText('Revoked')).toBeInTheDocument());
  });

  it('says when submission is off, and when logins are only taken from the Moat host', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      'GET /api/v1/settings': () => jsonResponse(200, SETTINGS),
      [LIST]: () =>
        jsonResponse(200, { credentials: [], endpoint: { port: 2587, host: 'mx.test', starttls: false } }),
    });
    renderRoute('/configuration/settings');
    const section = await screen.findByRole('region', { name: 'Outbound submission' });
    expect(await within(section).findByText(/No TLS certificate is set on this server/)).toBeInTheDocument();
  });
});
