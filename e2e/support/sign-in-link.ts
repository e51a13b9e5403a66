import type { Page } from '@playwright/test';
import { expect } from './fixtures.ts';
import { runCli } from './server.ts';

/**
 * Opens a one-time sign-in link for `email` from the CLI (`auth:link`, with `args` such as
 * `--brand checkpoint`) on this server, as an operator hands one out; the caller checks where it
 * lands. Returns the link, on this server.
 */
export async function openSignInLink(
  page: Page,
  moat: { url: string; dataDir: string },
  email: string,
  ...args: string[]
): Promise<string> {
  const link = await runCli(['auth:link', '--email', email, ...args], { DATA_DIR: moat.dataDir });
  expect(link.code, link.stderr).toBe(0);
  const url = link.stdout
    .trim()
    .split('\n')
    .at(-1)!
    .replace(/^https?:\/\/[^/]+/, moat.url);
  await page.goto(url);
  return url;
}
