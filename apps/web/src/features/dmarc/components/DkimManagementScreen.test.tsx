import type { DkimSigningDomain, DkimSigningResponse } from '@moat/contracts/dkim-signing';
import type { DkimDomain, DkimResponse } from '@moat/contracts/dmarc';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const PAGE = '/dmarc/dkim-management';
const API = 'GET /api/v1/dmarc/dkim';
const SIGNING = 'GET /api/v1/dkim-signing';
const noSigning = (...domains: string[]): DkimSigningResponse => ({
  domains: domains.map((domain) => ({ domain, enabled: false, keys: [], warnings: [] })),
});
const signedIn = {
  'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
  [SIGNING]: () => jsonResponse(200, noSigning('acme.test', 'new.test')),
};
const answer = (domains: DkimDomain[]): DkimResponse => ({
  checkedAt: '2026-01-15T10:00:00.000Z',
  probed: ['google', 'selector1', 'selector2', 'k1', 's1', 's2', 'default', 'dkim', 'mail'],
  limits: { minRsaBits: 1024, goodRsaBits: 2048, rotateAfterDays: 180, lookbackDays: 180 },
  domains,
});

const key = (bits: number, extra: Partial<NonNullable<DkimDomain['selectors'][number]['key']>> = {}) => ({
  record: `v=DKIM1; k=rsa; p=MIGf${bits}`,
  type: 'rsa' as const,
  bits,
  revoked: false,
  testing: false,
  strict: false,
  hashes: [],
  notes: '',
  ...extra,
});

const ACME: DkimDomain = {
  domain: 'acme.test',
  problems: [],
  selectors: [
    {
      selector: 's1',
      name: 's1._domainkey.acme.test',
      seenIn: ['reports', 'dns'],
      messages: 45,
      passed: 42,
      passRate: 93.3,
      firstSeen: '2025-12-02T00:00:00.000Z',
      lastSeen: '2026-01-10T00:00:00.000Z',
      keyFirstSeen: '2025-12-02T00:00:00.000Z',
      lookup: 'found',
      key: key(1024),
      problems: [{ code: 'rsa_weak', severity: 'warning', selector: 's1', count: 1024, message: 'weak' }],
    },
    {
      selector: 'google',
      name: 'google._domainkey.acme.test',
      seenIn: ['dns'],
      messages: 0,
      passed: 0,
      passRate: null,
      firstSeen: null,
      lastSeen: null,
      keyFirstSeen: '2026-01-15T10:00:00.000Z',
      lookup: 'found',
      key: key(2048, { testing: true }),
      problems: [
        { code: 'testing', severity: 'warning', selector: 'google', count: null, message: 'testing' },
      ],
    },
  ],
  plan: {
    status: 'rotate',
    publish: null,
    nextRotation: '2026-07-14',
    nextSelector: 'google',
    rotations: [
      {
        selector: 's1',
        newSelector: 's2',
        reason: 'weak',
        bits: 1024,
        keyFirstSeen: '2025-12-02T00:00:00.000Z',
        steps: [
          {
            code: 'publish',
            name: 's2._domainkey.acme.test',
            value: 'v=DKIM1; k=rsa; p=<the new public key>',
            days: null,
          },
          { code: 'switch', name: 's2._domainkey.acme.test', value: null, days: null },
          { code: 'keep', name: 's1._domainkey.acme.test', value: null, days: 7 },
          { code: 'revoke', name: 's1._domainkey.acme.test', value: 'v=DKIM1; k=rsa; p=', days: null },
          { code: 'remove', name: 's1._domainkey.acme.test', value: null, days: 7 },
        ],
      },
    ],
  },
};

const EMPTY: DkimDomain = {
  domain: 'new.test',
  selectors: [],
  problems: [{ code: 'no_key', severity: 'warning', selector: null, count: null, message: 'no key' }],
  plan: {
    status: 'publish',
    rotations: [],
    publish: {
      code: 'publish',
      name: 's1._domainkey.new.test',
      value: 'v=DKIM1; k=rsa; p=<the new public key>',
      days: null,
    },
    nextRotation: null,
    nextSelector: null,
  },
};

describe('DMARC → DKIM Management (/dmarc/dkim-management)', () => {
  it('tells an organisation without domains where to add one', async () => {
    stubApi({ ...signedIn, [API]: () => jsonResponse(200, answer([])) });
    renderRoute(PAGE);
    expect(await screen.findByText('No domains to check yet')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open Settings' })).toHaveAttribute(
      'href',
      '/configuration/settings',
    );
  });

  it('shows each selector with its key, where it was seen and its problems in words, and the rotation steps', async () => {
    const user = userEvent.setup();
    const api = stubApi({ ...signedIn, [API]: () => jsonResponse(200, answer([ACME, EMPTY])) });
    renderRoute(PAGE);
    const acme = await screen.findByRole('region', { name: 'acme.test' });
    expect(within(acme).getByText('Rotation due')).toBeInTheDocument();
    const s1 = within(acme).getByRole('region', { name: 'Selector s1' });
    expect(within(s1).getByText('RSA 1024 bits')).toBeInTheDocument();
    expect(within(s1).getByText('Seen in: DMARC reports, DNS')).toBeInTheDocument();
    expect(within(s1).getByText('45 messages signed, 93.3 % passed DKIM')).toBeInTheDocument();
    expect(
      within(s1).getByText(
        "The RSA key at s1._domainkey.acme.test is 1024 bits: weak by today's standards. Rotate to a 2048-bit key.",
      ),
    ).toBeInTheDocument();
    expect(within(s1).queryByText('rsa_weak')).not.toBeInTheDocument();
    const google = within(acme).getByRole('region', { name: 'Selector google' });
    expect(within(google).getByText('Testing (t=y)')).toBeInTheDocument();

    const plan = within(acme).getByRole('region', { name: 'Rotation plan acme.test' });
    expect(within(plan).getByText('Rotate s1 to s2')).toBeInTheDocument();
    expect(within(plan).getByText(/The key at s1 is 1024 bits: weak/)).toBeInTheDocument();
    const steps = within(plan).getAllByRole('listitem');
    expect(steps).toHaveLength(5);
    expect(steps[0]).toHaveTextContent(
      /Create a new 2048-bit RSA key pair.*TXT record at s2\._domainkey\.acme\.test/,
    );
    expect(steps[1]).toHaveTextContent('switch signing to the selector s2');
    expect(steps[2]).toHaveTextContent('Keep the old record at s1._domainkey.acme.test for 7 days');
    expect(steps[3]).toHaveTextContent('v=DKIM1; k=rsa; p=');
    expect(steps[4]).toHaveTextContent('After 7 more days');
    expect(within(plan).getByText(/Next rotation: the key at google, by/)).toBeInTheDocument();
    await user.click(within(steps[0]!).getByRole('button', { name: 'Copy name' }));
    expect(await navigator.clipboard.readText()).toBe('s2._domainkey.acme.test');
    expect(within(steps[0]!).getByRole('button', { name: 'Copied' })).toBeInTheDocument();

    // A domain without keys says what to do.
    const fresh = screen.getByRole('region', { name: 'new.test' });
    expect(within(fresh).getByText('No DKIM key')).toBeInTheDocument();
    expect(
      within(fresh).getByText(/send some mail through Moat, or wait a day for the first DMARC reports/),
    ).toBeInTheDocument();
    expect(within(fresh).getByText(/No DKIM key found for new\.test/)).toBeInTheDocument();
    expect(within(fresh).getByText('s1._domainkey.new.test')).toBeInTheDocument();

    const asked = () => api.calls.filter((call) => call.url.pathname === '/api/v1/dmarc/dkim').length;
    expect(asked()).toBe(1);
    await user.click(screen.getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(asked()).toBe(2));
  });

  it("makes Moat's own signing key, shows the record to publish, and turns signing on with DNS's warning", async () => {
    const user = userEvent.setup();
    const record = 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA';
    const key = {
      selector: 'moat1',
      algorithm: 'rsa-sha256' as const,
      bits: 2048,
      state: 'active' as const,
      recordName: 'moat1._domainkey.new.test',
      recordValue: record,
      published: 'no' as const,
      createdAt: '2026-12-07T10:00:00.000Z',
      activatedAt: '2026-12-07T10:00:00.000Z',
      retiredAt: null,
      removeAfter: null,
    };
    const warning =
      'The RSA key moat1 is not visible in DNS yet: publish a TXT record at moat1._domainkey.new.test with the value shown; publish it before you turn signing on.';
    const made: DkimSigningDomain = { domain: 'new.test', enabled: false, keys: [key], warnings: [warning] };
    const api = stubApi({
      ...signedIn,
      [API]: () => jsonResponse(200, answer([EMPTY])),
      [SIGNING]: () => jsonResponse(200, noSigning('new.test')),
      'POST /api/v1/dkim-signing/new.test/keys': () => jsonResponse(200, made),
      'PUT /api/v1/dkim-signing/new.test/signing': () =>
        jsonResponse(200, {
          ...made,
          enabled: true,
          warnings: [
            warning.replace(
              'publish it before you turn signing on.',
              'receivers fail DKIM for the mail Moat signs with it until it is.',
            ),
          ],
        }),
      'POST /api/v1/dkim-signing/new.test/rotate': () =>
        jsonResponse(409, {
          statusCode: 409,
          code: 'conflict',
          message: 'A rotation of new.test’s RSA key is under way: finish it first',
          details: null,
        }),
    });
    renderRoute(PAGE);
    const fresh = await screen.findByRole('region', { name: 'new.test' });
    const panel = await within(fresh).findByRole('region', { name: 'Signing by Moat new.test' });
    expect(within(panel).getByText('No signing key yet')).toBeInTheDocument();
    expect(within(panel).getByRole('switch', { name: 'Sign mail from new.test' })).not.toBeChecked();

    await user.click(within(panel).getByRole('button', { name: 'Create signing key' }));
    const card = await within(panel).findByRole('region', { name: 'Selector moat1' });
    expect(within(card).getByText('RSA 2048 bits')).toBeInTheDocument();
    expect(within(card).getByText('Current key')).toBeInTheDocument();
    expect(within(card).getByText('Not in DNS yet')).toBeInTheDocument();
    expect(within(card).getByText('moat1._domainkey.new.test')).toBeInTheDocument();
    expect(within(card).getByText(record)).toBeInTheDocument();
    expect(within(panel).getByText(warning)).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ algorithm: 'rsa-sha256' });

    await user.click(within(panel).getByRole('switch', { name: 'Sign mail from new.test' }));
    await waitFor(() =>
      expect(within(panel).getByRole('switch', { name: 'Sign mail from new.test' })).toBeChecked(),
    );
    expect(within(panel).getByText(/receivers fail DKIM for the mail Moat signs/)).toBeInTheDocument();

    // A refused change says why, inline, and the panel stays as it was.
    await user.click(within(panel).getByRole('button', { name: 'Rotate key' }));
    expect(
      await within(panel).findByText(/A rotation of new\.test’s RSA key is under way/),
    ).toBeInTheDocument();
    expect(within(panel).getByRole('region', { name: 'Selector moat1' })).toBeInTheDocument();
  });
});
