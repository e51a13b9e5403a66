import type { Page } from '@playwright/test';
import { simpleParser } from 'mailparser';
import { bannerCopy, warningText } from '../../apps/api/src/mail/gateway/banner.ts';
import type { ParsedMessage } from '../../apps/api/src/mail/parse.ts';
import { expect, test } from '../support/fixtures.ts';

/**
 * The gateway's warning banner as a recipient's mail client shows it: the message the gateway
 * builds (bannerCopy) is parsed back like a client would and its HTML rendered in Chromium, with
 * sender styles written to hide the banner. No server needed.
 */

const WARNING = warningText('phishing', ['Link text names another host: evil.example']);

/** Sender CSS meant to hide, cover, move or blank the banner. */
const HOSTILE_CSS: Record<string, string> = {
  'tables hidden': 'table{display:none}',
  'everything invisible, the content shown again': '*{visibility:hidden} p{visibility:visible}',
  "the body's first child hidden": 'body>*:first-child{display:none}',
  'paragraphs hidden, text white on white': 'p{display:none} *{color:white;background:white}',
  'every part of a table hidden': 'tbody,tr,td,span{display:none}',
  'important rules':
    '*{display:none!important;opacity:0!important;color:#fff!important;font-size:0!important}',
  'rules in a cascade layer':
    '@layer a{*{display:none!important}} @layer b{table{visibility:hidden!important}}',
  'an animation to transparent':
    '@keyframes gone{to{opacity:0;transform:scale(0)}} table{animation:gone 0s forwards}',
  'generated content laid over the text':
    'td::after,table::before{content:"";position:absolute;inset:0;background:white;z-index:9}',
  'text indented away, blank fill': 'body{-webkit-text-fill-color:transparent} td{text-indent:-9999px}',
  'tiny, clipped and zero-height':
    'table{zoom:0.01;max-height:0;height:0;overflow:hidden;font-size:0;line-height:0}',
  'the first line blanked': 'td::first-line{color:transparent;font-size:0}',
  'the top of the body clipped': 'body{clip-path:inset(150px 0 0 0)}',
  'the body pulled up off the page': 'html{margin-top:-200px} body{margin-top:-200px}',
  'the body reordered': 'body{display:flex;flex-direction:column-reverse}',
};

function message(html: string): ParsedMessage {
  return {
    fromAddress: 'billing@evil.example',
    fromName: 'Billing',
    subject: 'Invoice',
    messageId: null,
    date: null,
    text: 'Pay the invoice at once.',
    html,
    attachments: [],
  };
}

/** The HTML a client reads from the message the gateway would deliver. */
async function deliveredHtml(html: string): Promise<string> {
  const raw = await bannerCopy(message(html), 'ana@acme.test', WARNING, '');
  const parsed = await simpleParser(raw);
  return typeof parsed.html === 'string' ? parsed.html : '';
}

/** Why the element is not seen by a person, or [] when it is: every reason checked. */
async function problemsSeeing(page: Page, selector: string): Promise<string[]> {
  const problems = await page.evaluate((selector) => {
    const problems: string[] = [];
    const banner = document.querySelector(selector);
    if (!banner) return ['no banner'];
    const text = banner.querySelector('span') ?? banner;
    for (let el: Element | null = text; el; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (style.display === 'none') problems.push(`${el.tagName} display:none`);
      if (style.opacity !== '1') problems.push(`${el.tagName} opacity ${style.opacity}`);
      if (style.contentVisibility === 'hidden') problems.push(`${el.tagName} content-visibility hidden`);
    }
    const style = getComputedStyle(text);
    if (style.visibility !== 'visible') problems.push(`visibility ${style.visibility}`);
    if (style.color !== 'rgb(26, 26, 26)') problems.push(`color ${style.color}`);
    if (style.webkitTextFillColor !== 'rgb(26, 26, 26)') problems.push(`fill ${style.webkitTextFillColor}`);
    if (Number.parseFloat(style.fontSize) < 12) problems.push(`font-size ${style.fontSize}`);
    if (getComputedStyle(banner).backgroundColor !== 'rgb(255, 244, 230)')
      problems.push(`background ${getComputedStyle(banner).backgroundColor}`);
    const box = text.getBoundingClientRect();
    if (box.width < 100 || box.height < 12) problems.push(`box ${box.width}x${box.height}`);
    if (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth)
      problems.push(`off screen at ${box.left},${box.top}`);
    // What is painted at the start of the text is the banner, not something laid over it.
    const hit = document.elementFromPoint(box.left + 4, box.top + Math.min(box.height, 20) / 2);
    if (!hit || !banner.contains(hit)) problems.push(`covered by ${hit?.tagName ?? 'nothing'}`);
    if (!(text.textContent ?? '').startsWith('Caution: this message may be phishing.'))
      problems.push('wrong text');
    return problems;
  }, selector);
  if (problems.length > 0) return problems;
  // Hit testing sees through generated content (::before/::after report their element): read the
  // pixels. The text must paint dark ink on the banner's background.
  const box = (await page.locator(selector).locator('span').first().boundingBox())!;
  const ink = await inkIn(page, await page.screenshot({ clip: box }));
  if (ink.dark < 40 || ink.background < ink.total * 0.3) problems.push(`painted ${JSON.stringify(ink)}`);
  return problems;
}

/** Dark pixels and banner-background pixels of a PNG, decoded by the browser in a page of its own. */
async function inkIn(page: Page, png: Buffer): Promise<{ dark: number; background: number; total: number }> {
  const decoder = await page.context().newPage();
  try {
    return await decoder.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const pixels = context.getImageData(0, 0, image.width, image.height).data;
      let dark = 0;
      let background = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        const [r, g, b] = [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!];
        if (r < 100 && g < 100 && b < 100) dark++;
        else if (Math.abs(r - 255) < 8 && Math.abs(g - 244) < 8 && Math.abs(b - 230) < 8) background++;
      }
      return { dark, background, total: pixels.length / 4 };
    }, png.toString('base64'));
  } finally {
    await decoder.close();
  }
}

const BANNER = '[id^="moat-warning-"]';

test.describe('the warning banner in a real browser', () => {
  for (const [name, css] of Object.entries(HOSTILE_CSS)) {
    test(`stays visible when the sender's styles try: ${name}`, async ({ page }) => {
      await page.setContent(
        await deliveredHtml(
          `<!doctype html><html><head><style>${css}</style></head><body><p>Pay the invoice at once.</p></body></html>`,
        ),
      );
      expect(await problemsSeeing(page, BANNER)).toEqual([]);
    });
  }

  const OVERLAYS: Record<string, string> = {
    'the next block pulled up over it':
      '<div style="position:relative;z-index:2;margin-top:-300px;padding-top:300px;background:#fff">Pay now.</div>',
    'an absolute block laid over the top':
      '<p style="position:absolute;top:0;left:0;right:0;height:200px;background:#fff;margin:0">Pay now.</p>',
  };
  for (const [name, body] of Object.entries(OVERLAYS)) {
    test(`stays on top when the sender's HTML tries: ${name}`, async ({ page }) => {
      await page.setContent(await deliveredHtml(`<!doctype html><html><body>${body}</body></html>`));
      expect(await problemsSeeing(page, BANNER)).toEqual([]);
    });
  }

  test('a plain banner without those defences is hidden by the same styles (the check can fail)', async ({
    page,
  }) => {
    await page.setContent(
      '<html><head><style>p{display:none}</style></head><body>' +
        '<p id="plain" style="padding:8px;border:1px solid #e8590c;background:#fff4e6;color:#000"><span>Caution: this message may be phishing.</span></p>' +
        '</body></html>',
    );
    expect(await problemsSeeing(page, '#plain')).toContain('P display:none');
    // Laid over with generated content: hit testing says the text is there, the pixels say not.
    await page.setContent(
      '<html><head><style>p::after{content:"";position:absolute;inset:0;background:white}</style></head><body>' +
        '<p id="plain" style="padding:8px;background:#fff4e6!important;color:#1a1a1a!important;font-size:15px"><span>Caution: this message may be phishing.</span></p>' +
        '</body></html>',
    );
    expect((await problemsSeeing(page, '#plain')).join()).toMatch(/^painted /);
  });

  test('is the first thing in the body, whatever shape the HTML has, and names no site', async ({ page }) => {
    for (const html of [
      '<p>No html, head or body</p>',
      '<!DOCTYPE html><HTML><HEAD><TITLE>x</TITLE></HEAD><BODY BGCOLOR="#ffffff" CLASS="m"><p>Upper case</p></BODY></HTML>',
      '<html><head><meta charset="utf-8"></head><p>No body tag</p></html>',
      '<!-- <body> --><html><head><style>/*<body>*/</style></head><body><p>Body in a comment</p></body></html>',
      '<html><div style="display:none"><body><p>A late body tag inside hidden content</p>',
      '<html><head><noscript><div style="display:none"></noscript><body><p>noscript</p>',
    ]) {
      await page.setContent(await deliveredHtml(html));
      const first = await page.evaluate(() => ({
        id: document.body.firstElementChild?.id ?? '',
        links: document.body.firstElementChild?.querySelectorAll('a, [href], [src]').length,
        text: document.body.firstElementChild?.textContent ?? '',
      }));
      expect(first.id, html).toMatch(/^moat-warning-[0-9a-f]{16}$/);
      expect(first.links, html).toBe(0);
      expect(first.text, html).not.toContain('evil.example');
      expect(await problemsSeeing(page, BANNER), html).toEqual([]);
    }
  });
});
