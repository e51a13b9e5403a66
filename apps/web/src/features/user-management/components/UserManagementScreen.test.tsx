import type { ManagedUser } from '@moat/contracts/users';
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

const base: ManagedUser = {
  id: '00000000-0000-4000-8000-000000000001',
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Admin',
  role: 'admin',
  status: 'active',
  hidden: false,
  view_policy: false,
  view_edit_policy: false,
  view_private_data: false,
  mfa_enabled: true,
  mfa_required: false,
  last_sign_in_at: '2026-11-27T08:00:00.000Z',
  created_at: '2026-11-01T08:00:00.000Z',
  invite_expires_at: null,
  is_you: true,
};
const kim: ManagedUser = {
  ...base,
  id: '00000000-0000-4000-8000-000000000002',
  email: 'kim@example.com',
  first_name: '',
  last_name: '',
  role: 'user',
  mfa_enabled: true,
  last_sign_in_at: null,
  is_you: false,
};

function usersApi() {
  let list = [base, kim];
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
    'GET /api/v1/users': () => jsonResponse(200, { items: list, total: list.length }),
    'POST /api/v1/users': (call) => {
      const body = call.body as { email: string; role: 'user' | 'admin' };
      if (!body.email.endsWith('@example.com')) {
        return errorResponse(
          400,
          'validation_error',
          "Invite addresses of your organisation's domains only: example.com",
        );
      }
      const added = {
        ...kim,
        id: '00000000-0000-4000-8000-000000000003',
        email: body.email,
        status: 'invited' as const,
      };
      list = [...list, added];
      return jsonResponse(200, added);
    },
    [`PATCH /api/v1/users/${kim.id}`]: (call) => {
      const body = call.body as { disabled?: boolean; view_policy?: boolean };
      list = list.map((u) =>
        u.id === kim.id
          ? {
              ...u,
              ...body,
              status: body.disabled === undefined ? u.status : body.disabled ? 'disabled' : 'active',
            }
          : u,
      ) as ManagedUser[];
      return jsonResponse(
        200,
        list.find((u) => u.id === kim.id),
      );
    },
    [`POST /api/v1/users/${kim.id}/reset_mfa`]: () =>
      errorResponse(409, 'conflict', 'This user has no MFA to reset'),
  });
}

describe('User Management (/system-settings/user-management)', () => {
  it('lists users with role, state, MFA and last sign-in; invites one, saying a refused address inline', async () => {
    const user = userEvent.setup();
    const api = usersApi();
    renderRoute('/system-settings/user-management');
    const table = await screen.findByRole('table', { name: 'Users' });
    const adaRow = (await within(table).findByText('Ada Admin')).closest('tr')!;
    expect(within(adaRow).getByText('You')).toBeInTheDocument();
    const kimRow = within(table).getByText('kim@example.com').closest('tr')!;
    expect(within(kimRow).getByText('Never')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Invite user' }));
    const dialog = await screen.findByRole('dialog', { name: 'Invite a user' });
    await user.type(within(dialog).getByRole('textbox', { name: /Email address/ }), 'eve@elsewhere.test');
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }));
    expect(
      await within(dialog).findByText(/your organisation's domains only: example.com/),
    ).toBeInTheDocument();
    expect(screen.getAllByRole('dialog')).toHaveLength(1);
    await user.clear(within(dialog).getByRole('textbox', { name: /Email address/ }));
    await user.type(within(dialog).getByRole('textbox', { name: /Email address/ }), 'lee@example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByText('Invitation sent to lee@example.com.')).toBeInTheDocument();
    const posted = api.calls
      .filter((c) => c.method === 'POST' && c.url.pathname === '/api/v1/users')
      .map((c) => c.body);
    expect(posted.at(-1)).toEqual({ email: 'lee@example.com', role: 'user', first_name: '', last_name: '' });
  }, 30_000);

  it('changes flags, disables after confirming, and shows a refused reset in the user dialog only', async () => {
    const user = userEvent.setup();
    const api = usersApi();
    renderRoute('/system-settings/user-management');
    await user.click(await screen.findByRole('button', { name: 'Edit kim@example.com' }));
    let dialog = await screen.findByRole('dialog', { name: 'kim@example.com' });
    await user.click(within(dialog).getByRole('checkbox', { name: /See the policy/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Saved the changes to kim@example.com.')).toBeInTheDocument();
    const patches = api.calls.filter((c) => c.method === 'PATCH').map((c) => c.body);
    expect(patches).toEqual([{ view_policy: true }]);

    await user.click(screen.getByRole('button', { name: 'Edit kim@example.com' }));
    dialog = await screen.findByRole('dialog', { name: 'kim@example.com' });
    await user.click(within(dialog).getByRole('button', { name: 'Disable' }));
    const confirm = await screen.findByRole('dialog', { name: 'Disable kim@example.com?' });
    await user.click(within(confirm).getByRole('button', { name: 'Disable' }));
    expect(
      await screen.findByText('kim@example.com is disabled and was signed out everywhere.'),
    ).toBeInTheDocument();
    expect(
      api.calls
        .filter((c) => c.method === 'PATCH')
        .map((c) => c.body)
        .at(-1),
    ).toEqual({ disabled: true });

    await user.click(screen.getByRole('button', { name: 'Edit kim@example.com' }));
    dialog = await screen.findByRole('dialog', { name: 'kim@example.com' });
    await user.click(within(dialog).getByRole('button', { name: 'Reset MFA' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: /Reset MFA of/ })).getByRole('button', {
        name: 'Reset MFA',
      }),
    );
    dialog = await screen.findByRole('dialog', { name: 'kim@example.com' });
    expect(await within(dialog).findByText('This user has no MFA to reset')).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByRole('dialog')).toHaveLength(1));
  }, 30_000);

  it('does not offer your own role or disabling yourself', async () => {
    const user = userEvent.setup();
    usersApi();
    renderRoute('/system-settings/user-management');
    await user.click(await screen.findByRole('button', { name: 'Edit ada@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'ada@example.com' });
    expect(within(dialog).getByRole('combobox', { name: 'Role' })).toBeDisabled();
    expect(within(dialog).queryByRole('button', { name: 'Disable' })).not.toBeInTheDocument();
  }, 30_000);
});
