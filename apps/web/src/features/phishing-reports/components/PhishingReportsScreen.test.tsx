import type { PhishingReport } from '@moat/contracts/phishing-reports';
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

const PAGE = '/user-interaction/reported-phishing';
const LIST = '/api/v1/phishing_reports';
const ID = '00000000-0000-4000-8000-000000000001';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };

function buildReport(overrides: Partial<PhishingReport> = {}): PhishingReport {
  return {
    id: ID,
    created_at: '2026-11-20T10:00:00.000Z',
    reporter: 'ana@acme.test',
    kind: 'reported_phishing',
    status: 'open',
    block_sender: false,
    decided_at: null,
    message_id: '00000000-0000-4000-8000-000000000099',
    sender: 'payroll@bad.example',
    subject: 'Update your salary details',
    verdict: 'phishing',
    received_at: '2026-11-20T09:00:00.000Z',
    ...overrides,
  };
}

describe('Phishing Reports (/user-interaction/reported-phishing)', () => {
  it('lists the reports and confirms one, blocking the sender when asked', async () => {
    const user = userEvent.setup();
    let confirmed = false;
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () =>
        jsonResponse(200, {
          items: [buildReport(confirmed ? { status: 'confirmed', block_sender: true } : {})],
          total: 1,
        }),
      [`POST ${LIST}/${ID}/confirm`]: () => {
        confirmed = true;
        return jsonResponse(200, { status: 'confirmed', hidden: 2 });
      },
    });
    renderRoute(PAGE);
    const table = await screen.findByRole('table', { name: 'Reported messages' }, { timeout: 10_000 });
    const row = within(table).getAllByRole('row')[1] as HTMLElement;
    expect(within(row).getByText('ana@acme.test')).toBeInTheDocument();
    expect(within(row).getByText('Open')).toBeInTheDocument();
    await user.click(
      within(row).getByRole('button', { name: 'Confirm the report of Update your salary details' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Confirm this report' });
    await user.click(
      within(dialog).getByRole('checkbox', { name: 'Also block the sender payroll@bad.example' }),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(
      await screen.findByText('Report confirmed: 2 held copies removed.', {}, { timeout: 10_000 }),
    ).toBeInTheDocument();
    const post = api.calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({ block_sender: true });
    // The dialog closes (the page behind it is hidden from assistive technology until then).
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), { timeout: 5_000 });
    expect(await screen.findByText('Sender blocked', {}, { timeout: 10_000 })).toBeInTheDocument();
    const updated = within(
      await screen.findByRole('table', { name: 'Reported messages' }, { timeout: 10_000 }),
    ).getAllByRole('row')[1] as HTMLElement;
    expect(within(updated).getByText('Confirmed')).toBeInTheDocument();
    expect(within(updated).queryByRole('button')).not.toBeInTheDocument();
  }, 40_000);

  it('confirms as the organisation set: the reported copy only, the sender always blocked', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildReport()], total: 1 }),
      'GET /api/v1/user_interaction/report_settings': () =>
        jsonResponse(200, {
          button_phishing: true,
          button_safe: true,
          on_report: 'keep',
          receipt_email: false,
          receipt_text: '',
          verdict_email: false,
          confirmed_text: '',
          dismissed_text: '',
          confirm_scope: 'reported_copy',
          block_sender: 'always',
          learn: true,
          defaults: {
            receipt_text: 'a',
            confirmed_text: 'b',
            confirmed_text_reported_copy: 'c',
            dismissed_text: 'd',
          },
          admin_alerts: true,
        }),
      [`POST ${LIST}/${ID}/confirm`]: () => jsonResponse(200, { status: 'confirmed', hidden: 1 }),
    });
    renderRoute(PAGE);
    const table = await screen.findByRole('table', { name: 'Reported messages' }, { timeout: 10_000 });
    const row = within(table).getAllByRole('row')[1] as HTMLElement;
    await user.click(
      within(row).getByRole('button', { name: 'Confirm the report of Update your salary details' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Confirm this report' });
    expect(within(dialog).getByText(/The reported copy of/)).toBeInTheDocument();
    expect(within(dialog).getByText(/The reporter is not told/)).toBeInTheDocument();
    expect(
      within(dialog).getByText(/is blocked too, as your organisation's settings say/),
    ).toBeInTheDocument();
    expect(within(dialog).queryByRole('checkbox')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST' && c.url.pathname.endsWith('/confirm'))?.body).toEqual(
        {
          block_sender: false,
        },
      ),
    );
  }, 30_000);

  it('marks a report safe, and shows the server reason when the decision fails', async () => {
    const user = userEvent.setup();
    stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildReport()], total: 1 }),
      [`POST ${LIST}/${ID}/dismiss`]: () => errorResponse(409, 'conflict', 'The report is confirmed already'),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Mark safe: Update your salary details' }));
    expect(await screen.findByText('The report is confirmed already')).toBeInTheDocument();
  });

  it('filters by status through the address', async () => {
    const api = stubApi({ ...signedIn, [`GET ${LIST}`]: () => jsonResponse(200, { items: [], total: 0 }) });
    renderRoute(`${PAGE}?status=confirmed`);
    await waitFor(() =>
      expect(
        api.calls.some((c) => c.url.pathname === LIST && c.url.searchParams.get('status') === 'confirmed'),
      ).toBe(true),
    );
  });
});

describe('User Interaction dashboard (/user-interaction/dashboard)', () => {
  it('shows the numbers and per-day rows, and saves an alert switch', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/user_interaction/summary': () =>
        jsonResponse(200, {
          days: [
            { day: '2026-11-19', restore_requests: 2, reports: 0 },
            { day: '2026-11-20', restore_requests: 1, reports: 3 },
          ],
          totals: { restore_requests: 3, reports: 3 },
          waiting_requests: 4,
          open_reports: 5,
          decision: { decided: 2, median_seconds: 90, average_seconds: 7200 },
        }),
      'GET /api/v1/alerts/settings': () =>
        jsonResponse(200, { alert_restore_requests: true, alert_reports: true, alert_malware_holds: true }),
      'PUT /api/v1/alerts/settings': (call) => jsonResponse(200, call.body),
    });
    renderRoute('/user-interaction/dashboard');
    expect(await screen.findByText('Waiting restore requests')).toBeInTheDocument();
    expect(screen.getByText('1.5 min')).toBeInTheDocument();
    expect(screen.getByText('2 h')).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Restore requests and reports per day' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    await user.click(await screen.findByRole('switch', { name: 'Messages held for malware' }));
    expect(await screen.findByText('Alert settings saved')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({
      alert_restore_requests: true,
      alert_reports: true,
      alert_malware_holds: false,
    });
  });
});

describe('Modified Attachments (/user-interaction/modified-attachments)', () => {
  it('lists each removed attachment with its message and restore state', async () => {
    stubApi({
      ...signedIn,
      'GET /api/v1/modified_attachments': () =>
        jsonResponse(200, {
          total: 1,
          items: [
            {
              id: ID,
              filename: 'invoice.pdf',
              content_type: 'application/pdf',
              size: 2048,
              state: 'removed',
              message_id: ID,
              received_at: '2026-11-20T09:00:00.000Z',
              sender: 'billing@supplier.example',
              recipient: 'ana@acme.test',
              subject: 'Invoice',
              verdict: 'malware',
              restore_status: 'requested',
            },
          ],
        }),
    });
    renderRoute('/user-interaction/modified-attachments');
    const table = await screen.findByRole('table', { name: 'Attachments removed from delivered messages' });
    const row = within(table).getAllByRole('row')[1] as HTMLElement;
    expect(within(row).getByText('invoice.pdf')).toBeInTheDocument();
    expect(within(row).getByText('Removed')).toBeInTheDocument();
    expect(within(row).getByText('Requested')).toBeInTheDocument();
    expect(within(row).getByText('Malware')).toBeInTheDocument();
  });
});

describe('the User Interaction badge', () => {
  it('shows an admin what waits next to the entry', async () => {
    stubApi({
      ...signedIn,
      'GET /api/v1/alerts/badge': () => jsonResponse(200, { open_reports: 2, waiting_requests: 1, total: 3 }),
      'GET /api/v1/modified_attachments': () => jsonResponse(200, { items: [], total: 0 }),
    });
    renderRoute('/user-interaction/modified-attachments');
    expect(await screen.findByText('3 waiting')).toBeInTheDocument();
  });
});
