import type {
  QuarantineSettings,
  QuarantineSettingsInput,
  ReportSettings,
  ReportSettingsInput,
} from '@moat/contracts/user-interaction-settings';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const QUARANTINE = '/api/v1/user_interaction/quarantine_settings';
const REPORTS = '/api/v1/user_interaction/report_settings';
const ADMIN_A = '0b9b0c9e-3f6e-4a59-9d36-1c2b8a8e2f10';
const ADMIN_B = '1c9b0c9e-3f6e-4a59-9d36-1c2b8a8e2f11';

const QUARANTINE_SETTINGS: QuarantineSettings = {
  approvers: 'admins',
  approver_ids: [],
  approver_candidates: [
    { id: ADMIN_A, email: 'ada@example.com', name: 'Ada Lovelace' },
    { id: ADMIN_B, email: 'bo@example.com', name: '' },
  ],
  verdicts: {
    phishing: { restore_mode: 'phish_request_restore', identification_required: true },
    spam: { restore_mode: 'automatic', identification_required: true },
    suspicious: { restore_mode: 'request', identification_required: true },
  },
  notification_frequency: 'per_message',
  digest_schedule: 'off',
  digest_verdicts: ['phishing', 'spam', 'suspicious'],
  digest_days: null,
  notice_subject: '',
  notice_intro: '',
  digest_subject: '',
  digest_intro: '',
  defaults: {
    notice_subject: 'A message to you was held: {subject}',
    notice_intro: '',
    digest_subject: '{count} message(s) held for you ({period})',
    digest_intro: '',
  },
};

const REPORT_SETTINGS: ReportSettings = {
  button_phishing: true,
  button_safe: true,
  on_report: 'keep',
  receipt_email: false,
  receipt_text: '',
  verdict_email: true,
  confirmed_text: '',
  dismissed_text: '',
  confirm_scope: 'all_copies',
  block_sender: 'ask',
  learn: true,
  defaults: {
    receipt_text: 'Thank you.',
    confirmed_text: 'Removed everywhere.',
    confirmed_text_reported_copy: 'Removed from your quarantine.',
    dismissed_text: 'Marked safe.',
  },
  admin_alerts: true,
};

function api() {
  let quarantine = QUARANTINE_SETTINGS;
  let reports = REPORT_SETTINGS;
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
    [`GET ${QUARANTINE}`]: () => jsonResponse(200, quarantine),
    [`PUT ${QUARANTINE}`]: (call) => {
      quarantine = { ...quarantine, ...(call.body as QuarantineSettingsInput) };
      return jsonResponse(200, quarantine);
    },
    [`GET ${REPORTS}`]: () => jsonResponse(200, reports),
    [`PUT ${REPORTS}`]: (call) => {
      reports = { ...reports, ...(call.body as ReportSettingsInput) };
      return jsonResponse(200, reports);
    },
  });
}
const bodyOf = (calls: ReturnType<typeof api>['calls'], path: string) =>
  calls.find((c) => c.method === 'PUT' && c.url.pathname === path)?.body;

describe('Settings → User Interaction → Quarantine', () => {
  it('names the approvers, tells by digest only, words the notice, and saves it all', async () => {
    const user = userEvent.setup();
    const stub = api();
    renderRoute('/configuration/user-interaction/restore-requests');
    await user.click(await screen.findByRole('radio', { name: 'Only the administrators named below' }));
    // None named yet: said, and nothing can be saved.
    expect(screen.getByText('Name at least one approver.')).toBeInTheDocument();
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Ada Lovelace (ada@example.com)' }));

    const spam = screen.getByRole('region', { name: 'Spam' });
    await user.selectOptions(within(spam).getByRole('combobox', { name: /Restore mode/ }), 'request');
    await user.click(within(spam).getByRole('switch', { name: /Confirm their address first/ }));

    await user.click(screen.getByRole('radio', { name: 'In a digest only' }));
    // A digest only needs a schedule: daily is chosen, off is not offered.
    const schedule = screen.getByRole('combobox', { name: /Quarantine digest/ });
    expect(schedule).toHaveValue('daily');
    expect(within(schedule).queryByRole('option', { name: 'Off' })).not.toBeInTheDocument();
    const digest = screen.getByRole('region', { name: 'What the digest lists' });
    await user.click(within(digest).getByRole('checkbox', { name: 'Phishing' }));
    await user.type(within(digest).getByRole('textbox', { name: /Digest subject/ }), 'Acme: {{count} held');
    const intro = within(digest).getByRole('textbox', { name: /Digest introduction/ });
    await user.type(intro, 'Write to help@acme.example');
    expect(within(digest).getByText(/No web address, host name or email address/)).toBeInTheDocument();
    expect(save).toBeDisabled();
    await user.clear(intro);
    await user.type(intro, 'Here is what we kept aside.');
    await user.click(save);

    expect(await screen.findByText('Saved. Moat uses these settings from now on.')).toBeInTheDocument();
    expect(bodyOf(stub.calls, QUARANTINE)).toEqual({
      approvers: 'named',
      approver_ids: [ADMIN_A],
      verdicts: {
        phishing: { restore_mode: 'phish_request_restore', identification_required: true },
        spam: { restore_mode: 'request', identification_required: false },
        suspicious: { restore_mode: 'request', identification_required: true },
      },
      notification_frequency: 'digest_only',
      digest_schedule: 'daily',
      digest_verdicts: ['spam', 'suspicious'],
      digest_days: null,
      notice_subject: '',
      notice_intro: '',
      digest_subject: 'Acme: {count} held',
      digest_intro: 'Here is what we kept aside.',
    });
  }, 30_000);

  it('tells nobody at all: no digest either, and no wording to set', async () => {
    const user = userEvent.setup();
    const stub = api();
    renderRoute('/configuration/user-interaction/restore-requests');
    await user.click(await screen.findByRole('radio', { name: 'Not at all' }));
    expect(screen.queryByRole('combobox', { name: /Quarantine digest/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: /Notice subject/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved. Moat uses these settings from now on.');
    expect(bodyOf(stub.calls, QUARANTINE)).toMatchObject({
      notification_frequency: 'off',
      digest_schedule: 'off',
    });
  }, 30_000);
});

describe('Settings → User Interaction → Phishing Reports', () => {
  it('sets what the buttons do, the answer a reporter gets and what a confirmation does', async () => {
    const user = userEvent.setup();
    const stub = api();
    renderRoute('/configuration/user-interaction/phishing-reports');
    await user.click(await screen.findByRole('checkbox', { name: 'Report this message as safe' }));
    await user.click(screen.getByRole('radio', { name: 'Hold it for review' }));
    expect(screen.getByText(/The administrators get an alert of new reports/)).toBeInTheDocument();
    const receipt = screen.getByRole('textbox', { name: /On receipt/ });
    await user.type(receipt, 'Thanks! <b>');
    expect(screen.getByText('Plain words only: no < or >, no line breaks.')).toBeInTheDocument();
    await user.clear(receipt);
    await user.type(receipt, 'Thanks, we will look at it today.');
    await user.click(screen.getByRole('switch', { name: /Also email the reporter a receipt/ }));
    await user.click(screen.getByRole('radio', { name: 'The reported copy only' }));
    expect(screen.getByRole('textbox', { name: /When confirmed/ })).toHaveAttribute(
      'placeholder',
      'Removed from your quarantine.',
    );
    await user.click(screen.getByRole('radio', { name: 'Always' }));
    await user.click(screen.getByRole('switch', { name: /Teach the anti-spam engine/ }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved. Moat uses these settings from now on.');
    expect(bodyOf(stub.calls, REPORTS)).toEqual({
      button_phishing: true,
      button_safe: false,
      on_report: 'hold',
      receipt_email: true,
      receipt_text: 'Thanks, we will look at it today.',
      verdict_email: true,
      confirmed_text: '',
      dismissed_text: '',
      confirm_scope: 'reported_copy',
      block_sender: 'always',
      learn: false,
    });
  }, 30_000);
});
