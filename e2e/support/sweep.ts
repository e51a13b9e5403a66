import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect, settled, test } from './fixtures.ts';

/** Where the sweeps' full-page screenshots land, for a person to look at. */
export const SHOTS = '/tmp/shots';

/**
 * A full-page screenshot for a person to look at (SHOTS): taken on a developer's machine, not in
 * CI (CI=true), where nobody looks at them, unless MOAT_SHOTS=1 asks for them there too. Nothing
 * is asserted on them.
 */
export async function keepShot(page: Page, file: string): Promise<void> {
  if (process.env.CI === 'true' && process.env.MOAT_SHOTS !== '1') return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
}

export interface SweptScreen {
  name: string;
  path: () => string;
  /** Shown only once the screen's data is there. */
  ready: (page: Page) => Locator;
}

export type Theme = 'Mixed theme' | 'Dark theme';
export const THEMES = [
  ['Mixed theme', 'mixed'],
  ['Dark theme', 'dark'],
] as const;

export async function setTheme(page: Page, theme: Theme) {
  await page.getByRole('button', { name: 'Theme' }).click();
  await page.getByRole('menuitem', { name: theme }).click();
  await expect(page.getByRole('menu')).toBeHidden();
  await expect(page.locator('html')).toHaveAttribute(
    'data-mantine-color-scheme',
    theme === 'Dark theme' ? 'dark' : 'light',
  );
}

/**
 * The page in both themes at 1440 px and 360 px, `look` called at each (the theme's slug and the
 * width): for its checks and its screenshot. Ends in the dark theme at 360 px.
 */
export async function inEachLook(page: Page, look: (slug: string, width: number) => Promise<void>) {
  for (const [theme, slug] of THEMES) {
    await setTheme(page, theme);
    for (const width of [1440, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await look(slug, width);
    }
  }
}

/** Nothing scrolls sideways (lists turn into cards after a frame, so this waits for the layout). */
export async function expectNoSidewaysScroll(page: Page) {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth))
    .toBe(true);
}

/** The welcome card fades in over every screen and axe would judge its colours mid-fade: dismissed for good. */
export async function dismissWelcome(page: Page) {
  const dismiss = page.getByRole('button', { name: "Don't show again" });
  await dismiss
    .waitFor({ state: 'visible', timeout: 5_000 })
    .then(() => dismiss.click())
    .catch(() => undefined);
}

/**
 * Each screen in `theme` at 1440 px and 360 px: it waits for its data, has no spinner left, does
 * not say it is a page this edition lacks, does not scroll sideways on a phone, has no axe
 * violations; a full-page screenshot of each goes to SHOTS.
 */
export async function sweep(page: Page, baseUrl: string, screens: SweptScreen[], theme: Theme, slug: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${baseUrl}/#/dashboard`);
  await setTheme(page, theme);
  for (const width of [1440, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 780 : 900 });
    for (const screen of screens) {
      await test.step(`${screen.name}, ${width} px`, async () => {
        await page.goto(`${baseUrl}/#${screen.path()}`);
        await expect(screen.ready(page)).toBeVisible();
        await expect(page.locator('.mantine-Loader-root')).toHaveCount(0);
        const where = `${screen.name} (${slug}, ${width} px)`;
        expect
          .soft(
            await page.getByText(/is not available in this edition/).count(),
            `${where}: a page this edition lacks`,
          )
          .toBe(0);
        if (width === 360) {
          // (Charts follow the new width once their resize observers have run.)
          await expect.soft
            .poll(() => page.evaluate(() => document.documentElement.scrollWidth), {
              message: `${where}: the page scrolls sideways`,
            })
            .toBeLessThanOrEqual(360);
        }
        await settled(page);
        const results = await new AxeBuilder({ page }).analyze();
        expect
          .soft(
            results.violations.map(
              (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
            ),
            `${where}: axe violations`,
          )
          .toEqual([]);
        await keepShot(page, `${SHOTS}/${screen.name}-${slug}-${width}.png`);
      });
    }
  }
}
