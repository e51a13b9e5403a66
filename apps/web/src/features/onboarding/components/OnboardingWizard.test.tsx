import type { DnsCheck, OnboardingChecklist, OnboardingState } from '@moat/contracts/onboarding';
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

const DNS: DnsCheck = {
  domain: 'example.com',
  checks: [
    {
      kind: 'mx',
      status: 'warning',
      found: ['0 mail.protection.outlook.com', '10 mx.moat.test'],
      advice: 'Mail for example.com goes to mail.protection.outlook.com before Moat.',
      suggested: 'example.com. MX 10 mx.moat.test.',
    },
    { kind: 'spf', status: 'ok', found: ['v=spf1 mx -all'], advice: 'SPF is published.', suggested: null },
    {
      kind: 'dmarc',
      status: 'missing',
      found: [],
      advice: 'example.com has no DMARC record.',
      suggested: '_dmarc.example.com. TXT "v=DMARC1; p=quarantine"',
    },
  ],
};

function onboardingApi() {
  let state: OnboardingState = {
    onboarded: false,
    name: 'example.com',
    domains: ['example.com'],
    mx_host: 'mx.moat.test',
    mx_host_usable: true,
    next_hop: null,
    deployment_relay: false,
    pending_domains: [],
  };
  let published = false;
  let user = buildCurrentUser({ role: 'admin', on_boarding_required: true, email: 'ada@example.com' });
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, user),
    'GET /api/v1/onboarding': () => jsonResponse(200, state),
    'GET /api/v1/onboarding/checklist': () => {
      const missing: OnboardingChecklist['missing'] = [
        ...state.pending_domains.map((p) => ({
          kind: 'pending_domain' as const,
          domain: p.domain,
          record: null,
          status: null,
        })),
        { kind: 'record', domain: 'example.com', record: 'mx', status: 'warning' },
        { kind: 'record', domain: 'example.com', record: 'dmarc', status: 'missing' },
        ...(state.next_hop
          ? []
          : [{ kind: 'mail_server' as const, domain: null, record: null, status: null }]),
      ];
      return jsonResponse(200, { checks: [DNS], missing });
    },
    'PUT /api/v1/onboarding/name': (call) => {
      const { name } = call.body as { name: string };
      state = { ...state, name: name.trim() };
      return jsonResponse(200, state);
    },
    'POST /api/v1/onboarding/domains': (call) => {
      const { domain } = call.body as { domain: string };
      if (!domain.includes('.'))
        return errorResponse(400, 'validation_error', `"${domain}" is not a valid mail domain`);
      state = {
        ...state,
        pending_domains: [{ domain, record: `${domain}. TXT "moat-verification=abc123"` }],
      };
      return jsonResponse(200, state);
    },
    'POST /api/v1/onboarding/domains/verify': (call) => {
      const { domain } = call.body as { domain: string };
      if (!published) {
        published = true;
        return errorResponse(409, 'conflict', `No TXT record "moat-verification=abc123" at ${domain} yet.`);
      }
      state = { ...state, domains: [...state.domains, domain], pending_domains: [] };
      return jsonResponse(200, state);
    },
    'POST /api/v1/onboarding/dns_check': () => jsonResponse(200, DNS),
    'PUT /api/v1/onboarding/next_hop': (call) => {
      const { next_hop } = call.body as { next_hop: string | null };
      if (next_hop === 'localhost:25') {
        return errorResponse(
          400,
          'validation_error',
          "That is Moat's own gateway: mail would go round in a loop",
        );
      }
      state = { ...state, next_hop };
      return jsonResponse(200, state);
    },
    'POST /api/v1/onboarding/test_message': () =>
      jsonResponse(200, { delivered: false, via: 'exchange01:25', response: '550 5.1.1 User unknown' }),
    'POST /api/v1/onboarding/complete': () => {
      state = { ...state, onboarded: true };
      user = { ...user, on_boarding_required: false };
      return jsonResponse(200, state);
    },
  });
}

describe('Onboarding (/onboarding)', () => {
  // The whole wizard in one walk: longer than a screen's test.
  it('leads through the name, domains, DNS records and the mail server, then finishes on all-set with what is missing', {
    timeout: 20_000,
  }, async () => {
    const user = userEvent.setup();
    const api = onboardingApi();
    const app = renderRoute('/dashboard');
    await screen.findByRole('heading', { name: 'Set up Moat for your organisation' });
    expect(app.location()).toBe('/onboarding');

    // The organisation is named after the admin's domain until renamed.
    const name = screen.getByRole('textbox', { name: 'Organisation name' });
    expect(name).toHaveValue('example.com');
    await user.clear(name);
    await user.type(name, 'Example Holdings');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(api.calls.find((c) => c.url.pathname.endsWith('/onboarding/name'))?.body).toEqual({
      name: 'Example Holdings',
    });
    await user.click(screen.getByRole('button', { name: 'Next' }));

    // Domains: a refusal is said under the field, once; a good one joins the list.
    const field = screen.getByRole('textbox', { name: 'Add a domain' });
    await user.type(field, 'nodot');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('"nodot" is not a valid mail domain')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.clear(field);
    await user.type(field, 'example.org');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    // Pending until its TXT record is published: the record to publish, and a refusal said once under it.
    expect(await screen.findByText('example.org. TXT "moat-verification=abc123"')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Verify example.org' }));
    expect(
      await screen.findByText('No TXT record "moat-verification=abc123" at example.org yet.'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Verify example.org' }));
    const list = screen.getByRole('list', { name: 'Your domains' });
    expect(await within(list).findByText('example.org')).toBeInTheDocument();
    expect(screen.queryByText(/waits for verification/)).not.toBeInTheDocument();

    // DNS records: each check with what is published and what to publish; the step is not done.
    await user.click(screen.getByRole('button', { name: 'Next' }));
    const dnsStep = screen.getByRole('button', { name: /DNS records/ });
    await waitFor(() => expect(dnsStep).toHaveTextContent('Not done yet'));
    await user.click(await screen.findByRole('button', { name: 'Check records' }));
    expect(await screen.findByText(/goes to mail.protection.outlook.com before Moat/)).toBeInTheDocument();
    expect(screen.getByText('_dmarc.example.com. TXT "v=DMARC1; p=quarantine"')).toBeInTheDocument();
    expect(screen.getByText('Missing')).toBeInTheDocument();
    expect(api.calls.find((c) => c.url.pathname.endsWith('/dns_check'))?.body).toEqual({
      domain: 'example.com',
    });

    // Mail server: the gateway itself is refused under the field; a test message says what the server said.
    await user.click(screen.getByRole('button', { name: 'Next' }));
    const hop = await screen.findByRole('textbox', { name: /Your mail server/ });
    expect(screen.getByRole('button', { name: 'Send test message' })).toBeDisabled();
    await user.type(hop, 'localhost:25');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/Moat's own gateway/)).toBeInTheDocument();
    await user.clear(hop);
    await user.type(hop, 'exchange01:25');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /Send a test message to/ })).toHaveValue('ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send test message' }));
    expect(
      await screen.findByText('The test message did not reach your mail server (exchange01:25)'),
    ).toBeInTheDocument();
    expect(screen.getByText('550 5.1.1 User unknown')).toBeInTheDocument();

    // Passed, but not ticked off: it is not right yet.
    expect(dnsStep).toHaveTextContent('Not done yet');

    await user.click(screen.getByRole('button', { name: 'Finish set-up' }));
    // Not "all set": what is still missing, looked up now.
    await screen.findByRole('heading', { name: 'Set-up saved, but not finished' });
    expect(screen.queryByRole('heading', { name: 'You are all set' })).not.toBeInTheDocument();
    expect(app.location()).toBe('/onboarding/all-set');
    const missing = screen.getByRole('list', { name: 'Still missing' });
    expect(within(missing).getByText('example.com: the MX record should change.')).toBeInTheDocument();
    expect(within(missing).getByText('example.com: the DMARC record is missing.')).toBeInTheDocument();
    expect(screen.getByText('Clean mail is delivered to exchange01:25.')).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Go to the overview' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
  });
});
