import type { SearchGroup } from '@moat/contracts/console';
import {
  QUICK_SEARCH_DEBOUNCE_MS,
  QUICK_SEARCH_FOCUS_OUT_DEBOUNCE_MS,
  QUICK_SEARCH_PANEL_DELAY_MS,
} from '@moat/contracts/constants';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubShell } from '../../../areas/shell/shell-fixtures';
import { errorResponse, jsonResponse, type RecordedCall, renderRoute } from '../../../test/render-route';

const GROUPS: SearchGroup[] = [
  {
    app_name: 'office365_emails',
    results: [
      {
        name: 'Invoice 4711',
        type: 'email',
        entity_type: 'message',
        entity_id: 'm-1',
        mime: 'message/rfc822',
        description: 'billing@supplier.example → ada@example.com',
      },
      { name: 'Block invoices', type: 'rule', entity_type: 'rule', entity_id: 'r-9', mime: null },
    ],
  },
  { app_name: 'slack', results: [], error: 'Search failed' },
  {
    app_name: 'google_mail',
    results: [{ name: 'ada@example.com', type: 'user', entity_type: 'user', entity_id: 'u-1', mime: null }],
  },
];

let searches: RecordedCall[];

function setUp(answer: () => Response = () => jsonResponse(200, GROUPS)) {
  searches = [];
  stubShell({
    apps: {
      apps: [
        { name: 'office365_emails', state: 'enabled' },
        { name: 'google_mail', state: 'enabled' },
        { name: 'slack', state: 'disabled' },
      ],
    },
    handlers: {
      'GET /api/v1/search': (call) => {
        searches.push(call);
        return answer();
      },
    },
  });
  return renderRoute('/dashboard');
}

const user = () => userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
const field = () => screen.findByRole('combobox', { name: 'Quick search' });
const settle = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
afterEach(() => vi.useRealTimers());

describe('quick search (SPEC §2.4, §5, §7, §9)', () => {
  it('searches 1000 ms after typing stops, with the trimmed keyword, the enabled apps, 8 per category and a month', async () => {
    setUp();
    const input = await field();
    const u = user();
    await u.type(input, '  invoice ');
    await settle(QUICK_SEARCH_DEBOUNCE_MS - 100);
    expect(searches).toHaveLength(0);
    await settle(100);
    await waitFor(() => expect(searches).toHaveLength(1));
    expect(Object.fromEntries(searches[0]?.url.searchParams ?? [])).toEqual({
      nosystem: '1',
      keyword: 'invoice',
      saas: 'office365_emails,google_mail',
      category_limit: '8',
      date_range: 'month',
    });
    expect(input).toHaveAttribute('aria-expanded', 'true');
  });

  it('groups the results by app, drops groups with an error, and goes to the picked result', async () => {
    const app = setUp();
    const u = user();
    await u.type(await field(), 'invoice');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    const list = await screen.findByRole('listbox', { name: 'Search results' });
    expect(
      within(list)
        .getAllByRole('group')
        .map((group) => group.textContent?.split(/(?=Invoice|ada@)/)[0]),
    ).toEqual(['Microsoft 365 Mail', 'Gmail']);
    const microsoft = within(list).getByRole('group', { name: 'Microsoft 365 Mail' });
    expect(within(microsoft).getAllByRole('option')).toHaveLength(2);
    expect(within(list).getByRole('group', { name: 'Gmail' })).toBeInTheDocument();
    expect(within(list).queryByRole('group', { name: 'Slack' })).not.toBeInTheDocument();

    await u.click(within(list).getByRole('option', { name: /Block invoices/ }));
    await waitFor(() => expect(app.location()).toBe('/policy/edit-rule/r-9'));
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });

  it('picks with the arrow keys and Enter', async () => {
    const app = setUp();
    const u = user();
    const input = await field();
    await u.type(input, 'invoice');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    await screen.findByRole('listbox');
    await u.keyboard('{ArrowDown}');
    const first = screen.getByRole('option', { name: /Invoice 4711/ });
    expect(first).toHaveAttribute('aria-selected', 'true');
    expect(input).toHaveAttribute('aria-activedescendant', first.id);
    await u.keyboard('{Enter}');
    await waitFor(() => expect(app.location()).toBe('/profile/email/message/m-1'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile' })).toBeInTheDocument();
  });

  it('runs no search for an empty keyword and clears the results', async () => {
    setUp();
    const u = user();
    const input = await field();
    await u.type(input, 'invoice');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    await screen.findByRole('listbox');
    await u.clear(input);
    await u.type(input, '   ');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    await settle(QUICK_SEARCH_DEBOUNCE_MS * 2);
    expect(searches).toHaveLength(1);
    expect(input).toHaveAttribute('aria-expanded', 'false');
  });

  it("says 'No results' when nothing matches", async () => {
    setUp(() => jsonResponse(200, [{ app_name: 'slack', results: [], error: 'down' }]));
    const u = user();
    await u.type(await field(), 'nothing');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    expect(await screen.findByText('No results')).toBeInTheDocument();
  });

  it("says 'Search service error' when the search fails", async () => {
    setUp(() => errorResponse(502, 'upstream_error', 'search backend down'));
    const u = user();
    await u.type(await field(), 'invoice');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    expect(await screen.findByText('Search service error')).toBeInTheDocument();
  });

  it('closes on Escape and on a click on the backdrop', async () => {
    setUp();
    const u = user();
    const input = await field();
    await u.type(input, 'invoice');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    await screen.findByRole('listbox');
    await u.keyboard('{Escape}');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    expect(input).toHaveFocus();

    await u.type(input, 's');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    await screen.findByRole('listbox');
    fireEvent.click(screen.getByTestId('quick-search-backdrop'));
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });

  it('closes 300 ms after the focus leaves, and shows again 500 ms after the field gets it back', async () => {
    setUp();
    const u = user();
    const input = await field();
    await u.type(input, 'invoice');
    await settle(QUICK_SEARCH_DEBOUNCE_MS);
    await screen.findByRole('listbox');

    act(() => input.blur());
    await settle(QUICK_SEARCH_FOCUS_OUT_DEBOUNCE_MS - 50);
    expect(screen.getByRole('listbox')).toBeInTheDocument();
    await settle(50);
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();

    act(() => input.focus());
    await settle(QUICK_SEARCH_PANEL_DELAY_MS - 50);
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    await settle(50);
    expect(screen.getByRole('listbox')).toBeInTheDocument();
    expect(searches).toHaveLength(1);
  });
});
