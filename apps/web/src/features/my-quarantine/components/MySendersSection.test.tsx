import type { MyMessage } from '@moat/contracts/my-quarantine';
import type { MySender } from '@moat/contracts/my-senders';
import { USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  type RecordedCall,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const held: MyMessage = {
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

const NOT_A_SENDER = 'Enter an email address (name@example.com) or a domain (example.com)';

/** The API of a user's own list, kept in memory: what was added is listed, what was removed is gone. */
function sendersApi(options: { start?: MySender[]; onAdd?: (call: RecordedCall) => Response | null } = {}) {
  let items = options.start ?? [];
  let next = 1;
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
    'GET /api/v1/my_quarantine': () => jsonResponse(200, { items: [held], total: 1 }),
    [`GET /api/v1/my_quarantine/${held.id}`]: () =>
      jsonResponse(200, { ...held, headers: [], body_text: 'Buy now', links: [] }),
    'GET /api/v1/my_senders': () => jsonResponse(200, { items, total: items.length, max: 500 }),
    'POST /api/v1/my_senders': (call) => {
      const refused = options.onAdd?.(call);
      if (refused) return refused;
      const { list, value } = call.body as { list: 'allow' | 'block'; value: string };
      const entry: MySender = {
        id: `00000000-0000-4000-8000-0000000001${String(next++).padStart(2, '0')}`,
        list,
        kind: value.includes('@') ? 'sender' : 'domain',
        value,
        created_at: '2026-11-28T09:00:00.000Z',
      };
      items = [entry, ...items];
      return jsonResponse(200, entry);
    },
    ...Object.fromEntries(
      (options.start ?? []).map((e) => [
        `DELETE /api/v1/my_senders/${e.id}`,
        () => {
          items = items.filter((i) => i.id !== e.id);
          return jsonResponse(200, { deleted: true });
        },
      ]),
    ),
  });
}

async function openSection() {
  renderRoute(USER_INTERACTION_ROUTES.quarantineItems);
  return screen.findByRole('region', { name: 'My allowed and blocked senders' });
}

describe("A plain user's own allowed and blocked senders", () => {
  it('says so when there are none, then blocks a domain typed in its stored form', async () => {
    const user = userEvent.setup();
    const api = sendersApi();
    const section = await openSection();
    expect(
      await within(section).findByText(/You have not allowed or blocked any sender yet/),
    ).toBeInTheDocument();

    await user.type(
      within(section).getByRole('textbox', { name: /Email address or domain/ }),
      ' *.Shop.TEST ',
    );
    await user.click(within(section).getByRole('button', { name: 'Add' }));

    expect(await within(section).findByText('shop.test is now on your block list.')).toBeInTheDocument();
    const table = await within(section).findByRole('table', { name: /Your allowed and blocked senders/ });
    const row = within(table).getByText('shop.test').closest('tr')!;
    expect(within(row).getByText('Blocked')).toBeInTheDocument();
    const posts = api.calls.filter((c) => c.method === 'POST' && c.url.pathname === '/api/v1/my_senders');
    expect(posts.map((c) => c.body)).toEqual([{ list: 'block', value: 'shop.test' }]);
  }, 30_000);

  it("shows what is wrong with a value on the field, once, and the server's reason the same way", async () => {
    const user = userEvent.setup();
    const api = sendersApi({
      onAdd: () =>
        errorResponse(400, 'bad_request', "Your organisation's own addresses can not be blocked here", [
          { field: 'body.value', message: "Your organisation's own addresses can not be blocked here" },
        ]),
    });
    const section = await openSection();
    const field = within(section).getByRole('textbox', { name: /Email address or domain/ });
    await user.type(field, 'not a sender');
    await user.click(within(section).getByRole('button', { name: 'Add' }));
    expect(within(section).getAllByText(NOT_A_SENDER)).toHaveLength(1);
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);

    await user.clear(field);
    await user.type(field, 'boss@example.test');
    await user.click(within(section).getByRole('button', { name: 'Add' }));
    expect(
      await within(section).findByText("Your organisation's own addresses can not be blocked here"),
    ).toBeInTheDocument();
    expect(screen.getAllByText("Your organisation's own addresses can not be blocked here")).toHaveLength(1);
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  }, 30_000);

  it('says why a new sender is refused at the limit', async () => {
    const user = userEvent.setup();
    sendersApi({
      onAdd: () =>
        errorResponse(
          409,
          'conflict',
          'You have 500 senders on your lists, the most there can be. Remove some first.',
        ),
    });
    const section = await openSection();
    await user.selectOptions(within(section).getByRole('combobox', { name: 'List' }), 'allow');
    await user.type(within(section).getByRole('textbox', { name: /Email address or domain/ }), 'a@b.example');
    await user.click(within(section).getByRole('button', { name: 'Add' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent(
      'You have 500 senders on your lists, the most there can be. Remove some first.',
    );
  }, 30_000);

  it('removes a sender after asking', async () => {
    const user = userEvent.setup();
    const entry: MySender = {
      id: '00000000-0000-4000-8000-000000000201',
      list: 'allow',
      kind: 'sender',
      value: 'friend@pals.example',
      created_at: '2026-11-20T09:00:00.000Z',
    };
    const api = sendersApi({ start: [entry] });
    const section = await openSection();
    await user.click(await within(section).findByRole('button', { name: 'Remove friend@pals.example' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove this sender?' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));

    expect(
      await within(section).findByText('friend@pals.example is no longer on your lists.'),
    ).toBeInTheDocument();
    expect(
      await within(section).findByText(/You have not allowed or blocked any sender yet/),
    ).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.url.pathname)).toEqual([
      `/api/v1/my_senders/${entry.id}`,
    ]);
  }, 30_000);

  it("blocks a held message's sender from its preview", async () => {
    const user = userEvent.setup();
    const api = sendersApi();
    const section = await openSection();
    await user.click(await screen.findByRole('button', { name: 'Open Cheap watches' }));
    expect(await screen.findByText('From deals@shop.test')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Block sender' }));

    expect(await screen.findByText('deals@shop.test is now on your block list.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await within(section).findByText('deals@shop.test')).toBeInTheDocument();
    const posts = api.calls.filter((c) => c.method === 'POST' && c.url.pathname === '/api/v1/my_senders');
    expect(posts.map((c) => c.body)).toEqual([{ list: 'block', value: 'deals@shop.test' }]);
  }, 30_000);
});
