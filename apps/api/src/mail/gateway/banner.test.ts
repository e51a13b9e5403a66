import { describe, expect, it } from 'vitest';
import { type ParsedMessage, parseMessage } from '../parse.ts';
import {
  bannerCopy,
  bannerPlacement,
  htmlWithBanner,
  stripForgedAuthResults,
  warningText,
} from './banner.ts';

/** What a mail client might turn into a link: the scrubber's own rule, checked from outside. */
const LINKABLE = /[\p{L}\p{N}_][.\u3002\uff0e\uff61][\p{L}\p{N}_]|:\/\/|@|www/iu;

/** Reasons as the engines and the gateway write them (grep `reason:`), with hostile details. */
const ENGINE_REASONS = [
  'DMARC failed for evil.example',
  'Lookalike sender domain acme-test.com imitates acme.test',
  'Display name "Ana Boss www.evil.example" impersonates ana@acme.test from outside',
  'Link to an IP address: http://192.0.2.7/login',
  'Link to an IP address: http://[2001:db8::1]/login',
  'Link text names www.acme.test but leads to evil.example',
  'Link text names another host: evil.example',
  'Link to a blocklisted address: https://evil.example/login',
  'EICAR test file in invoice.zip › eicar.com',
  'EICAR test string in the message body',
  'Known malware (SHA-256 blocklist) in evil.example.pdf',
  'Dangerous file type .exe: www.evil.example.exe',
  'Dangerous file type .com: acme.test.com',
  'paypal.com.exe is a Windows executable',
  'login.evil.example is a Linux executable',
  'disk.evil.example.img2 is a disk image',
  'a.zip › b.zip › evil.example.zip nests archives too deep to inspect',
  'secret.evil.example.zip is an archive that cannot be opened',
  'bomb.evil.example.zip is an archive too large to inspect',
  'https://evil.example/x.docx carries Office macros',
  'rspamd: reject (score 21.5 of 15)',
  'Spam score 7.25 (spam from 6): Moat 5 × 0.25, rspamd 6',
  'anti_phishing could not scan this message',
  'Sender is on the block list',
  // Anti-phishing's evidence (engines/anti-phishing.ts, engines/phishing/).
  'Lookalike sender domain globex-logistlcs.com imitates globex-logistics.com, a domain this organisation writes with',
  'The sender calls itself "Microsoft 365 www.evil.example" (Microsoft), but writes from micros0ft-login.example, which is not Microsoft\'s',
  "The sender's domain micros0ft-login.example imitates Microsoft's domains",
  'The subject names PayPal, but the sender is not PayPal',
  "The message opens in DHL's name, but the sender is not DHL",
  'In Microsoft\'s name, it asks the reader to act on an account ("verify your account at evil.example")',
  'Microsoft does not write from a free mail address (gmail.com)',
  'The display name shows an address at acme.test, but the mail is from evil.example',
  "Replies go to a free mail address at gmail.com, not to the sender's evil.example",
  "Replies go to evil.example, not to the sender's partner.test",
  'A reply in a conversation from tom@evil.example, who has never written to this organisation before',
  'It asks about moving money ("bank details") from a free mail address',
  'Display name "Carla Mendes" poses as Carla Mendes (a protected person) from ceo@gmail.com',
  'A link goes to acme-test-sso.com, which imitates acme.test',
  'A link hides its real host behind a user name: https://acme.test@evil.example/ goes to evil.example',
  'A link writes its host as a number: http://3232235777/',
  'A link hides where it goes behind a URL shortener (bit.ly)',
  'A link leads to a page on a free hosting or forms service (evil.web.app)',
  'A link on www.google.com passes the reader on to evil.example',
  'A link carries a whole page inside itself (a data: link), so no address shows where it came from',
  'A link runs code instead of opening a page (javascript: link)',
  "A link's host mixes alphabets to look like another (аcme.test)",
  'A "Sign in to evil.example" link in Microsoft\'s name leads to evil.example, not to Microsoft',
  'Link text names login.microsoftonline.com (Microsoft) but leads to micros0ft-login.example',
  'The display name "Acme IT www.evil.example" speaks for this organisation (acme.test), but the mail is from evil.example',
  'The display name "Globex" speaks for globex.test, a domain this organisation writes with, but the mail is from evil.example',
  "None of the links of this message in DHL's name leads to DHL",
];

const VERDICTS = ['phishing', 'malware', 'spam', 'suspicious'] as const;

describe('warningText', () => {
  it('says what to be careful about in a sentence that reads well for each verdict', () => {
    expect(warningText('phishing', [])).toBe(
      'Caution: this message may be phishing. Do not open its links or attachments, or reply with personal information, unless you are sure of the sender.',
    );
    expect(warningText('malware', [])).toMatch(/^Caution: this message may carry malware\. /);
    expect(warningText('spam', [])).toMatch(/^Caution: this message is probably spam\. /);
    expect(warningText('suspicious', [])).toMatch(/^Caution: this message looks suspicious\. /);
    for (const verdict of VERDICTS) {
      expect(warningText(verdict, [])).not.toMatch(/looks like (?:phishing|malware|spam|suspicious)/);
      expect(warningText(verdict, [])).toMatch(/unless you are sure of the sender\.$/);
    }
  });

  it('adds up to three reasons in plain words, deduplicated, after "Why:"', () => {
    expect(
      warningText('phishing', [
        'Link text names another host: evil.example',
        'Link text names www.acme.test but leads to evil.example',
        'DMARC failed for evil.example',
      ]),
    ).toBe(
      'Caution: this message may be phishing. Do not open its links or attachments, or reply with personal information, unless you are sure of the sender. ' +
        "Why: a link's text names a different site than the one it opens; the sender's domain failed its authentication check (DMARC).",
    );
    expect(warningText('spam', ['Spam score 7.25 (spam from 6): Moat 5 × 0.25, rspamd 6'])).toMatch(
      /Why: the spam filters gave it a high spam score\.$/,
    );
    const many = warningText('malware', ENGINE_REASONS.slice(8, 16));
    expect(many.split('Why: ')[1]!.split('; ')).toHaveLength(3);
  });

  it('generalises every engine reason: no URL, host, domain, address, file name or display name survives', () => {
    for (const reason of ENGINE_REASONS) {
      const text = warningText('suspicious', [reason]);
      expect(text, reason).toContain('Why: ');
      expect(text, reason).not.toMatch(LINKABLE);
      expect(text, reason).not.toContain('[removed]'); // known reasons are worded, not scrubbed
      expect(text, reason).not.toMatch(/evil|acme|paypal|Ana Boss|192|2001/i);
    }
    expect(warningText('malware', ['Dangerous file type .exe: www.evil.example.exe'])).toContain(
      'an attachment has a dangerous file type (.exe)',
    );
  });

  it('keeps an unknown reason only with anything URL-, host- or address-like scrubbed out', () => {
    const reasons = [
      'Odd header from mx.evil.example via https://evil.example/x (bob@evil.example) see www.evil',
      'Relay 192.0.2.1 and [2001:db8::1] and evil。example and evil%2eexample and mailto:bob',
      'Scored 7.5 points for "Acme Support" in the name',
    ];
    const text = warningText('suspicious', reasons);
    expect(text).not.toMatch(LINKABLE);
    expect(text).not.toMatch(/evil|bob|2001|192|Acme Support|mailto/i);
    expect(text).toContain('Odd header from [removed] via [removed] see [removed]');
    expect(text).toContain('Scored [removed] points for in the name');
    expect(warningText('spam', ['Odd thing.'])).toMatch(/ Why: Odd thing\.$/);
    // Nothing but addresses: nothing left to say.
    expect(warningText('spam', ['evil.example https://evil.example'])).toBe(warningText('spam', []));
  });
});

describe('bannerPlacement and htmlWithBanner', () => {
  const at = (html: string) => {
    const { banner, style } = bannerPlacement(html);
    return { before: html.slice(0, banner), after: html.slice(banner), styleAfter: html.slice(0, style) };
  };

  it('puts the banner right after the opening <body> tag, attributes and upper case included', () => {
    expect(
      at('<html><head><title>x</title></head><body class="a" style="margin:0"><p>Hi</p></body></html>'),
    ).toMatchObject({
      before: '<html><head><title>x</title></head><body class="a" style="margin:0">',
      styleAfter: '<html><head>',
    });
    expect(at('<!DOCTYPE HTML><HTML><HEAD><STYLE>p{}</STYLE></HEAD><BODY BGCOLOR=white\n>x')).toMatchObject({
      before: '<!DOCTYPE HTML><HTML><HEAD><STYLE>p{}</STYLE></HEAD><BODY BGCOLOR=white\n>',
      styleAfter: '<!DOCTYPE HTML><HTML><HEAD>',
    });
    expect(at('<html><body data-x="a>b" title=\'<p>\'><p>x').before).toBe(
      '<html><body data-x="a>b" title=\'<p>\'>',
    );
  });

  it('without <body>: after </head>, after the doctype, or at the start; never before <html> or the doctype', () => {
    expect(at('<!doctype html><html><head><meta charset="utf-8"></head>\n<p>Hi').before).toBe(
      '<!doctype html><html><head><meta charset="utf-8"></head>\n',
    );
    expect(at('<!doctype html><p>Hi')).toEqual({
      before: '<!doctype html>',
      after: '<p>Hi',
      styleAfter: '<!doctype html>',
    });
    expect(at('<html><p>Hi</p></html>').before).toBe('<html>');
    expect(at('<p>Hi</p>')).toEqual({ before: '', after: '<p>Hi</p>', styleAfter: '' });
    expect(at('Just text')).toEqual({ before: '', after: 'Just text', styleAfter: '' });
    expect(at('')).toEqual({ before: '', after: '', styleAfter: '' });
  });

  it('is not fooled by <body> in a comment, an attribute or a <style>, nor by a late <body> inside hidden content', () => {
    expect(at('<!-- <body> --><html><body><p>x').before).toBe('<!-- <body> --><html><body>');
    expect(at('<head><style>/*<body>*/</style><title><body></title></head><body><p>x').before).toBe(
      '<head><style>/*<body>*/</style><title><body></title></head><body>',
    );
    expect(at('<html><meta content="<body>"><body>x').before).toBe('<html><meta content="<body>"><body>');
    // The <div> opens the body: a later <body> tag would put the banner inside the hidden <div>.
    expect(at('<html><div style="display:none"><body><p>Hi').before).toBe('<html>');
    // Head content the parser may read either way goes after the banner.
    expect(at('<html><head><script><!--<script></script><body>--></script></head><body>x').before).toBe(
      '<html><head>',
    );
    expect(at('<html><head><noscript><div hidden></noscript><body>x').before).toBe('<html><head>');
    expect(at('<html><head><template><body></template></head><body>x').before).toBe('<html><head>');
  });

  it('reads hostile markup in linear time', () => {
    const started = performance.now();
    for (const html of [
      '<!--'.repeat(200_000),
      `<html>${'<meta a="'.repeat(100_000)}`,
      `<head>${'<style>'.repeat(100_000)}</style`.repeat(2),
      `<head>${'<meta x=1>'.repeat(100_000)}<body>`,
      `${'-'.repeat(500_000)}`,
      `<!--${'-'.repeat(500_000)}`,
    ]) {
      htmlWithBanner(html, 'Caution');
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('builds a presentational table with a fresh id, every inline declaration important, the warning escaped', () => {
    const one = htmlWithBanner('<body><p>Hi</p></body>', 'Caution: <b>"x"</b> & y');
    const two = htmlWithBanner('<body><p>Hi</p></body>', 'Caution');
    const id = /<table role="presentation" id="(moat-warning-[0-9a-f]{16})"/.exec(one)?.[1];
    expect(id).toBeDefined();
    expect(two).not.toContain(id);
    expect(one).toContain('Caution: &lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; y');
    expect(one).not.toContain('<b>');
    for (const [, style] of one.matchAll(/<(?:table|tbody|tr|td|span)\b[^>]*style="([^"]*)"/g)) {
      const declarations = style!.split(';');
      expect(declarations.every((d) => d.endsWith(' !important'))).toBe(true);
      for (const property of ['display', 'visibility', 'opacity', 'color', 'background', 'font-size']) {
        expect(declarations.some((d) => d.startsWith(`${property}:`))).toBe(true);
      }
      for (const fixed of ['max-height:none', 'overflow:visible'])
        expect(declarations).toContain(`${fixed} !important`);
      expect(declarations.some((d) => /^position:(static|relative) !important$/.test(d))).toBe(true);
      expect(declarations.some((d) => d.startsWith('border:'))).toBe(true);
    }
    // The stylesheet that takes the banner back from the sender's rules comes first.
    expect(one.indexOf(`@layer ${id}{`)).toBeLessThan(one.indexOf('<table'));
    expect(one).not.toMatch(/https?:|url\(/i);
  });
});

function message(overrides: Partial<ParsedMessage> = {}): ParsedMessage {
  return {
    fromAddress: 'billing@evil.example',
    fromName: 'Billing',
    subject: 'Your invoice',
    messageId: '<m1@evil.example>',
    date: new Date('2025-01-02T03:04:05Z'),
    text: 'Pay at https://evil.example/pay',
    html: '<html><head><style>p{color:red}</style></head><body class="x"><p>Pay <a href="https://evil.example/pay">here</a></p></body></html>',
    attachments: [
      {
        filename: 'invoice.pdf',
        contentType: 'application/pdf',
        size: 4,
        sha256: '',
        content: Buffer.from('%PDF'),
      },
    ],
    ...overrides,
  };
}

describe('bannerCopy', () => {
  const warning = warningText('phishing', ['Link text names another host: evil.example']);
  const auth = 'Authentication-Results: mx.moat.test; spf=fail smtp.mailfrom=evil.example\r\n';

  it('starts the text with the warning and a separator, and the HTML body with the banner; attachments kept', async () => {
    const raw = await bannerCopy(message(), 'ana@acme.test', warning, auth);
    expect(raw.toString('latin1').startsWith(auth)).toBe(true);
    const copy = await parseMessage(raw);
    expect(copy.text.startsWith(`${warning}\n${'-'.repeat(72)}\n\nPay at https://evil.example/pay`)).toBe(
      true,
    );
    const html = copy.html!;
    const bodyAt = html.indexOf('<body class="x">');
    expect(bodyAt).toBeGreaterThan(0);
    expect(html.slice(bodyAt + '<body class="x">'.length)).toMatch(
      /^<table role="presentation" id="moat-warning-/,
    );
    expect(html.indexOf('<style>@layer moat-warning-')).toBe('<html><head>'.length);
    // The banner itself names no site: the only URLs are the sender's own link.
    const banner = html.slice(bodyAt, html.indexOf('</table>') + 8);
    expect(banner.replace(/<[^>]*>/g, '')).not.toMatch(LINKABLE);
    expect(banner).not.toMatch(/https?:|mailto:|href|src=|url\(/i);
    expect(banner).toContain('a link&#39;s text names a different site');
    expect(copy.attachments).toMatchObject([{ filename: 'invoice.pdf', contentType: 'application/pdf' }]);
    expect(copy.attachments[0]!.content.toString()).toBe('%PDF');
    expect(copy).toMatchObject({
      subject: 'Your invoice',
      fromAddress: 'billing@evil.example',
      messageId: '<m1@evil.example>',
    });
    expect(raw.toString('latin1')).toMatch(/^X-Moat-Warning: /m);
  });

  it('wraps an HTML part with no <html>, <head> or <body>, and sends text-only mail as text', async () => {
    const bare = await parseMessage(
      await bannerCopy(message({ html: '<p>Hi</p>' }), 'ana@acme.test', warning, ''),
    );
    expect(bare.html).toMatch(
      /^<style>@layer moat-warning-[0-9a-f]+\{.*<\/style><table role="presentation"[\s\S]*<\/table><p>Hi<\/p>$/,
    );
    const textOnly = await parseMessage(
      await bannerCopy(message({ html: null }), 'ana@acme.test', warning, ''),
    );
    expect(textOnly.html).toBeNull();
    expect(textOnly.text.startsWith(warning)).toBe(true);
  });
});

describe('stripForgedAuthResults', () => {
  const body = 'Authentication-Results: mx.moat.test; dkim=pass\r\n\r\nHello\r\n';
  const crlf = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

  it("removes the sender's Authentication-Results that claim our authserv-id, folded ones whole, and nothing else", () => {
    const forged = [
      'Authentication-Results: mx.moat.test; dkim=pass header.d=acme.test',
      'authentication-results:   MX.Moat.Test;',
      '\tspf=pass smtp.mailfrom=acme.test;',
      ' dmarc=pass header.from=acme.test',
    ];
    const quoted = 'Authentication-Results: (forged) "mx.moat.test" 1; none';
    const partner = 'Authentication-Results: mx.partner.test; dkim=pass header.d=partner.test';
    const longer = 'Authentication-Results: mx.moat.test.evil.example; dkim=pass';
    const rest = ['X-Note: Authentication-Results: mx.moat.test; dkim=pass', 'From: a@evil.example', ''];
    const raw = Buffer.from(
      crlf(['Received: from client.test', ...forged, partner, quoted, longer, ...rest]) + body,
    );
    expect(stripForgedAuthResults(raw, 'mx.moat.test').toString('latin1')).toBe(
      crlf(['Received: from client.test', partner, longer, ...rest]) + body,
    );
  });

  it('removes those that claim our authserv-id with a trailing dot, and ARC-Authentication-Results that claim it', () => {
    const forged = [
      'Authentication-Results: mx.moat.test.; dmarc=pass header.from=acme.test',
      'Authentication-Results: MX.MOAT.TEST. ; dmarc=pass header.from=acme.test',
      'Authentication-Results: "Mx.Moat.Test."; dmarc=pass',
      'ARC-Authentication-Results: i=1; mx.moat.test; dmarc=pass header.from=acme.test',
      'arc-authentication-results: (sealed) i = 2 ;',
      ' MX.moat.test.; spf=pass smtp.mailfrom=acme.test',
    ];
    const kept = [
      'ARC-Authentication-Results: i=1; mx.partner.test; dmarc=pass header.from=partner.test',
      'ARC-Authentication-Results: i=2; mx.moat.test.evil.example; dkim=pass',
      'ARC-Seal: i=1; a=rsa-sha256; d=partner.test; s=arc; cv=none; b=AAAA',
      'Authentication-Results: mx.moat.testx; dkim=pass',
    ];
    const raw = Buffer.from(
      crlf(['Received: from client.test', ...forged, ...kept, 'From: a@evil.example', '']) + body,
    );
    expect(stripForgedAuthResults(raw, 'mx.moat.test').toString('latin1')).toBe(
      crlf(['Received: from client.test', ...kept, 'From: a@evil.example', '']) + body,
    );
    // Our own name written with its trailing dot matches the same fields.
    expect(stripForgedAuthResults(raw, 'mx.moat.test.').toString('latin1')).toBe(
      crlf(['Received: from client.test', ...kept, 'From: a@evil.example', '']) + body,
    );
  });

  it('handles bare LF line ends and leaves bytes that are not removed identical', () => {
    const head =
      'From: a@evil.example\nAuthentication-Results: mx.moat.test;\n dkim=pass\nSubject: caf\xe9\n\n';
    const raw = Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x41])]);
    const stripped = stripForgedAuthResults(raw, 'MX.MOAT.TEST');
    expect(stripped).toEqual(
      Buffer.concat([
        Buffer.from('From: a@evil.example\nSubject: caf\xe9\n\n', 'latin1'),
        Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x41]),
      ]),
    );
  });

  it('returns the message unchanged when nothing claims our id, the body included', () => {
    const raw = Buffer.from(`Subject: hi\r\n\r\n${body}`);
    expect(stripForgedAuthResults(raw, 'mx.moat.test')).toBe(raw);
    const noHeader = Buffer.from(`\r\n${body}`);
    expect(stripForgedAuthResults(noHeader, 'mx.moat.test')).toBe(noHeader);
    const headerOnly = Buffer.from('Authentication-Results: mx.moat.test; none');
    expect(stripForgedAuthResults(headerOnly, 'mx.moat.test').toString()).toBe('');
  });
});
