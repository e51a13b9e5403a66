import type { BannerPreview, SmartBanners, SmartBannersInput } from '@moat/contracts/smart-banners';
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

const URL = '/api/v1/smart_banners';
const PATH = '/user-interaction/configuration/smart-banners';

function buildBanners(): SmartBanners {
  const style = (
    colour: 'red' | 'yellow' | 'orange',
    action: SmartBanners['verdicts']['spam']['action'],
  ) => ({
    text: '',
    colour,
    subject_tag: '',
    banner_on_delivery: action !== 'deliver',
    action,
    default_text: 'Caution: the default words.',
  });
  return {
    verdicts: {
      phishing: style('red', 'quarantine'),
      spam: style('yellow', 'deliver_banner'),
      suspicious: style('orange', 'strip'),
    },
    senders: { skip_allow_listed: false, skip_internal: false },
  };
}

const PREVIEW: BannerPreview = {
  subject: '[Check] Your parcel',
  from: 'Parcel <track@parcel.example>',
  to: 'ana@acme.test',
  bannered: true,
  html: '<!doctype html><html><body><p>Banner here</p></body></html>',
};

function bannersApi() {
  let stored = buildBanners();
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
    [`GET ${URL}`]: () => jsonResponse(200, stored),
    [`GET ${URL}/samples`]: () =>
      jsonResponse(200, {
        items: [
          {
            id: '7b2c6a4e-1111-4222-8333-944445555666',
            received_at: '2026-11-20T10:00:00.000Z',
            recipient: 'ana@acme.test',
            sender: 'track@parcel.example',
            subject: 'Your parcel',
            verdict: 'suspicious',
          },
        ],
      }),
    [`POST ${URL}/preview`]: () => jsonResponse(200, PREVIEW),
    [`PUT ${URL}`]: (call) => {
      const body = call.body as SmartBannersInput;
      const next = buildBanners();
      for (const v of ['phishing', 'spam', 'suspicious'] as const) {
        next.verdicts[v] = {
          ...next.verdicts[v],
          ...body.verdicts[v],
          action:
            next.verdicts[v].action === 'deliver_banner' && !body.verdicts[v].banner_on_delivery
              ? 'deliver'
              : next.verdicts[v].action,
        };
      }
      stored = { ...next, senders: body.senders };
      return jsonResponse(200, stored);
    },
  });
}

describe('Smart Banners (/user-interaction/configuration/smart-banners)', () => {
  it("sets each verdict's banner in the policy's terms and saves them all at once", async () => {
    const user = userEvent.setup();
    const api = bannersApi();
    renderRoute(PATH);
    const spam = await screen.findByRole('region', { name: 'Spam' });
    expect(within(spam).getByText('The policy: Deliver with a warning banner.')).toBeInTheDocument();
    // A verdict the policy holds says so, with the way to the Policy screen.
    const phishing = screen.getByRole('region', { name: 'Phishing' });
    expect(within(phishing).getByText('Not in use')).toBeInTheDocument();
    expect(
      within(phishing).getByRole('link', { name: 'Change it on the Policy screen' }),
    ).toBeInTheDocument();

    const save = screen.getByRole('button', { name: 'Save banners' });
    expect(save).toBeDisabled();
    const text = within(spam).getByRole('textbox', { name: /Banner text/ });
    await user.type(text, 'Ads: see www.ads.example');
    expect(within(spam).getByText(/No web address, host name or email address/)).toBeInTheDocument();
    expect(save).toBeDisabled();
    await user.clear(text);
    await user.type(text, 'Probably an advert.');
    await user.click(within(spam).getByRole('radio', { name: 'Grey' }));
    await user.type(within(spam).getByRole('textbox', { name: /Subject tag/ }), '[[Ad]');
    await user.click(
      within(spam).getByRole('switch', { name: /Add this banner when a spam message is delivered/ }),
    );
    await user.click(screen.getByRole('switch', { name: /Senders of your own domains/ }));
    await user.click(save);

    expect(
      await screen.findByText('Banners saved. The gateway uses them for the next message.'),
    ).toBeInTheDocument();
    const put = api.calls.find((c) => c.method === 'PUT' && c.url.pathname === URL);
    expect(put!.body).toEqual({
      verdicts: {
        phishing: { text: '', colour: 'red', subject_tag: '', banner_on_delivery: true },
        spam: { text: 'Probably an advert.', colour: 'grey', subject_tag: '[Ad]', banner_on_delivery: false },
        suspicious: { text: '', colour: 'orange', subject_tag: '', banner_on_delivery: true },
      },
      senders: { skip_allow_listed: false, skip_internal: true },
    });
    expect(within(spam).getByText('Not in use')).toBeInTheDocument();
  }, 30_000);

  it('previews a chosen message with the settings on screen, in a frame that runs and loads nothing', async () => {
    const user = userEvent.setup();
    const api = bannersApi();
    renderRoute(PATH);
    const frame = await screen.findByTitle('The message as its recipient would see it');
    expect(frame).toHaveAttribute('sandbox', '');
    expect(frame.getAttribute('srcdoc')).toBe(PREVIEW.html);
    expect(screen.getByText('[Check] Your parcel')).toBeInTheDocument();
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'Message' }),
      '7b2c6a4e-1111-4222-8333-944445555666',
    );
    await user.click(screen.getByRole('radio', { name: 'Spam' }));
    const suspicious = screen.getByRole('region', { name: 'Suspicious' });
    await user.type(within(suspicious).getByRole('textbox', { name: /Banner text/ }), 'Look twice.');
    await waitFor(() => {
      const asked = api.calls
        .filter((c) => c.method === 'POST' && c.url.pathname === `${URL}/preview`)
        .map((c) => c.body as { message_id: string | null; verdict: string; settings: SmartBannersInput });
      expect(asked).toContainEqual(
        expect.objectContaining({
          message_id: '7b2c6a4e-1111-4222-8333-944445555666',
          verdict: 'spam',
          settings: expect.objectContaining({
            verdicts: expect.objectContaining({
              suspicious: expect.objectContaining({ text: 'Look twice.' }),
            }),
          }),
        }),
      );
    });
    // Nothing is saved by previewing.
    expect(api.calls.some((c) => c.method === 'PUT')).toBe(false);
  }, 30_000);

  it("says the server's refusal", async () => {
    const user = userEvent.setup();
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
      [`GET ${URL}`]: () => jsonResponse(200, buildBanners()),
      [`GET ${URL}/samples`]: () => jsonResponse(200, { items: [] }),
      [`POST ${URL}/preview`]: () => jsonResponse(200, PREVIEW),
      [`PUT ${URL}`]: () => errorResponse(400, 'validation_error', 'The banner text is not plain words'),
    });
    renderRoute(PATH);
    const spam = await screen.findByRole('region', { name: 'Spam' });
    expect(await screen.findByText(/the preview uses the built-in example/)).toBeInTheDocument();
    await user.type(within(spam).getByRole('textbox', { name: /Subject tag/ }), '[[Ad]');
    await user.click(screen.getByRole('button', { name: 'Save banners' }));
    expect(await screen.findByText('The banner text is not plain words')).toBeInTheDocument();
  }, 30_000);
});
