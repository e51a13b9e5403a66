import type { MyMessage } from '@moat/contracts/my-quarantine';
import { USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const base: MyMessage = {
  id: '00000000-0000-4000-8000-00000000000a',
  sender: 'deals@shop.test',
  sender_name: 'Shop',
  subject: 'Cheap watches',
  received_at: '2026-11-27T08:00:00.000Z',
  verdict: 'spam',
  reasons: ['Spam score 9'],
  state: 'quarantined',
  attachments: [],
  restore: { mode: 'automatic', status: 'quarantined' },
};
const invoice: MyMessage = {
  ...base,
  id: '00000000-0000-4000-8000-00000000000b',
  subject: 'Odd invoice',
  verdict: 'suspicious',
  restore: { mode: 'request', status: 'quarantined' },
};
const payload: MyMessage = {
  ...base,
  id: '00000000-0000-4000-8000-00000000000c',
  subject: 'Payload',
  verdict: 'malware',
  restore: { mode: 'none', status: 'quarantined' },
};

function myApi() {
  let items = [base, invoice, payload];
  const set = (id: string, status: MyMessage['restore']['status']) => {
    items = items.map((m) => (m.id === id ? { ...m, restore: { ...m.restore, status } } : m));
  };
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
    'GET /api/v1/my_quarantine': () => jsonResponse(200, { items, total: items.length }),
    'GET /api/v1/my_senders': () => jsonResponse(200, { items: [], total: 0, max: 500 }),
    [`GET /api/v1/my_quarantine/${base.id}`]: () =>
      jsonResponse(200, {
        ...base,
        headers: [{ name: 'Subject', value: 'Cheap watches' }],
        body_text: 'Buy now',
        links: [],
      }),
    [`POST /api/v1/my_quarantine/${base.id}/restore`]: () => {
      set(base.id, 'restored');
      return jsonResponse(200, { status: 'restored', message: 'Email restored successfully!' });
    },
    [`POST /api/v1/my_quarantine/${invoice.id}/restore`]: () => {
      set(invoice.id, 'requested');
      return jsonResponse(200, { status: 'requested', message: 'The admin has received your request.' });
    },
  });
}

describe("A plain user's Quarantined Items: their own held mail", () => {
  it('lists it with what the policy allows, previews one, restores one and asks for another', async () => {
    const user = userEvent.setup();
    const api = myApi();
    renderRoute(USER_INTERACTION_ROUTES.quarantineItems);
    const table = await screen.findByRole('table', { name: 'Your held messages' });
    const payloadRow = within(table).getByText('Payload').closest('tr')!;
    expect(within(payloadRow).getByText('Cannot be restored')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Open Cheap watches' }));
    expect(await screen.findByText('Buy now')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Close' }));

    await user.click(screen.getByRole('button', { name: 'Restore Cheap watches' }));
    expect(await screen.findByText('Email restored successfully!')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Ask to restore Odd invoice' }));
    const dialog = await screen.findByRole('dialog', { name: 'Ask an admin to restore it' });
    await user.click(within(dialog).getByRole('button', { name: 'Send request' }));
    expect(within(dialog).getByText('Say why you need it')).toBeInTheDocument();
    await user.type(
      within(dialog).getByRole('textbox', { name: /Why you need this message/ }),
      'From our supplier',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Send request' }));
    expect(await screen.findByText('The admin has received your request.')).toBeInTheDocument();
    const asked = api.calls.filter((c) => c.url.pathname === `/api/v1/my_quarantine/${invoice.id}/restore`);
    expect(asked.map((c) => c.body)).toEqual([{ commentary: 'From our supplier' }]);
    // Never the admin list, and never a permission dialog.
    expect(api.calls.some((c) => c.url.pathname.startsWith('/api/v1/quarantine/'))).toBe(false);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  }, 30_000);
});
