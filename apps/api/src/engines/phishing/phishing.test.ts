import { describe, expect, it } from 'vitest';
import { createAntiPhishing, phishingEvidence, phishingVerdict } from '../anti-phishing.ts';
import { engineInputOf } from '../engine-input.ts';
import type { EngineInput } from '../types.ts';
import { brandImitatedBy, brandOfDisplayName, isBrandDomain } from './brands.ts';

/** A message as a sender writes it: headers, then an HTML body. */
function message(headers: Record<string, string>, html: string): Buffer {
  const lines = Object.entries({
    To: 'ana@acme.example',
    Date: 'Tue, 01 Dec 2026 10:00:00 +0000',
    'Message-ID': '<m1@sender.example>',
    'MIME-Version': '1.0',
    'Content-Type': 'text/html; charset=utf-8',
    ...headers,
  }).map(([k, v]) => `${k}: ${v}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${html}\r\n`);
}

const tenant: EngineInput['tenant'] = {
  domains: ['acme.example'],
  people: [{ name: 'Ana Lima', email: 'ana@acme.example' }],
  vips: [{ name: 'Carla Mendes', emails: ['carla@acme.example', 'carla.mendes@gmail.com'] }],
  partners: ['globex-logistics.com'],
};

async function judge(raw: Buffer, more: Partial<EngineInput> = {}) {
  const input = { ...(await engineInputOf(raw, { tenant })), ...more };
  const evidence = phishingEvidence(input);
  return { ...phishingVerdict(evidence), rules: evidence.map((e) => e.name), evidence };
}

describe('brand impersonation', () => {
  it('holds the lure that got through as phishing: "Microsoft 365" from micros0ft-login.example, a link showing login.microsoftonline.com', async () => {
    const raw = message(
      { From: '"Microsoft 365" <security@micros0ft-login.example>', Subject: 'Unusual sign-in activity' },
      '<p>We detected unusual sign-in activity. Verify your account within 24 hours.</p>' +
        '<a href="https://micros0ft-login.example/owa/auth">https://login.microsoftonline.com/</a>',
    );
    const result = await judge(raw);
    expect(result.verdict).toBe('phishing');
    expect(result.rules).toEqual(
      expect.arrayContaining(['BRAND_DISPLAY_NAME', 'BRAND_LOOKALIKE_SENDER', 'LINK_TEXT_BRAND_HOST']),
    );
    // Each piece of evidence is a finding of its own, in words, with its points.
    const findings = await createAntiPhishing().scan(await engineInputOf(raw, { tenant }));
    expect(findings).toContainEqual({
      engine: 'anti_phishing',
      verdict: 'phishing',
      reason: 'Link text names login.microsoftonline.com (Microsoft) but leads to micros0ft-login.example',
      points: 3.5,
      rule: 'LINK_TEXT_BRAND_HOST',
    });
  });

  it("leaves the brand's own mail alone: Microsoft from accountprotection.microsoft.com, Amazon from amazon.de, a DocuSign envelope", async () => {
    for (const [from, href] of [
      [
        '"Microsoft account team" <account-security-noreply@accountprotection.microsoft.com>',
        'https://account.live.com/activity',
      ],
      ['"Amazon.de" <versandbestaetigung@amazon.de>', 'https://www.amazon.de/gp/css/order-history'],
      [
        '"Jane Roe via Docusign" <dse_na4@docusign.net>',
        'https://na4.docusign.net/Signing/EmailStart.aspx?a=1',
      ],
    ] as const) {
      const raw = message(
        { From: from, Subject: 'Review your recent activity' },
        `<p>Please sign in to review.</p><a href="${href}">Review activity</a>`,
      );
      expect((await judge(raw)).verdict, from).toBe('clean');
    }
  });

  it('names brands as readers see them, and domains that imitate them', () => {
    expect(brandOfDisplayName('Micr0soft Office 365 Team')?.brand).toBe('Microsoft');
    expect(brandOfDisplayName('Apple Support')?.brand).toBe('Apple');
    expect(brandOfDisplayName('Jane Apple')).toBeNull();
    // Invisible characters that split a name for filters only, and full-width letters.
    expect(brandOfDisplayName('Micro\u200bsoft Account Team')?.brand).toBe('Microsoft');
    expect(brandOfDisplayName('Pay\u00adPal')?.brand).toBe('PayPal');
    expect(brandOfDisplayName('\uff30\uff41\uff59\uff30\uff41\uff4c')?.brand).toBe('PayPal');
    expect(brandOfDisplayName('Teams Notification')?.brand).toBe('Microsoft');
    expect(brandOfDisplayName('The Outlook Newsletter Editors')).toBeNull();
    for (const domain of [
      'paypa1.com',
      'secure-paypal.net',
      'paypalsecure.com',
      'micros0ft-login.example',
      'rnicrosoft.com',
      'docusign.account-verify.example',
      'paypal.com.secure-login.example',
      'dhl-express-track.example',
      'chase-alerts-secure.example', // a brand whose name is a word, beside attack words
      'xn--pypal-4ve.com', // pаypal with a Cyrillic а
    ]) {
      expect(brandImitatedBy(domain), domain).not.toBeNull();
    }
    for (const domain of [
      'appleinsider.com',
      'paypal.com',
      'mail.paypal.com',
      'amazon.co.uk',
      'outlooksecure.com',
      'citi.umich.edu',
      'rain-cloud.com',
      'pick-ups.example',
    ]) {
      expect(brandImitatedBy(domain), domain).toBeNull();
    }
    expect(isBrandDomain('email.microsoft.com', brandOfDisplayName('Microsoft')!)).toBe(true);
  });
});

describe("the tenant's people, VIPs and partners", () => {
  it('holds a VIP named from free mail, also spelled a little differently, but not from their own private address', async () => {
    for (const name of ['Carla Mendes', 'Carla Mendez', 'Mendes, Carla', 'C. Mendes', 'Carla Mendes CEO']) {
      const raw = message(
        { From: `"${name}" <ceo.office.mail@gmail.com>`, Subject: 'Are you available?' },
        '<p>I need a quick favour.</p>',
      );
      expect((await judge(raw)).rules, name).toContain('VIP_IMPERSONATION');
      expect((await judge(raw)).verdict, name).toBe('phishing');
    }
    const own = message(
      { From: '"Carla Mendes" <carla.mendes@gmail.com>', Subject: 'From my phone' },
      '<p>See you at 9.</p>',
    );
    expect((await judge(own)).verdict).toBe('clean');
    const other = message({ From: '"Carlos Mendoza" <cm@outside.example>', Subject: 'Hello' }, '<p>Hi.</p>');
    expect((await judge(other)).verdict).toBe('clean');
  });

  it("holds lookalikes of the tenant's domain and of a partner's, from the sender and in links", async () => {
    const own = message({ From: '"IT Desk" <it@acme-example.com>', Subject: 'Password reset' }, '<p>Hi</p>');
    expect((await judge(own)).rules).toContain('LOOKALIKE_OWN_DOMAIN');
    const partner = message(
      { From: '"Accounts" <ar@globex-logistlcs.com>', Subject: 'Invoice 4411' },
      '<p>Hi</p>',
    );
    expect((await judge(partner)).rules).toContain('LOOKALIKE_PARTNER_DOMAIN');
    expect((await judge(partner)).verdict).toBe('phishing');
    const fromPartner = message(
      { From: '"Accounts" <ar@globex-logistics.com>', Subject: 'Invoice 4411' },
      '<p>Hi</p>',
    );
    expect((await judge(fromPartner)).verdict).toBe('clean');
    const link = message(
      { From: '"Newsletter" <news@vendor.example>', Subject: 'News' },
      '<a href="https://acme-example-sso.com/login">Sign in to the portal</a>',
    );
    expect((await judge(link)).rules).toContain('LINK_LOOKALIKE_OWN_DOMAIN');
  });

  it('suspects a stranger joining a conversation to ask for a change of bank details, and replies diverted to free mail', async () => {
    const raw = message(
      {
        From: '"Tom Baker" <tom@new-supplier.example>',
        'Reply-To': 'tom.baker.accounts@gmail.com',
        Subject: 'RE: Invoice 2291',
        'In-Reply-To': '<abc@acme.example>',
      },
      '<p>Please note our updated bank details for this payment.</p>',
    );
    const result = await judge(raw, { senderHistory: { address: 0, domain: 0 } });
    expect(result.rules).toEqual(
      expect.arrayContaining(['REPLY_TO_FREE_MAIL', 'FIRST_TIME_SENDER_REPLY', 'PAYMENT_REQUEST']),
    );
    expect(result.verdict).toBe('phishing');
    // The same correspondent known for months: only the diverted reply and the payment words.
    const known = await judge(raw, { senderHistory: { address: 12, domain: 40 } });
    expect(known.rules).not.toContain('FIRST_TIME_SENDER_REPLY');
  });
});

describe('names of the organisation and of its partners', () => {
  it("suspects the tenant's or a partner's name as the display name of another domain", async () => {
    const own = message({ From: '"Acme IT Support" <it@help-desk.example>', Subject: 'Ticket' }, '<p>Hi</p>');
    expect((await judge(own)).rules).toContain('OWN_NAME_FROM_OUTSIDE');
    const partner = message(
      {
        From: '"Globex Logistics - Accounts" <ar@globex-trading.example>',
        'Reply-To': 'globex.ar@outlook.com',
        Subject: 'Remittance',
      },
      '<p>Our bank account has changed, please use the new IBAN below.</p>',
    );
    const result = await judge(partner);
    expect(result.rules).toEqual(
      expect.arrayContaining(['PARTNER_NAME_FROM_ELSEWHERE', 'REPLY_TO_FREE_MAIL', 'PAYMENT_REQUEST']),
    );
    expect(result.verdict).toBe('phishing');
    const real = message(
      { From: '"Globex Logistics - Accounts" <ar@globex-logistics.com>', Subject: 'Remittance' },
      '<p>Paid, thanks.</p>',
    );
    expect((await judge(real)).verdict).toBe('clean');
  });
});

describe('links', () => {
  it("suspects a brand's voice whose every link leads away from the brand, and addresses written into a query", async () => {
    const raw = message(
      { From: '"DHL Express" <info@bakery-rossi.example>', Subject: 'Your parcel is held' },
      '<a href="https://ad.doubleclick.net/ddm/trackclk/N1;dc_trk=1;?https://parcel-fee.example/pay">Pay and release</a>',
    );
    const result = await judge(raw);
    expect(result.rules).toEqual(
      expect.arrayContaining([
        'BRAND_DISPLAY_NAME',
        'BRAND_LINKS_ELSEWHERE',
        'BRAND_CREDENTIAL_LINK',
        'LINK_REDIRECT',
      ]),
    );
    expect(result.verdict).toBe('phishing');
  });

  it('sees the tricks links use to hide where they go', async () => {
    const raw = message(
      { From: '"Billing" <billing@shop.example>', Subject: 'Your order' },
      [
        '<a href="https://bit.ly/3abc">Track</a>',
        '<a href="https://invoice-view-7731.web.app/">Invoice</a>',
        '<a href="https://login.microsoftonline.com@evil.example/">Sign in</a>',
        '<a href="data:text/html;base64,PGgxPkhpPC9oMT4=">Open</a>',
        '<a href="https://www.google.com/url?q=https://evil.example/x">Document</a>',
        '<a href="http://198.51.100.7/login">Portal</a>',
      ].join(' '),
    );
    const result = await judge(raw);
    expect(result.rules).toEqual(
      expect.arrayContaining([
        'LINK_SHORTENER',
        'LINK_FREE_HOSTING',
        'LINK_USERINFO',
        'DATA_LINK',
        'LINK_REDIRECT',
        'LINK_TO_IP',
      ]),
    );
    expect(result.verdict).toBe('phishing');
  });

  it('lets an ordinary newsletter through: tracking redirects of its own, brands named in passing', async () => {
    const raw = message(
      { From: '"Tech Weekly" <news@techweekly.example>', Subject: 'Microsoft and Google report earnings' },
      '<p>This week Microsoft and Google reported earnings.</p>' +
        '<a href="https://click.techweekly.example/c?u=https%3A%2F%2Ftechweekly.example%2Farticle">Read more</a>' +
        '<a href="https://techweekly.example/unsubscribe">Unsubscribe</a>',
    );
    expect((await judge(raw)).verdict).toBe('clean');
  });
});

/** What the gateway hands the engines for mail whose From domain proved itself. */
const dmarcPass = { auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass', authenticationResults: '' } };

describe("hard ham: brands' and newsletters' own mail through their trackers", () => {
  it("counts a brand's documented sending and click-tracking domains as the brand's, not as lookalikes", async () => {
    expect(isBrandDomain('wellsfargoemail.com', brandOfDisplayName('Wells Fargo')!)).toBe(true);
    expect(brandImitatedBy('epl.paypal-communication.com')).toBeNull();
    expect(brandImitatedBy('dropbox-mktg.com')).toBeNull();
    // Built the same way by an attacker, they are still lookalikes.
    expect(brandImitatedBy('paypal-communications.example')?.brand).toBe('PayPal');

    const wellsFargo = await judge(
      message(
        {
          From: 'Wells Fargo <wellsfargo@wellsfargoemail.com>',
          Subject: 'Earn 3X points',
          'List-Unsubscribe': '<https://click.wellsfargoemail.com/unsub>',
        },
        '<p>Your card earns 3X points.</p><a href="https://click.wellsfargoemail.com/?qs=8f3c2a91">wellsfargo.com</a>',
      ),
      dmarcPass,
    );
    expect(wellsFargo).toMatchObject({ verdict: 'clean', rules: [] });
    const paypal = await judge(
      message(
        { From: 'PayPal <paypal@mail.paypal.com>', Subject: 'Your statement is available' },
        '<p>Your October statement is ready.</p><a href="https://epl.paypal-communication.com/T/v6000001928c1f0a/">www.paypal.com</a>',
      ),
      dmarcPass,
    );
    expect(paypal).toMatchObject({ verdict: 'clean', rules: [] });
  });

  it("does not call an authenticated brand's link to its own site through a mailing service's tracker a lie", async () => {
    const raw = message(
      { From: 'GitHub <noreply@github.com>', Subject: 'Your weekly digest' },
      '<a href="https://u4471902.ct.sendgrid.net/ls/click?upn=u001.Kz7vQ2pL9x">github.com/acme/api</a>',
    );
    expect((await judge(raw, dmarcPass)).rules).not.toContain('LINK_TEXT_BRAND_HOST');
    // Unauthenticated, the same mail proves nothing: the text names GitHub and the link leads elsewhere.
    expect((await judge(raw)).rules).toContain('LINK_TEXT_BRAND_HOST');
  });

  it("lets a newsletter's own click tracker pass readers on, and shows brands' hosts through it, as the sender's links", async () => {
    const raw = message(
      {
        From: 'The Cloud Brief <issue@cloudbrief.example>',
        Subject: 'The Cloud Brief #212',
        'List-Unsubscribe': '<https://links.cloudbrief.example/unsubscribe/7Qk2vX9p>',
      },
      '<p>Microsoft made passkeys the default sign-in method for new Entra ID tenants this week.</p>' +
        '<a href="https://links.cloudbrief.example/c/a1?url=https%3A%2F%2Flearn.microsoft.com%2Fentra%2Fpasskeys">learn.microsoft.com/entra/passkeys</a>' +
        '<a href="https://links.cloudbrief.example/c/a2?url=https%3A%2F%2Fexample.org%2Fpost">github.com/cloudbrief/runners</a>',
    );
    const authenticated = await judge(raw, dmarcPass);
    expect(authenticated).toMatchObject({ verdict: 'clean' });
    expect(authenticated.rules).not.toContain('LINK_REDIRECT');
    // The second link's onward address is not the host its text shows: through the sender's own
    // tracker that is worth a point, not the 3.5 of a link that lies.
    expect(authenticated.evidence).toContainEqual({
      name: 'LINK_TEXT_BRAND_HOST',
      score: 1,
      description:
        "Link text names github.com (GitHub) but goes through links.cloudbrief.example, the sender's click tracker, which does not say where it leads",
    });
    // From a sender that proved nothing, the redirect and the link that lies are what they were.
    expect((await judge(raw)).rules).toEqual(
      expect.arrayContaining(['LINK_REDIRECT', 'LINK_TEXT_BRAND_HOST', 'BRAND_IN_BODY']),
    );
  });

  it("reads brands named in an authenticated newsletter's subject and opening as mentions, not claims", async () => {
    const raw = message(
      {
        From: 'Harbor Lane Coffee <hello@harborlanecoffee.example>',
        Subject: 'Winter Reserve is here (and now on Amazon, too)',
        'List-Unsubscribe': '<https://harborlanecoffee.us21.list-manage.com/unsubscribe?u=5f9a>',
      },
      '<p>You can now find our blends on Amazon, and our shop takes PayPal.</p>' +
        '<a href="https://harborlanecoffee.us21.list-manage.com/track/click?u=5f9a&id=7a1b">Shop now</a>',
    );
    expect((await judge(raw, dmarcPass)).rules).toEqual([]);
    expect((await judge(raw)).rules).toContain('BRAND_IN_SUBJECT');
  });

  it('still holds a brand voice sent through a compromised mailing-service account', async () => {
    const raw = message(
      {
        From: 'Microsoft 365 Message Center <notifications@peakview-realty.example>',
        Subject: '4 incoming messages held for your review',
      },
      '<p>4 incoming messages were held and have not been delivered to your inbox.</p>' +
        '<a href="https://u2290417.ct.sendgrid.net/ls/click?upn=u001.Qm4rT8yW">Review held messages</a>',
    );
    const result = await judge(raw, dmarcPass);
    expect(result.rules).toEqual(
      expect.arrayContaining(['BRAND_DISPLAY_NAME', 'BRAND_CREDENTIAL_LURE', 'BRAND_LINKS_ELSEWHERE']),
    );
    expect(result.verdict).toBe('phishing');
  });
});

describe('lookalikes and brand hosts', () => {
  it('reads attack words with an i in them (login, signin, verify) after folding, as the domain is folded', () => {
    expect(brandImitatedBy('apple-signin-help.example')?.brand).toBe('Apple');
    expect(brandImitatedBy('slack-login.example')?.brand).toBe('Slack');
    expect(brandImitatedBy('chase-verify.example')?.brand).toBe('Chase');
    expect(brandImitatedBy('zoom-video-tips.example')).toBeNull();
  });

  it("does not count a page in a brand's hosting service (an S3 bucket) as leading to the brand", async () => {
    const result = await judge(
      message(
        {
          From: 'Amazon Prime <prime@member-renewals.example>',
          Subject: 'Your Prime membership could not be renewed',
        },
        '<p>We were unable to charge your card.</p>' +
          '<a href="https://prime-renewal-2026.s3.us-east-1.amazonaws.com/index.html">Update payment method</a>',
      ),
    );
    expect(result.rules).toEqual(
      expect.arrayContaining([
        'BRAND_DISPLAY_NAME',
        'BRAND_LINKS_ELSEWHERE',
        'BRAND_CREDENTIAL_LINK',
        'LINK_FREE_HOSTING',
      ]),
    );
    expect(result.verdict).toBe('phishing');
  });
});

describe('hostile input', () => {
  it('judges pathological messages: thousands of unclosed img tags, a huge link text, deep subdomains', async () => {
    const html =
      '<img '.repeat(20_000) +
      `<a href="https://${'a.'.repeat(2_000)}example/">${'b.'.repeat(50_000)}!</a>` +
      `<a href="https://x.example/?url=${'https%3A%2F%2F'.repeat(5_000)}">x</a>`;
    const raw = message(
      { From: `"${'Microsoft '.repeat(500)}" <a@b.example>`, Subject: 'Re: '.repeat(1_000) },
      html,
    );
    const input = await engineInputOf(raw, { tenant });
    // A quadratic pattern would hold this test far past its timeout; linear ones judge it at once.
    const rules = phishingEvidence(input).map((e) => e.name);
    expect(rules).toContain('BRAND_DISPLAY_NAME');
    expect(rules).toContain('BRAND_LINKS_ELSEWHERE');
  });
});
