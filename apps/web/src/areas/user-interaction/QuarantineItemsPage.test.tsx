import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildMessage, buildMessageDetail } from '../../test/quarantine-fixtures';
import { buildCurrentUser, errorResponse, jsonResponse, renderRoute, stubApi } from '../../test/render-route';

const PAGE = '/user-interaction/quarantine-item';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };

describe('Quarantined Items (user-interaction/quarantine-item)', () => {
  it('lists the held messages and filters them by verdict', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () =>
        jsonResponse(200, {
          items: [buildMessage(), buildMessage({ subject: 'Trojan', verdict: 'malware' })],
          total: 2,
        }),
    });
    renderRoute(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: 'Quarantined Items' })).toBeInTheDocument();
    const table = await screen.findByRole('table');
    expect(within(table).getByText('Invoice 4711')).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Release Invoice 4711' })).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Release Trojan' })).not.toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Verdict' }), 'phishing');
    await waitFor(() =>
      expect(
        api.calls
          .filter((call) => call.url.pathname === '/api/v1/quarantine/messages')
          .at(-1)
          ?.url.searchParams.get('verdict'),
      ).toBe('phishing'),
    );
  });

  it('releases a message after a confirmation and says so', async () => {
    const user = userEvent.setup();
    const message = buildMessage();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [message], total: 1 }),
      [`POST /api/v1/quarantine/messages/${message.id}/release`]: () =>
        jsonResponse(200, { status: 'restored' }),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Release Invoice 4711' }));
    const dialog = await screen.findByRole('dialog', { name: 'Release this message?' });
    expect(dialog).toHaveTextContent('“Invoice 4711” will be delivered to ana@acme.test.');
    await user.click(within(dialog).getByRole('button', { name: 'Release' }));
    expect(await screen.findByText('Message released')).toBeInTheDocument();
    expect(api.calls.filter((call) => call.url.pathname.endsWith('/release'))).toHaveLength(1);
  });

  it("tells the server's reason when a release is refused", async () => {
    const user = userEvent.setup();
    const message = buildMessage();
    stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [message], total: 1 }),
      [`POST /api/v1/quarantine/messages/${message.id}/release`]: () =>
        errorResponse(405, 'method_not_allowed', 'Malware is never released'),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Release Invoice 4711' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Release' }));
    expect(await screen.findByText('The message could not be released')).toBeInTheDocument();
    expect(screen.getByText('Malware is never released')).toBeInTheDocument();
  });

  it('previews headers and a text body; a message without text says so', async () => {
    const user = userEvent.setup();
    const message = buildMessage();
    stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [message], total: 1 }),
      [`GET /api/v1/quarantine/messages/${message.id}`]: () =>
        jsonResponse(200, buildMessageDetail(message, { body_text: null })),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Preview Invoice 4711' }));
    const drawer = await screen.findByRole('dialog', { name: 'Message preview' });
    expect(await within(drawer).findByText('This message has no text body.')).toBeInTheDocument();
    await user.click(within(drawer).getByRole('button', { name: 'Headers (2)' }));
    expect(within(drawer).getByText('"Billing" <billing@supplier.example>')).toBeInTheDocument();
  });

  it('shows an empty state when nothing is held', async () => {
    stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [], total: 0 }),
    });
    renderRoute(PAGE);
    expect(await screen.findByText('No quarantined messages')).toBeInTheDocument();
  });
});
