import type { Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { keepShot } from '../support/sweep.ts';

/**
 * Security Settings → Exceptions (issue 11 "Done means": add an exception with an expiry): an
 * admin blocks a sender from the browser until a day next week; the next message from that sender
 * is held silently (not at the relay sink), and Mail Explorer says which entry decided.
 */
let env: MoatWithMail;

function swaks(from: string, subject: string) {
  return env.swaks([
    '--from',
    from,
    '--to',
    'ana@acme.test',
    '--header',
    `Subject: ${subject}`,
    '--body',
    'Limited offer',
  ]);
}

/** The rows of the Exceptions list with the blocked sender. */
/** The entry for offers@bulk.test: a table row on a wide screen, a card on a phone. */
const entries = (page: Page) =>
  page
    .getByRole('table', { name: 'Allow and block entries' })
    .getByRole('row')
    .or(page.getByRole('list', { name: 'Allow and block entries' }).getByRole('listitem'))
    .filter({ hasText: 'offers@bulk.test' });

async function signInAdmin(page: Page) {
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
}

test.beforeAll(async () => {
  env = await startMoatWithMail();
  await env.cli(
    'user:create',
    '--email',
    'ana@acme.test',
    '--role',
    'user',
    '--password',
    'a long password 1',
  );
});
test.afterAll(async () => {
  await env.stop();
});

test('an admin blocks a sender until next week; the next message from it is held, not delivered', async ({
  page,
}) => {
  // Mail both ways, several axe runs and two themes, on a CPU shared with other work.
  test.setTimeout(240_000);
  // Before the entry, the sender's mail arrives.
  expect((await swaks('offers@bulk.test', 'Before the block')).code).toBe(0);
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Before the block');

  await signInAdmin(page);
  await page.goto(`${env.moat.url}/#/configuration/security-exceptions`);
  await expect(page.getByRole('heading', { name: 'Exceptions', level: 1 })).toBeVisible();
  await expect(page.getByText(/An allow entry counts only when the sender proves its domain/)).toBeVisible();

  await page.getByRole('button', { name: 'Add exception' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add exception' });
  await dialog.getByRole('combobox', { name: 'List' }).selectOption('block');
  await dialog.getByRole('combobox', { name: 'Kind' }).selectOption('sender');
  await dialog.getByRole('textbox', { name: /Value/ }).fill('Offers@Bulk.test');
  await expect(dialog.getByText('Stored as offers@bulk.test')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Comment' }).fill('bulk offers, reported by Ana');
  const next = new Date(Date.now() + 7 * 86_400_000);
  const day = `${next.getFullYear()}-${String(next.getMonth() + 1).padStart(2, '0')}-${String(next.getDate()).padStart(2, '0')}`;
  await dialog.getByLabel(/Expires on/).fill(day);
  await expectNoAxeViolations(page);
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByText('Entry added: offers@bulk.test')).toBeVisible();

  const row = entries(page);
  await expect(row).toContainText('Block');
  await expect(row).toContainText('bulk offers, reported by Ana');
  await expect(row).toContainText('admin@acme.test');
  await expect(row).not.toContainText('Never');
  await expectNoAxeViolations(page);

  // The CLI lists it too, with its expiry and author.
  const listed = await env.cli('gateway:exceptions-list', '--tenant', 'acme.test');
  expect(listed.stdout).toMatch(
    /block\s+sender\s+all\s+offers@bulk\.test\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+admin@acme\.test/,
  );

  // The next message from the sender is held silently: Mail Explorer names the entry, the sink has nothing.
  expect((await swaks('offers@bulk.test', 'After the block')).code).toBe(0);
  await page.goto(`${env.moat.url}/#/mail-explorer?q=After%20the%20block`);
  const held = page.getByRole('row').filter({ hasText: 'After the block' });
  await expect(held).toContainText('Quarantined silently', { timeout: 20_000 });
  await held.getByRole('button', { name: 'Details of After the block' }).click();
  await expect(
    page.getByText(
      'Blocked by exception sender offers@bulk.test (added by admin@acme.test: bulk offers, reported by Ana)',
    ),
  ).toBeVisible();
  expect(env.sink.mails.filter((m) => m.subject === 'After the block')).toEqual([]);

  // On a phone, both themes: the page stays usable and accessible.
  await page.setViewportSize({ width: 360, height: 780 });
  await page.goto(`${env.moat.url}/#/configuration/security-exceptions/external/anti-malware`);
  await expect(entries(page)).toBeVisible();
  for (const [theme, scheme] of [
    ['Dark theme', 'dark'],
    ['Mixed theme', 'light'],
  ] as const) {
    await page.getByRole('button', { name: 'Theme' }).click();
    await page.getByRole('menuitem', { name: theme }).click();
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
    await expect(entries(page)).toBeVisible();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(360);
    await keepShot(page, test.info().outputPath(`exceptions-360-${scheme}.png`));
    await expectNoAxeViolations(page);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await keepShot(page, test.info().outputPath('exceptions-1440.png'));
});
