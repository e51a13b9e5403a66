import { describe, expect, it } from 'vitest';
import { engineInputOf } from '../engine-input.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../types.ts';
import { classify, MemoryTable } from './bayes.ts';
import { clueWords, createEmbeddedSpam, MAX_LEARNED_TOKENS } from './embedded.ts';
import { messageFacts } from './message-facts.ts';
import { decodeModel, encodeModel, shippedModel } from './model.ts';
import { RULES } from './rules.ts';
import { tokenKey, tokensOf } from './tokens.ts';

/** The embedded anti-spam engine's parts (issue 13): classifier, model file, tokens, rules. */

const crlf = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n`);

const inputOf = (raw: Buffer, spamThresholds = DEFAULT_SPAM_THRESHOLDS) =>
  engineInputOf(raw, { spamThresholds });

async function rulesOf(raw: Buffer): Promise<string[]> {
  const input = await inputOf(raw);
  const facts = messageFacts(raw);
  const { subject, text, html } = input.parsed;
  return RULES.filter((r) =>
    r.test({ facts, subject, text, html, links: input.links, auth: input.auth }),
  ).map((r) => r.name);
}

describe('the Bayesian classifier', () => {
  const keys = (words: string[]) => words.map(tokenKey);

  it('knows nothing without both kinds of mail, and leans the way its clues lean', () => {
    const table = new MemoryTable();
    expect(classify(keys(['cheap']), [table])).toEqual({ probability: 0.5, clues: [] });
    for (let i = 0; i < 20; i++) table.learn(keys(['cheap', 'pills', `spam${i}`]), 'spam');
    for (let i = 0; i < 20; i++) table.learn(keys(['meeting', 'agenda', `ham${i}`]), 'ham');
    expect(classify(keys(['cheap', 'pills']), [table]).probability).toBeGreaterThan(0.99);
    expect(classify(keys(['meeting', 'agenda']), [table]).probability).toBeLessThan(0.01);
    // Unknown words are no clue at all.
    expect(classify(keys(['zebra']), [table])).toEqual({ probability: 0.5, clues: [] });
  });

  it('adds tables: what a tenant learned counts with the shipped model', () => {
    const base = new MemoryTable();
    base.learn(keys(['hello']), 'ham');
    base.learn(keys(['offer']), 'spam');
    const own = new MemoryTable();
    for (let i = 0; i < 10; i++) own.learn(keys(['zentrolux']), 'spam');
    expect(classify(keys(['zentrolux']), [base]).clues).toEqual([]);
    expect(classify(keys(['zentrolux']), [base, own]).probability).toBeGreaterThan(0.9);
  });

  it('takes back exactly what it learned', () => {
    const table = new MemoryTable();
    table.learn(keys(['a1', 'b2']), 'spam');
    table.learn(keys(['a1']), 'ham');
    table.learn(keys(['a1', 'b2']), 'spam', -1);
    expect(table.nspam).toBe(0);
    expect(table.counts(tokenKey('a1'))).toEqual([0, 1]);
    expect(table.counts(tokenKey('b2'))).toBeUndefined();
  });

  it('writes and reads the model file format, and ships a model trained on the corpus', () => {
    const table = new MemoryTable();
    table.learn(keys(['x1', 'y2', 'z3']), 'spam');
    table.learn(keys(['x1']), 'ham');
    const back = decodeModel(encodeModel(table));
    expect([back.nspam, back.nham]).toEqual([1, 1]);
    expect([...back.packed].sort()).toEqual([...table.packed].sort());
    const shipped = shippedModel();
    // The training part of spam-1, easy-ham-1 and hard-ham-1 (two thirds of them).
    expect(shipped.nspam).toBeGreaterThan(300);
    expect(shipped.nham).toBeGreaterThan(1_700);
    expect(shipped.packed.size).toBeGreaterThan(10_000);
  });
});

describe('tokens', () => {
  it('reads words, the subject, the sender, links and HTML, each once', async () => {
    const raw = crlf([
      'From: "Cheap Meds" <offers@pharma.example>',
      'To: ana@acme.test',
      'Subject: Great offer inside',
      'X-Mailer: Blaster 2.0',
      'Content-Type: text/html',
      '',
      '<p style="font-size:1px">offer offer</p><a href="http://192.0.2.9/buy">Buy now</a> 売ります',
    ]);
    const input = await inputOf(raw);
    const tokens = tokensOf({
      facts: messageFacts(raw),
      subject: input.parsed.subject,
      text: input.parsed.text,
      html: input.parsed.html,
      links: input.links,
    });
    expect(tokens).toEqual(
      expect.arrayContaining([
        'subject:great',
        'subject:offer',
        'from:name:cheap',
        'from:domain:pharma.example',
        'mailer:blaster',
        'url:ip',
        'proto:http',
        'html:p',
        'style:font-size:1px',
        'offer',
        'cjk:売り',
      ]),
    );
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

describe('clues in words', () => {
  it('says what a token is', () => {
    expect(clueWords('subject:money')).toBe('"money" in the subject');
    expect(clueWords('url:ip')).toBe('a link to an IP address');
    expect(clueWords('url:path:claim')).toBe('"claim" in a link');
    expect(clueWords('from:name:cheap')).toBe('"cheap" in the sender\'s name');
    expect(clueWords('html:font:color')).toBe('HTML <font color>');
    expect(clueWords('click')).toBe('"click"');
  });
});

describe('the structural rules', () => {
  it('name what they see: IP links, hidden links, hidden text, base64 text, a multipart without parts', async () => {
    expect(
      await rulesOf(
        crlf([
          'From: a@b.test',
          'Subject: Hi',
          'Content-Type: text/html',
          '',
          '<a href="http://192.0.2.9/x">http://bank.example/login</a> <a href="http://user@evil.example/">x</a>',
          '<span style="display:none">hidden</span>',
        ]),
      ),
    ).toEqual(
      expect.arrayContaining([
        'LINK_TO_IP',
        'MISMATCHED_LINK_TEXT',
        'OBFUSCATED_URL',
        'HTML_INVISIBLE_TEXT',
        'HTML_ONLY',
      ]),
    );
    expect(
      await rulesOf(
        crlf([
          'From: a@b.test',
          'Subject: Hi',
          'Date: Fri, 27 Nov 2026 10:00:00 +0000',
          'Message-ID: <1@b.test>',
          'Content-Type: text/plain; charset=us-ascii',
          'Content-Transfer-Encoding: base64',
          '',
          Buffer.from('Plain words in disguise').toString('base64'),
        ]),
      ),
    ).toEqual(['BASE64_TEXT']);
    expect(
      await rulesOf(crlf(['From: a@b.test', 'Subject: Hi', 'Content-Type: multipart/mixed', '', 'no parts'])),
    ).toEqual(expect.arrayContaining(['BOGUS_MULTIPART', 'MISSING_DATE', 'MISSING_MESSAGE_ID']));
  });

  it('see bulk senders’ habits: a padded subject, shouting, a date without a zone, a made-up Message-ID, urgency', async () => {
    const shouting = Array.from({ length: 12 }, () => 'ORDER YOUR FREE sample today').join(' ');
    expect(
      await rulesOf(
        crlf([
          'From: a@b.test',
          'Subject: Your offer                 8237',
          'Date: Sat, 7 Sep 2002 17:58:28',
          'Message-ID: <57.883554.549391>',
          'X-Priority: 1 (Highest)',
          '',
          shouting,
        ]),
      ),
    ).toEqual(
      expect.arrayContaining([
        'SUBJECT_PADDED_TAG',
        'BODY_SHOUTING',
        'DATE_NO_TIMEZONE',
        'MESSAGE_ID_NO_AT',
        'X_PRIORITY_HIGH',
      ]),
    );
    // The same message written the way mail programs write it: none of them.
    expect(
      await rulesOf(
        crlf([
          'From: a@b.test',
          'Subject: Your offer 8237',
          'Date: Sat, 7 Sep 2002 17:58:28 +0100',
          'Message-ID: <57.883554.549391@b.test>',
          'X-Priority: 3 (Normal)',
          '',
          'Order your free sample today, and tell me what you think of it.',
        ]),
      ),
    ).toEqual([]);
  });

  it('reads the parts of a message of endless "--" lines only so far', () => {
    const raw = Buffer.from(
      `Content-Type: multipart/mixed; boundary=x\r\n\r\n${'--x\r\n\r\n'.repeat(50_000)}`,
    );
    expect(messageFacts(raw).parts.length).toBeLessThanOrEqual(200);
  });
});

describe('the embedded engine', () => {
  it('explains its score: the classifier names its strongest clues, each rule its points', async () => {
    const engine = createEmbeddedSpam();
    const spammy = crlf([
      'From: "Dr. Smith" <12345678@cash.example>',
      'Subject: MAKE MONEY FAST!!!',
      'Content-Type: text/html',
      '',
      '<p>Dear friend, you have been selected to receive a FREE offer. Click here to claim your cash',
      'prize now. Limited time offer, act now! Remove yourself from our mailing list by replying',
      'with remove in the subject. This is not spam. Order today and save 50% on your order!</p>',
      '<a href="http://192.0.2.9/claim">Claim now</a>',
    ]);
    const [finding] = await engine.scan(await inputOf(spammy));
    expect(finding).toMatchObject({ engine: 'moat_spam', verdict: 'spam' });
    expect(finding!.score).toBeGreaterThanOrEqual(6);
    expect(finding!.rules![0]).toMatchObject({ name: 'BAYES_99', score: 6 });
    expect(finding!.rules![0]!.description).toMatch(
      /rates it (?:9\d|100)\.\d % spam-like; strongest clues: a link to an IP address, "money" in the subject/,
    );
    expect(finding!.rules!.map((r) => r.name)).toEqual(
      expect.arrayContaining(['LINK_TO_IP', 'SUBJECT_SHOUTING']),
    );
    expect(finding!.tokens!.length).toBeLessThanOrEqual(MAX_LEARNED_TOKENS);

    // The tenant's thresholds decide: the same score is only suspicious where spam starts higher.
    const [lenient] = await engine.scan(await inputOf(spammy, { suspicious: 5, spam: 50 }));
    expect(lenient).toMatchObject({ verdict: 'suspicious', score: finding!.score });
  });

  it('does not call a two-line note spam on the strength of a word or two', async () => {
    const [finding] = await createEmbeddedSpam().scan(
      await inputOf(crlf(['From: Bob <bob@outside.test>', 'Subject: Lunch', '', 'Hi Ana'])),
    );
    expect(finding).toMatchObject({ verdict: 'clean' });
    expect(finding!.rules).toContainEqual(expect.objectContaining({ name: 'BAYES_TOO_FEW_WORDS', score: 0 }));
  });
});

describe('authenticated known senders', () => {
  it("counts a proven brand, the tenant's own domain or a partner as ham evidence, never free mail or a lookalike", async () => {
    const { knownSender } = await import('./rules.ts');
    const pass = { spf: 'pass', dkim: 'pass', dmarc: 'pass', authenticationResults: '' };
    const tenant = { domains: ['acme.example'], partners: ['globex.example'] };
    expect(knownSender('no-reply@accountprotection.microsoft.com', pass, tenant)).toBe('brand');
    expect(knownSender('ana@acme.example', pass, tenant)).toBe('own');
    expect(knownSender('ar@globex.example', pass, tenant)).toBe('partner');
    expect(knownSender('someone@gmail.com', pass, tenant)).toBeNull();
    expect(knownSender('security@micros0ft-login.example', pass, tenant)).toBeNull();
    expect(knownSender('no-reply@microsoft.com', { ...pass, dmarc: 'fail' }, tenant)).toBeNull();
  });
});

describe("today's wanted mail from senders that proved their domain", () => {
  const pass = { spf: 'pass', dkim: 'pass', dmarc: 'pass', authenticationResults: '' };

  it("knows the senders of SpamAssassin's and rspamd's welcome lists, but not the mailing services anyone sends through", async () => {
    const { knownSender } = await import('./rules.ts');
    const tenant = { domains: ['acme.example'] };
    expect(knownSender('onlinebanking@ealerts.bankofamerica.com', pass, tenant)).toBe('brand');
    expect(knownSender('orders@costco.com', pass, tenant)).toBe('listed');
    expect(knownSender('news@email.nytimes.com', pass, tenant)).toBe('listed');
    expect(knownSender('campaign@govdelivery.com', pass, tenant)).toBeNull();
    expect(knownSender('orders@costco.com', { ...pass, dmarc: 'none' }, tenant)).toBeNull();
  });

  it("judges a known or mailing-list sender's words, not how its HTML is made; a stranger's make-up still counts", async () => {
    const { analyse } = await import('./embedded.ts');
    const { MAKE_UP_TOKEN } = await import('./tokens.ts');
    const html = (from: string, list: boolean) =>
      crlf([
        `From: ${from}`,
        'To: ana@acme.example',
        'Subject: Your statement is available',
        'Date: Tue, 01 Dec 2026 10:00:00 +0000',
        'Message-ID: <s1@sender.example>',
        ...(list ? ['List-Unsubscribe: <https://sender.example/unsubscribe>'] : []),
        'Content-Type: text/html; charset=utf-8',
        '',
        '<html><body><h1 style="color:#ffffff">Your statement</h1><p style="font-size:12px">It is ready.</p></body></html>',
      ]);
    const judged = async (from: string, list: boolean, auth = pass) => {
      const base = await inputOf(html(from, list));
      const a = analyse({ ...base, auth, tenant: { domains: ['acme.example'] } });
      return {
        makeUp: a.tokens.filter((t) => MAKE_UP_TOKEN.test(t)).length,
        all: a.keys.length,
        judged: a.judged.length,
      };
    };
    const brand = await judged('Bank of America <onlinebanking@ealerts.bankofamerica.com>', false);
    expect(brand.makeUp).toBeGreaterThan(0);
    expect(brand.judged).toBe(brand.all - brand.makeUp);
    const newsletter = await judged('Harbor Lane <hello@harborlane.example>', true);
    expect(newsletter.judged).toBe(newsletter.all - newsletter.makeUp);
    // Judged whole: a stranger with no list headers, a list unauthenticated, a lookalike, a brand voice.
    for (const [from, list, auth] of [
      ['Accounts <billing@invoices.example>', false, pass],
      ['Harbor Lane <hello@harborlane.example>', true, { ...pass, dmarc: 'none' }],
      ['News <news@acme-example.com>', true, pass],
      ['PayPal <news@deals.example>', true, pass],
    ] as const) {
      const r = await judged(from, list, auth);
      expect(r.judged).toBe(r.all);
    }
  });

  it("does not take a template's hidden preheader for hidden text, nor a logo above a short notice for an image-only mail", async () => {
    const { ruleHits } = await import('./rules.ts');
    const { messageFacts } = await import('./message-facts.ts');
    const rules = (html: string, text: string) =>
      ruleHits({
        facts: messageFacts(Buffer.from('From: a@b.example\r\n\r\n')),
        subject: 'Your statement',
        text,
        html,
        links: [],
        auth: null,
      }).map((r) => r.name);
    const preheader =
      '<body><div style="display:none;max-height:0;overflow:hidden;mso-hide:all;font-size:1px;color:#ffffff">Your statement is ready.</div><img src="https://bank.example/logo.png" alt="Bank">';
    const notice = 'Your statement for the account ending in 4417 is available in Online Banking. '.repeat(4);
    expect(rules(`${preheader}<p>${notice}</p></body>`, notice)).not.toContain('HTML_INVISIBLE_TEXT');
    expect(rules(`${preheader}<p>${notice}</p></body>`, notice)).not.toContain('HTML_IMAGE_ONLY');
    // Text hidden further down, and a picture with a line under it, are what they were.
    expect(
      rules(`<body><p>${notice}</p><span style="display:none">cheap meds viagra</span></body>`, notice),
    ).toContain('HTML_INVISIBLE_TEXT');
    expect(
      rules('<body><img src="https://x.example/offer.jpg"><p>Click here</p></body>', 'Click here'),
    ).toContain('HTML_IMAGE_ONLY');
  });

  it("does not call a brand's link to its own site through its own tracking domain a mismatched link", async () => {
    const { ruleHits } = await import('./rules.ts');
    const { messageFacts } = await import('./message-facts.ts');
    const names = (href: string) =>
      ruleHits({
        facts: messageFacts(Buffer.from('From: a@b.example\r\n\r\n')),
        subject: 's',
        text: 't',
        html: null,
        links: [{ href, text: 'www.paypal.com' }],
        auth: null,
      }).map((r) => r.name);
    expect(names('https://epl.paypal-communication.com/T/v6000001928c1f0a/')).not.toContain(
      'MISMATCHED_LINK_TEXT',
    );
    expect(names('https://paypal-secure.example/login')).toContain('MISMATCHED_LINK_TEXT');
  });
});
