import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
const base = 'http://localhost:8099';
const pages = process.argv.slice(2);
const link = () => execFileSync('npm', ['run', '-s', 'cli', '--', 'auth:link', '--email', 'admin@acme.example'], { env: { ...process.env, DATA_DIR: '/tmp/shots-data' }, encoding: 'utf8' }).trim().split('\n').at(-1).replace(/^https?:\/\/[^/]+/, base);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
for (const scheme of ['light', 'dark']) {
  for (const width of [1440, 360]) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(link());
    await page.waitForLoadState('networkidle');
    for (const p of pages) {
      const [path, anchor] = p.split('#');
      await page.goto(base + path);
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(1500);
      if (anchor) await page.locator(`#${anchor}`).scrollIntoViewIfNeeded().catch(() => {});
      const name0 = `${path.replaceAll('/', '_')}${anchor ? '-' + anchor : ''}-${scheme}-${width}.png`;
      const name = name0; const target = anchor ? page.locator(`section:has(#${anchor})`).first() : page;
      await target.screenshot({ path: `/work/main/scratch-exp/shots/${name}`, ...(anchor ? {} : { fullPage: true }) });
      console.log(name);
    }
    await context.close();
  }
}
await browser.close();
