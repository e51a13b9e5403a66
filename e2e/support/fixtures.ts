import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';

/** Tests get `baseURL` from the server that global setup started, and fail on any CSP violation or page error. */
export const test = base.extend<{ pageErrors: string[] }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  baseURL: async ({}, use) => {
    await use(process.env.MOAT_E2E_URL);
  },
  pageErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      const text = message.text();
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(text))
        errors.push(`csp: ${text}`);
    });
    await use(errors);
    expect(errors, 'no page errors or CSP violations').toEqual([]);
  },
});

export { expect };

/**
 * Waits until no transition or animation runs (a dialog fading in, a card sliding): axe judges
 * colours as they are on screen, and mid-fade they are neither the old nor the new ones.
 */
export async function settled(page: Page) {
  // A transition starts a frame or two after its element mounts: "none running" must hold twice,
  // each time after two animation frames, before the page counts as still.
  const running = () =>
    page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          requestAnimationFrame(() =>
            requestAnimationFrame(() =>
              resolve(document.getAnimations().filter((a) => a.playState === 'running').length),
            ),
          ),
        ),
    );
  const deadline = Date.now() + 10_000;
  let still = 0;
  while (still < 2 && Date.now() < deadline) {
    still = (await running()) === 0 ? still + 1 : 0;
    if (still < 2) await page.waitForTimeout(100);
  }
}

/**
 * `exclude`: selectors axe leaves out — a frame that runs no script (the banner preview's
 * `sandbox=""` frame, a sender's message) cannot be entered by axe, whose scan would never end.
 */
export async function expectNoAxeViolations(page: Page, exclude: string[] = []) {
  await settled(page);
  const builder = new AxeBuilder({ page });
  for (const selector of exclude) builder.exclude(selector);
  const results = await builder.analyze();
  expect(
    results.violations.map(
      (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
    ),
  ).toEqual([]);
}
