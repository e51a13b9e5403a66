import type { RecommendationsResponse } from '@moat/contracts/dmarc';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { decodeDrillDown } from '../../../lib/drill-down';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const PAGE = '/dmarc/domain-recommendations';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };

const answer: RecommendationsResponse = {
  days: 30,
  thresholds: { quarantine: 98, reject: 99, minMessages: 100, minDays: 14 },
  domains: [
    {
      domain: 'acme.test',
      policy: 'none',
      messages: 720,
      alignedRate: 93.3,
      recommendations: [
        {
          code: 'fix_source',
          severity: 'warning',
          params: {
            messages: 48,
            spfDomains: '',
            dkimDomains: 'mailer.example',
            domain: 'acme.test',
            policy: 'none',
          },
          record: null,
          sourceIp: '2001:db8::7',
        },
        {
          code: 'keep_monitoring',
          severity: 'info',
          params: {
            next: 'quarantine',
            rate: 93.3,
            threshold: 98,
            messages: 720,
            minMessages: 100,
            days: 16,
            minDays: 14,
          },
          record: null,
          sourceIp: null,
        },
      ],
    },
    {
      domain: 'new.test',
      policy: null,
      messages: 0,
      alignedRate: null,
      recommendations: [
        {
          code: 'publish_record',
          severity: 'action',
          params: { name: '_dmarc.new.test', address: 'dmarc-reports@new.test' },
          record: { name: '_dmarc.new.test', value: 'v=DMARC1; p=none; rua=mailto:dmarc-reports@new.test' },
          sourceIp: null,
        },
      ],
    },
  ],
};

describe('DMARC → Recommendations (/dmarc/domain-recommendations)', () => {
  it('explains each step in words with its figures, and leads on to the source and the record', async () => {
    stubApi({
      ...signedIn,
      'GET /api/v1/dmarc/recommendations': () => jsonResponse(200, answer),
      'GET /api/v1/dmarc/reverse': () =>
        jsonResponse(200, { names: { '2001:db8::7': 'out.mailer.example' } }),
    });
    renderRoute(PAGE);
    const acme = await screen.findByRole('region', { name: 'acme.test' });
    expect(within(acme).getByText('Policy: none · 93.3 % of authenticated mail aligned')).toBeInTheDocument();
    expect(
      await within(acme).findByText('Fix 2001:db8::7 (out.mailer.example) before enforcing'),
    ).toBeInTheDocument();
    expect(
      within(acme).getByText(
        /sent 48 messages as acme\.test that failed DMARC .* signed with DKIM by mailer\.example, not by acme\.test\./,
      ),
    ).toBeInTheDocument();
    expect(within(acme).getByText('Not ready for quarantine yet')).toBeInTheDocument();
    expect(
      within(acme).getByText(/93\.3 % of the mail your senders authenticate is aligned \(needed: 98 %\)/),
    ).toBeInTheDocument();
    const link = within(acme).getByRole('link', { name: "See this source's reports" });
    const href = new URL(link.getAttribute('href') ?? '', 'http://localhost');
    expect(decodeDrillDown(href.searchParams.get('drillDown'))).toMatchObject({
      ip: '2001:db8::7',
      dmarc: 'fail',
    });

    const fresh = screen.getByRole('region', { name: 'new.test' });
    expect(within(fresh).getByText('Publish a DMARC record')).toBeInTheDocument();
    expect(within(fresh).getByText('Do this')).toBeInTheDocument();
    expect(
      within(fresh).getByText('v=DMARC1; p=none; rua=mailto:dmarc-reports@new.test'),
    ).toBeInTheDocument();
    expect(within(fresh).getByRole('button', { name: 'Copy record' })).toBeInTheDocument();
  });
});
