import type { AddOn, AddOns } from '@moat/contracts/add-ons';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const none = (id: AddOn['id']): AddOn => ({ id, in_edition: false, active: false, last_request: null });
const LIST: AddOns = {
  provider_reachable: true,
  items: [none('dmarc'), none('iraas'), none('sspm'), none('archiving'), none('phishing_training')],
};

describe('the Add-ons Store', () => {
  it('lists every add-on with where it stands', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
      'GET /api/v1/add_ons': () => jsonResponse(200, LIST),
    });
    renderRoute('/add-ons-store');
    const dmarc = await screen.findByRole('region', { name: 'DMARC' });
    expect(within(dmarc).getByText('Not part of this edition')).toBeInTheDocument();
    expect(within(dmarc).getByRole('link', { name: 'DMARC' })).toHaveAttribute('href', '/dmarc/add-on-dmarc');
    expect(screen.getAllByText('Not part of this edition')).toHaveLength(5);
  });

  it('asks the provider for an add-on this edition lacks, with a note, and shows when it did', async () => {
    const user = userEvent.setup();
    let list = LIST;
    const stub = stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
      'GET /api/v1/add_ons': () => jsonResponse(200, list),
      'POST /api/v1/add_ons/archiving/request': () => {
        list = {
          ...list,
          items: list.items.map((a) =>
            a.id === 'archiving'
              ? { ...a, last_request: { at: '2026-11-25T09:00:00.000Z', by: 'ada@example.com' } }
              : a,
          ),
        };
        return jsonResponse(200, list);
      },
    });
    renderRoute('/add-ons-store/add-on-archiving');
    expect(await screen.findByText(/does not include the Archiving module/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Turn on/ })).not.toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: /A note for your provider/ }), 'For 40 people.');
    await user.click(screen.getByRole('button', { name: 'Ask my provider' }));
    expect(
      await screen.findByText('Your provider was asked. A representative will contact you.'),
    ).toBeInTheDocument();
    expect(screen.getByText(/Your provider was asked on .* by ada@example.com\./)).toBeInTheDocument();
    const call = stub.calls.find(
      (c) => c.method === 'POST' && c.url.pathname === '/api/v1/add_ons/archiving/request',
    );
    expect(call!.body).toEqual({ message: 'For 40 people.' });
  }, 30_000);

  it('turns on an add-on this edition ships', async () => {
    const user = userEvent.setup();
    let list: AddOns = {
      ...LIST,
      items: LIST.items.map((a) => (a.id === 'dmarc' ? { ...a, in_edition: true } : a)),
    };
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
      'GET /api/v1/add_ons': () => jsonResponse(200, list),
      'POST /api/v1/add_ons/dmarc/activate': () => {
        list = { ...list, items: list.items.map((a) => (a.id === 'dmarc' ? { ...a, active: true } : a)) };
        return jsonResponse(200, list);
      },
    });
    renderRoute('/dmarc/add-on-dmarc');
    await user.click(await screen.findByRole('button', { name: 'Turn on DMARC' }));
    expect(await screen.findByText('DMARC is on for your organisation.')).toBeInTheDocument();
    expect(screen.getByText('Active')).toBeInTheDocument();
  }, 30_000);

  it('lets a non-admin look but not ask', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
      'GET /api/v1/add_ons': () => jsonResponse(200, LIST),
      'POST /api/v1/add_ons/sspm/request': () =>
        errorResponse(403, 'insufficient_privileges', 'Insufficient privileges'),
    });
    renderRoute('/add-ons-store/add-on-sspm');
    expect(await screen.findByText('An administrator can ask your provider for it.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Ask my provider' })).not.toBeInTheDocument();
  });
});
