import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContextOptions, Page, Request } from 'playwright-core';

/** What a page loads to show itself: its JavaScript and CSS, gzip and as sent. */
export interface PageWeight {
  files: number;
  /** Each file gzip-compressed here at level 9, summed: comparable whatever the server sent. */
  gzipBytes: number;
  /** The response bodies on the wire (Brotli or gzip as the server chose). */
  sentBytes: number;
  /** Each file's name (the last part of its path) and gzip bytes, largest first. */
  byFile: Array<{ name: string; gzipBytes: number }>;
}

/**
 * Opens `url` in `page` and weighs the JavaScript and CSS it loads until `ready` shows and the
 * network is idle (the lazy chunks of the route included).
 */
export async function weighPage(page: Page, url: string, ready: RegExp): Promise<PageWeight> {
  const loaded: Array<Promise<{ name: string; gzip: number; sent: number }>> = [];
  const weigh = (request: Request) => {
    if (!['script', 'stylesheet'].includes(request.resourceType())) return;
    loaded.push(
      (async () => {
        const response = await request.response();
        const body = (await response?.body()) ?? Buffer.alloc(0);
        const sizes = await request.sizes();
        const name = new URL(request.url()).pathname.split('/').pop() ?? '';
        return { name, gzip: gzipSync(body, { level: 9 }).length, sent: sizes.responseBodySize };
      })(),
    );
  };
  page.on('requestfinished', weigh);
  await page.goto(url, { waitUntil: 'networkidle' });
  await page
    .getByText(ready)
    .filter({ visible: true })
    .first()
    .waitFor({ timeout: 20_000 })
    .catch(async (error) => {
      throw new Error(
        `${(error as Error).message}\n${page.url()}\n${(await page.innerText('body')).slice(0, 800)}`,
      );
    });
  await page.waitForLoadState('networkidle');
  // What the page fetches later (polling) is not part of its load, and the caller may close it.
  page.off('requestfinished', weigh);
  const files = await Promise.all(loaded);
  return {
    files: files.length,
    gzipBytes: files.reduce((s, f) => s + f.gzip, 0),
    sentBytes: files.reduce((s, f) => s + f.sent, 0),
    byFile: files.map((f) => ({ name: f.name, gzipBytes: f.gzip })).sort((a, b) => b.gzipBytes - a.gzipBytes),
  };
}

/**
 * Weighs `url` in a browser context of its own (nothing cached: the whole app is loaded), with
 * `cookies` set first (a session, for a signed-in page).
 */
export async function weighInFreshContext(
  browser: Browser,
  url: string,
  ready: RegExp,
  cookies: Parameters<Awaited<ReturnType<Browser['newContext']>>['addCookies']>[0] = [],
  options: BrowserContextOptions = {},
): Promise<PageWeight> {
  const context = await browser.newContext(options);
  try {
    if (cookies.length > 0) await context.addCookies(cookies);
    return await weighPage(await context.newPage(), url, ready);
  } finally {
    await context.close();
  }
}
