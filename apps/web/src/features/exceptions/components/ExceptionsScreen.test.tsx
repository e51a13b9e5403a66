import type { ExceptionEntry } from '@moat/contracts/exceptions';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  jsonResponse,
  type RecordedCall,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const PAGE = '/configuration/security-exceptions/external/anti-malware';
const LIST = '/api/v1/exceptions';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const lastQuery = (calls: RecordedCall[]) =>
  Object.fromEntries(
    calls.filter((call) => call.url.pathname === LIST && call.method === 'GET').at(-1)?.url.searchParams ??
      [],
  );

let n = 0;
function buildEntry(overrides: Partial<ExceptionEntry> = {}): ExceptionEntry {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    list: 'block',
    kind: 'sha256',
    scope: 'anti_malware',
    value: 'a'.repeat(64),
    comment: 'dropper from the March wave',
    created_by: 'admin@acme.test',
    created_at: '2025-03-01T10:00:00.000Z',
    expires_at: null,
    expired: false,
    ...overrides,
  };
}

// Rendering the whole app with its dialogs is slow on a shared CPU: room beyond the default 5 s.
describe('Exceptions (Security Settings → Exceptions → Anti-Malware)', { timeout: 30_000 }, () => {
  it("lists the page's entries with who added them and their expiry, and says when an allow entry counts", async () => {
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () =>
        jsonResponse(200, {
          items: [
            buildEntry(),
            buildEntry({
              list: 'allow',
              kind: 'domain',
              scope: 'all',
              value: 'partner.example',
              comment: '',
              expires_at: '2025-02-01T00:00:00.000Z',
              expired: true,
            }),
          ],
          total: 2,
        }),
    });
    renderRoute(PAGE);
    const table = await screen.findByRole('table', { name: 'Allow and block entries' }, { timeout: 10_000 });
    expect(lastQuery(api.calls)).toMatchObject({ scope: 'anti_malware', sort: 'created_at', dir: 'desc' });
    expect(
      screen.getByText(/An allow entry counts only when the sender proves its domain/),
    ).toBeInTheDocument();
    const rows = within(table).getAllByRole('row');
    expect(within(rows[1] as HTMLElement).getByText('dropper from the March wave')).toBeInTheDocument();
    expect(within(rows[1] as HTMLElement).getByText('admin@acme.test')).toBeInTheDocument();
    expect(within(rows[1] as HTMLElement).getByText('Never')).toBeInTheDocument();
    expect(within(rows[2] as HTMLElement).getByText('Expired')).toBeInTheDocument();
    expect(within(rows[2] as HTMLElement).getByText('All engines')).toBeInTheDocument();
  });

  it('checks the value as it is typed and adds an entry with its comment and expiry', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [], total: 0 }),
      [`POST ${LIST}`]: (call) =>
        jsonResponse(200, buildEntry({ ...(call.body as Partial<ExceptionEntry>), expired: false })),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Add exception' }, { timeout: 10_000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Add exception' });
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Kind' }), 'sender');
    const value = within(dialog).getByRole('textbox', { name: /Value/ });
    await user.type(value, 'not an address');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(within(dialog).getByText('Enter an email address, such as name@example.com')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);

    await user.clear(value);
    await user.type(value, 'Bad@Spam.Example');
    expect(within(dialog).getByText('Stored as bad@spam.example')).toBeInTheDocument();
    await user.type(within(dialog).getByRole('textbox', { name: 'Comment' }), 'phishing wave');
    const next = new Date(Date.now() + 7 * 86_400_000);
    const day = `${next.getFullYear()}-${String(next.getMonth() + 1).padStart(2, '0')}-${String(next.getDate()).padStart(2, '0')}`;
    const expires = within(dialog).getByLabelText(/Expires on/);
    await user.type(expires, day);
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'POST')).toBe(true));
    const body = api.calls.find((c) => c.method === 'POST')?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      list: 'block',
      kind: 'sender',
      scope: 'anti_malware',
      value: 'bad@spam.example',
      comment: 'phishing wave',
    });
    expect(new Date(String(body.expires_at)).getDate()).toBe(next.getDate());
    expect(await screen.findByText('Entry added: bad@spam.example')).toBeInTheDocument();
  });

  it('deletes an entry only after confirmation', async () => {
    const user = userEvent.setup();
    const entry = buildEntry();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [entry], total: 1 }),
      [`DELETE ${LIST}/${entry.id}`]: () => jsonResponse(200, { deleted: true }),
    });
    renderRoute(PAGE);
    await user.click(
      await screen.findByRole('button', { name: `Delete the entry ${entry.value}` }, { timeout: 10_000 }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Delete this entry?' });
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Delete entry' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'DELETE')).toBe(true));
    expect(await screen.findByText('Entry deleted')).toBeInTheDocument();
  });

  it("imports a CSV file and lists the server's row errors when nothing was imported", async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [], total: 0 }),
      [`POST ${LIST}/import`]: () =>
        jsonResponse(400, {
          statusCode: 400,
          code: 'bad_request',
          message: 'Nothing was imported: 1 problem in the file',
          details: [{ field: 'line 3', message: 'value Enter a domain, such as example.com' }],
          reqId: 'req-test',
        }),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Import CSV' }, { timeout: 10_000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Import entries from CSV' });
    const file = new File(['list,kind,value\nblock,domain,ok.example\nblock,domain,bad domain\n'], 'x.csv', {
      type: 'text/csv',
    });
    await user.upload(within(dialog).getByLabelText('CSV file'), file);
    await user.click(within(dialog).getByRole('button', { name: 'Import' }));
    expect(
      await within(dialog).findByText('line 3: value Enter a domain, such as example.com'),
    ).toBeInTheDocument();
    const sent = api.calls.find((c) => c.url.pathname === `${LIST}/import`)?.body as { csv: string };
    expect(sent.csv).toContain('bad domain');
  });
});
