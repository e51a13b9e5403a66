import type { Vip } from '@moat/contracts/vips';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const PAGE = '/configuration/security-exceptions/anti-phishing';
const LIST = '/api/v1/vips';
const page = {
  'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
  'GET /api/v1/exceptions': () => jsonResponse(200, { items: [], total: 0 }),
};

function buildVip(overrides: Partial<Vip> = {}): Vip {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'Jane Doe',
    emails: ['jane@acme.test'],
    created_by: 'admin@acme.test',
    created_at: '2026-12-01T10:00:00.000Z',
    updated_at: '2026-12-01T10:00:00.000Z',
    ...overrides,
  };
}

// Rendering the whole app with its dialogs is slow on a shared CPU: room beyond the default 5 s.
describe('Protected people (Security Settings → Exceptions → Anti-Phishing)', { timeout: 30_000 }, () => {
  it('says what the list is for when empty, checks the form before sending, and adds a person', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...page,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [], total: 0, max: 500 }),
      [`POST ${LIST}`]: (call) => jsonResponse(200, buildVip(call.body as Partial<Vip>)),
    });
    renderRoute(PAGE);
    expect(await screen.findByText('No protected people yet', {}, { timeout: 10_000 })).toBeInTheDocument();
    // The empty state says what the list does.
    expect(
      screen.getByText(/Mail from outside that uses one of these names is held as impersonation\. Add/),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add person' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a protected person' });
    await user.type(within(dialog).getByRole('combobox', { name: /Name/ }), 'Jo');
    await user.type(within(dialog).getByRole('textbox', { name: 'Address 1' }), 'jane@');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(within(dialog).getByText('Enter a name of at least 3 characters')).toBeInTheDocument();
    expect(within(dialog).getByText('Enter an email address, such as name@example.com')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);

    await user.type(within(dialog).getByRole('combobox', { name: /Name/ }), 'hn  Smith');
    await user.clear(within(dialog).getByRole('textbox', { name: 'Address 1' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Address 1' }), 'John@Acme.test');
    await user.click(within(dialog).getByRole('button', { name: 'Add another address' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Address 2' }), 'john@home.example');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'POST')).toBe(true));
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'John Smith',
      emails: ['john@acme.test', 'john@home.example'],
    });
    expect(await screen.findByText('John Smith is protected')).toBeInTheDocument();
  });

  it('says a name already on the list on the name field', async () => {
    const user = userEvent.setup();
    stubApi({
      ...page,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildVip()], total: 1, max: 500 }),
      [`POST ${LIST}`]: () =>
        jsonResponse(409, {
          statusCode: 409,
          code: 'conflict',
          message: 'jane doe is on the list already',
          details: null,
          reqId: 'req-test',
        }),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Add person' }, { timeout: 10_000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a protected person' });
    const name = within(dialog).getByRole('combobox', { name: /Name/ });
    await user.type(name, 'jane doe');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await within(dialog).findByText('jane doe is on the list already')).toBeInTheDocument();
    expect(name).toHaveAttribute('aria-invalid', 'true');
  });

  it("changes a person's addresses, and removes a person only after confirmation", async () => {
    const user = userEvent.setup();
    const vip = buildVip({ emails: ['jane@acme.test', 'jane@old.example'] });
    const api = stubApi({
      ...page,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [vip], total: 1, max: 500 }),
      [`PUT ${LIST}/${vip.id}`]: (call) => jsonResponse(200, { ...vip, ...(call.body as Partial<Vip>) }),
      [`DELETE ${LIST}/${vip.id}`]: () => jsonResponse(200, { deleted: true }),
    });
    renderRoute(PAGE);
    const table = await screen.findByRole('table', { name: 'Protected people' }, { timeout: 10_000 });
    expect(within(table).getByText('jane@old.example')).toBeInTheDocument();
    await user.click(within(table).getByRole('button', { name: 'Edit Jane Doe' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a protected person' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove address 2' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({
      name: 'Jane Doe',
      emails: ['jane@acme.test'],
    });
    expect(await screen.findByText('Jane Doe saved')).toBeInTheDocument();

    await user.click(within(table).getByRole('button', { name: 'Delete Jane Doe' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove this person?' });
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'DELETE')).toBe(true));
    expect(await screen.findByText('Jane Doe removed')).toBeInTheDocument();
  });
});
