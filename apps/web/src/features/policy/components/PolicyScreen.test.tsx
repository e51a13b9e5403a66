import type { Policy, WhatIf } from '@moat/contracts/policy';
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

const POLICY = '/api/v1/policy';
const WHAT_IF = '/api/v1/policy/what_if';
const signedInAs = (overrides: Parameters<typeof buildCurrentUser>[0] = {}) => ({
  'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser(overrides)),
});

function buildPolicy(overrides: Partial<Policy> = {}): Policy {
  return {
    verdicts: {
      phishing: {
        action: 'quarantine',
        restore_mode: 'phish_request_restore',
        identification_required: true,
      },
      malware: { action: 'quarantine', restore_mode: 'none', identification_required: true },
      spam: { action: 'deliver_banner', restore_mode: 'automatic', identification_required: true },
      suspicious: { action: 'deliver_banner', restore_mode: 'request', identification_required: true },
    },
    overrides: [],
    spam_thresholds: { suspicious: 4, spam: 6 },
    editable: true,
    ...overrides,
  };
}

const WHAT_IF_ANSWER: WhatIf = {
  days: 7,
  considered: 14,
  changed: 12,
  changes: [
    { verdict: 'suspicious', from: 'deliver_banner', to: 'quarantine', count: 9 },
    { verdict: 'suspicious', from: 'strip', to: 'quarantine', count: 3 },
  ],
  sample: [
    {
      id: 'm1',
      received_at: '2026-11-20T10:00:00.000Z',
      recipient: 'ana@acme.test',
      sender: 'bob@outside.test',
      subject: 'Your parcel',
      verdict: 'suspicious',
      from: 'deliver_banner',
      to: 'quarantine',
    },
  ],
};
const bodiesOf = (calls: RecordedCall[], method: string, path: string) =>
  calls.filter((c) => c.method === method && c.url.pathname === path).map((c) => c.body);

describe('Policy (/policy)', () => {
  it('shows what a change would do before saving it, and saves only after confirmation', async () => {
    const user = userEvent.setup();
    let stored = buildPolicy();
    const api = stubApi({
      ...signedInAs(),
      [`GET ${POLICY}`]: () => jsonResponse(200, stored),
      [`POST ${WHAT_IF}`]: () => jsonResponse(200, WHAT_IF_ANSWER),
      [`PUT ${POLICY}`]: (call) => {
        // As the API: the actions saved, each verdict's restore mode as it was.
        const body = call.body as Pick<Policy, 'overrides' | 'spam_thresholds'> & {
          verdicts: Record<keyof Policy['verdicts'], { action: Policy['verdicts']['spam']['action'] }>;
        };
        const verdicts = { ...stored.verdicts };
        for (const v of Object.keys(verdicts) as Array<keyof Policy['verdicts']>)
          verdicts[v] = { ...verdicts[v], action: body.verdicts[v].action };
        stored = { ...stored, ...body, verdicts, editable: true };
        return jsonResponse(200, stored);
      },
    });
    renderRoute('/policy');
    const suspicious = await screen.findByRole('region', { name: 'Suspicious' });
    const save = screen.getByRole('button', { name: 'Save…' });
    expect(save).toBeDisabled();
    await user.selectOptions(
      within(suspicious).getByRole('combobox', { name: 'Gateway action' }),
      'quarantine',
    );
    // The restore mode is shown here and set in Settings → User Interaction → Quarantine.
    expect(within(suspicious).getByText(/Recipient requests, admin restores/)).toBeInTheDocument();
    expect(within(suspicious).queryByRole('combobox', { name: 'Restore mode' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Smart Banners' })).toHaveAttribute(
      'href',
      '/user-interaction/configuration/smart-banners',
    );
    // The spam score thresholds: a spam threshold below the suspicious one is pointed out.
    const spamFrom = screen.getByRole('textbox', { name: 'Spam from' });
    await user.clear(spamFrom);
    await user.type(spamFrom, '3');
    expect(screen.getByText('The spam threshold is at least the suspicious one')).toBeInTheDocument();
    await user.type(spamFrom, '.5');
    await user.clear(spamFrom);
    await user.type(spamFrom, '7.5');
    expect(screen.queryByText('The spam threshold is at least the suspicious one')).not.toBeInTheDocument();
    await user.click(save);

    const dialog = await screen.findByRole('dialog', { name: 'Save this policy?' });
    expect(
      within(dialog).getByText('In the last 7 days this would have changed 12 messages:'),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByText('9 Suspicious: Deliver with a warning banner → Quarantine and notify'),
    ).toBeInTheDocument();
    expect(within(dialog).getByText('Your parcel')).toBeInTheDocument();
    const proposed = bodiesOf(api.calls, 'POST', WHAT_IF)[0] as Policy;
    expect(proposed.verdicts.suspicious.action).toBe('quarantine');
    expect(bodiesOf(api.calls, 'PUT', POLICY)).toHaveLength(0);

    await user.click(within(dialog).getByRole('button', { name: 'Save policy' }));
    expect(
      await screen.findByText('Policy saved. The gateway uses it for the next message.'),
    ).toBeInTheDocument();
    const [saved] = bodiesOf(api.calls, 'PUT', POLICY) as Policy[];
    expect(saved!.verdicts.suspicious.action).toBe('quarantine');
    // Only what this screen sets: the actions (no restore mode, banner or digest).
    expect(saved!.verdicts.suspicious).toEqual({ action: 'quarantine' });
    expect(Object.keys(saved!).sort()).toEqual(['overrides', 'spam_thresholds', 'verdicts']);
    expect(saved!.spam_thresholds).toEqual({ suspicious: 4, spam: 7.5 });
  }, 30_000);

  it('adds and removes overrides, and shows the server’s reasons when it refuses the policy', async () => {
    const user = userEvent.setup();
    stubApi({
      ...signedInAs(),
      [`GET ${POLICY}`]: () => jsonResponse(200, buildPolicy()),
      [`POST ${WHAT_IF}`]: () =>
        jsonResponse(400, {
          statusCode: 400,
          code: 'bad_request',
          message: 'Invalid request',
          details: [{ field: 'body.overrides.0.value', message: '"nope" is not an email address' }],
          reqId: 'r1',
        }),
    });
    renderRoute('/policy');
    await user.click(await screen.findByRole('button', { name: 'Add override' }));
    const first = screen.getByRole('group', { name: 'Override 1' });
    await user.type(within(first).getByRole('textbox', { name: 'Recipient address' }), 'nope');
    await user.click(screen.getByRole('button', { name: 'Save…' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('"nope" is not an email address')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Remove override 1' }));
    expect(screen.queryByRole('group', { name: 'Override 1' })).not.toBeInTheDocument();
  }, 30_000);

  it('is read-only for a user who may only view the policy', async () => {
    stubApi({
      ...signedInAs({ role: 'user', view_policy: true }),
      [`GET ${POLICY}`]: () => jsonResponse(200, buildPolicy({ editable: false })),
    });
    renderRoute('/policy');
    expect(await screen.findByText('View only')).toBeInTheDocument();
    const spam = screen.getByRole('region', { name: 'Spam' });
    expect(within(spam).getByRole('combobox', { name: 'Gateway action' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save…' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add override' })).not.toBeInTheDocument();
  });

  it('opens a quick-search rule link focused on that verdict', async () => {
    stubApi({
      ...signedInAs(),
      [`GET ${POLICY}`]: () => jsonResponse(200, buildPolicy()),
    });
    renderRoute('/policy/edit-rule/phishing');
    const phishing = await screen.findByRole('region', { name: 'Phishing' });
    await waitFor(() => expect(phishing).toHaveFocus());
  });

  it('says so when the policy cannot be loaded', async () => {
    stubApi({
      ...signedInAs(),
      [`GET ${POLICY}`]: () => errorResponse(500, 'internal_error', 'Something went wrong'),
    });
    renderRoute('/policy');
    expect(await screen.findByText('The policy could not be loaded')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
