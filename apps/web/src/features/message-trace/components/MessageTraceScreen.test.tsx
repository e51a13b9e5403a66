import type { MessageTrace } from '@moat/contracts/message-trace';
import { heldMessageTracePath, messageTracePath, ROUTES } from '@moat/contracts/routes';
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

const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const ROW = '00000000-0000-4000-8000-000000000001';
const HELD = '00000000-0000-4000-8000-000000000999';

function buildTrace(overrides: Partial<MessageTrace> = {}): MessageTrace {
  return {
    message: {
      mail_log_id: ROW,
      quarantine_message_id: HELD,
      received_at: '2026-11-20T10:00:00.000Z',
      sender: 'billing@supp1ier.example',
      sender_name: 'Billing',
      recipient: 'ana@acme.test',
      subject: 'Invoice 4711',
      message_id: '<inv@supp1ier.example>',
      verdict: 'malware',
      action: 'quarantined',
      size: 2048,
      delivery: 'none',
    },
    explanation:
      'Held because clamav found Eicar-Test-Signature in invoice.zip; the policy for malware is to quarantine it and notify the recipient.',
    auth: {
      spf: {
        result: 'pass',
        reason: 'spf=pass (mx: domain of supp1ier.example designates 1.2.3.4 as permitted sender)',
      },
      dkim: { result: 'none', reason: 'the message has no DKIM signature' },
      dmarc: { result: 'fail', reason: 'dmarc=fail (p=REJECT)' },
    },
    spam: null,
    timeline: [
      {
        at: '2026-11-20T10:00:00.000Z',
        kind: 'received',
        title: 'Received from 1.2.3.4',
        detail: 'HELO mail.supp1ier.example; TLS TLSv1.3 TLS_AES_256_GCM_SHA384',
        outcome: 'info',
      },
      { at: null, kind: 'authentication', title: 'SPF pass', detail: 'spf=pass', outcome: 'good' },
      {
        at: null,
        kind: 'engine',
        title: 'clamav: malware',
        detail: 'Eicar-Test-Signature in invoice.zip',
        outcome: 'bad',
      },
      {
        at: null,
        kind: 'decision',
        title: 'Decision: malware, quarantined',
        detail: 'policy: malware→quarantine (the default policy)',
        outcome: 'bad',
      },
      {
        at: '2026-11-20T10:00:01.000Z',
        kind: 'hold',
        title: 'Held in quarantine',
        detail: 'the recipient was notified',
        outcome: 'bad',
      },
      {
        at: '2026-11-20T11:00:00.000Z',
        kind: 'request',
        title: 'Release requested by ana@acme.test',
        detail: 'I need it',
        outcome: 'info',
      },
    ],
    ...overrides,
  };
}

describe('Message trace (/mail-explorer/message)', () => {
  it('shows the verdict in plain words, the authentication with reasons and the timeline of a row', async () => {
    stubApi({
      ...signedIn,
      [`GET /api/v1/mail_explorer/${ROW}/trace`]: () => jsonResponse(200, buildTrace()),
    });
    renderRoute(messageTracePath(ROW));
    expect(await screen.findByText(/^Held because clamav found Eicar-Test-Signature/)).toBeInTheDocument();
    // The page frame is the trace's own: its title, and the Mail Explorer above it in the breadcrumb.
    expect(screen.getByRole('heading', { level: 1, name: 'Message trace' })).toBeInTheDocument();
    const path = screen.getByRole('navigation', { name: 'Breadcrumb' });
    expect(within(path).getByRole('link', { name: 'Mail Explorer' })).toHaveAttribute(
      'href',
      ROUTES.mailExplorer,
    );
    const auth = screen.getByRole('region', { name: 'Authentication' });
    expect(within(auth).getByText(/designates 1\.2\.3\.4 as permitted sender/)).toBeInTheDocument();
    expect(within(auth).getByText('fail')).toBeInTheDocument();
    const timeline = screen.getByRole('region', { name: 'Timeline' });
    expect(within(timeline).getByText('Received from 1.2.3.4')).toBeInTheDocument();
    expect(within(timeline).getByText('clamav: malware')).toBeInTheDocument();
    expect(within(timeline).getByText('policy: malware→quarantine (the default policy)')).toBeInTheDocument();
    expect(within(timeline).getByText('Release requested by ana@acme.test')).toBeInTheDocument();
    expect(within(timeline).getAllByText(/time not recorded/)).toHaveLength(3);
  });

  it('opens a held message by its quarantine id', async () => {
    const api = stubApi({
      ...signedIn,
      [`GET /api/v1/quarantine/messages/${HELD}/trace`]: () =>
        jsonResponse(
          200,
          buildTrace({ auth: null, message: { ...buildTrace().message, mail_log_id: null } }),
        ),
    });
    renderRoute(heldMessageTracePath(HELD));
    expect(await screen.findByText(/its session and authentication are not known/)).toBeInTheDocument();
    expect(api.calls.some((c) => c.url.pathname === `/api/v1/quarantine/messages/${HELD}/trace`)).toBe(true);
  });

  it("explains the spam score rule by rule and teaches the engine the admin's judgement", async () => {
    let learned: 'spam' | 'ham' | null = null;
    const spam = (): MessageTrace['spam'] => ({
      score: 4,
      thresholds: { suspicious: 4, spam: 6 },
      engines: [
        {
          engine: 'rspamd',
          score: 2.5,
          // Rules within the make-up Moat read already: they do not count beside Moat's.
          weight: 0,
          rules: [
            {
              name: 'R_SUSPICIOUS_URL',
              score: 2.5,
              description: 'URL that is pointing to a suspicious domain',
            },
          ],
        },
        {
          engine: 'moat_spam',
          score: 4,
          weight: 1,
          rules: [
            { name: 'BAYES_50', score: 3, description: 'The Bayesian classifier rates it 62 % spam-like' },
            {
              name: 'LINK_TO_IP',
              score: 1.5,
              description: 'A link goes to a bare IP address instead of a name',
            },
            { name: 'BAYES_HAM_HINT', score: -1, description: '' },
          ],
        },
      ],
      learned,
      learnable: true,
    });
    const api = stubApi({
      ...signedIn,
      [`GET /api/v1/mail_explorer/${ROW}/trace`]: () =>
        jsonResponse(
          200,
          buildTrace({ spam: spam(), message: { ...buildTrace().message, verdict: 'clean' } }),
        ),
      [`POST /api/v1/mail_explorer/${ROW}/learn`]: (call) => {
        learned = (call.body as { label: 'spam' | 'ham' }).label;
        return jsonResponse(200, { label: learned, outcome: 'learned' });
      },
    });
    renderRoute(messageTracePath(ROW));
    const section = await screen.findByRole('region', { name: 'Spam score' });
    expect(within(section).getByText('Score 4')).toBeInTheDocument();
    expect(within(section).getByText('suspicious from 4, spam from 6')).toBeInTheDocument();
    expect(
      within(section).getByText('rspamd spam filter: +2.5, not counted beside the other engines'),
    ).toBeInTheDocument();
    expect(within(section).getByText("Moat's spam filter: +4")).toBeInTheDocument();
    expect(
      within(section).getByText('A link goes to a bare IP address instead of a name'),
    ).toBeInTheDocument();
    expect(within(section).getByText('+1.5')).toBeInTheDocument();
    // A rule with no words of its own is shown by its name.
    expect(within(section).getAllByText('BAYES_HAM_HINT')).toHaveLength(2);
    await userEvent.click(within(section).getByRole('button', { name: 'Mark as spam' }));
    expect(await within(section).findByText('Taught as spam.')).toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Mark as spam' })).toBeDisabled();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ label: 'spam' });
  });

  it('says so when there is no such message', async () => {
    stubApi({
      ...signedIn,
      [`GET /api/v1/mail_explorer/${ROW}/trace`]: () => errorResponse(404, 'not_found', 'No such message'),
    });
    renderRoute(messageTracePath(ROW));
    expect(await screen.findByText('No such message')).toBeInTheDocument();
  });
});
