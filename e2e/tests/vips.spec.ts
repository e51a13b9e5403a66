import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, keepShot, SHOTS, setTheme } from '../support/sweep.ts';

/**
 * Anti-Phishing's protected people (issue 35): on the engine's Exceptions page an admin adds a VIP
 * (the form says what is wrong before anything is sent), sees the person listed, changes their
 * addresses and removes them; mail from outside in the VIP's name is held while they are on the
 * list. The screen works on a phone and on a wide screen, in both themes.
 */
let env: MoatWithMail;

/** Jane Doe's entry: a table row on a wide screen, a card on a phone. */
const janeEntry = (page: Page) =>
  page
    .getByRole('table', { name: 'Protected people' })
    .getByRole('row')
    .or(page.getByRole('list', { name: 'Protected people' }).getByRole('listitem'))
    .filter({ hasText: 'Jane Doe' });

test.beforeAll(async () => {
  env = await startMoatWithMail();
  const ann = await env.cli(
    'user:create',
    '--email',
    'ann.lee@acme.test',
    '--role',
    'user',
    '--password',
    'a long password 1',
    '--first-name',
    'Ann',
    '--last-name',
    'Lee',
  );
  if (ann.code !== 0) throw new Error(`user:create failed: ${ann.stderr}`);
});
test.afterAll(async () => {
  await env.stop();
});

async function signInAdmin(page: Page) {
  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);
}

/** A message to Ann from outside, in Jane Doe's name, from an address that is not hers. */
function mailInJanesName(subject: string) {
  return env.swaks([
    '--from',
    'jane.doe.office@gmail.com',
    '--to',
    'ann.lee@acme.test',
    '--header',
    'From: "Jane Doe" <jane.doe.office@gmail.com>',
    '--header',
    `Subject: ${subject}`,
    '--body',
    'Are you at your desk? I need a quick favour.',
  ]);
}

test('an admin adds a protected person, changes their addresses and removes them', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAdmin(page);
  // Reached from the Anti-Phishing engine on Security Engines.
  await page.goto(`${env.moat.url}/#/configuration/app-store`);
  await page.getByRole('link', { name: 'Protected people (VIPs) and exceptions' }).click();
  await expect(page).toHaveURL(/#\/configuration\/security-exceptions\/anti-phishing$/);
  await expect(page.getByRole('heading', { name: 'Protected people (VIPs)' })).toBeVisible();
  // The empty list says what the list is for.
  await expect(page.getByText('No protected people yet')).toBeVisible();
  await expect(
    page.getByText(/Mail from outside that uses one of these names is held as impersonation/).first(),
  ).toBeVisible();
  await keepShot(page, path.join(SHOTS, 'vips-1440-empty.png'));

  // Wrong input is said on its field, and nothing is sent.
  await page.getByRole('button', { name: 'Add person' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a protected person' });
  await dialog.getByRole('combobox', { name: 'Name' }).fill('Jo');
  await dialog.getByRole('textbox', { name: 'Address 1' }).fill('jane.doe@');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(dialog.getByText('Enter a name of at least 3 characters')).toBeVisible();
  await expect(dialog.getByText('Enter an email address, such as name@example.com')).toBeVisible();
  await expectNoAxeViolations(page);
  await keepShot(page, path.join(SHOTS, 'vips-1440-dialog-errors.png'));

  await dialog.getByRole('combobox', { name: 'Name' }).fill('Jane Doe');
  await dialog.getByRole('textbox', { name: 'Address 1' }).fill('Jane.Doe@Acme.test');
  await dialog.getByRole('button', { name: 'Add another address' }).click();
  await dialog.getByRole('textbox', { name: 'Address 2' }).fill('jane@home.example');
  await expect(dialog.getByText(/at least 3 characters|Enter an email address/)).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Jane Doe is protected')).toBeVisible();
  await expect(janeEntry(page)).toContainText('jane.doe@acme.test');
  await expect(janeEntry(page)).toContainText('jane@home.example');
  await expect(janeEntry(page)).toContainText('admin@acme.test');

  // Mail from outside in her name is held now; Mail Explorer says why.
  expect((await mailInJanesName('Quick favour')).code).toBe(0);
  await page.goto(`${env.moat.url}/#/mail-explorer?q=Quick%20favour`);
  const held = page.getByRole('row').filter({ hasText: 'Quick favour' });
  // The list does not refresh by itself: looked at again until the gateway has processed the message.
  await expect(async () => {
    await page.reload();
    await expect(held).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(held).toContainText('Quarantined');
  await held.getByRole('button', { name: 'Details of Quick favour' }).click();
  await expect(page.getByText(/poses as Jane Doe/).first()).toBeVisible();
  expect(env.sink.mails.filter((m) => m.subject === 'Quick favour')).toEqual([]);
  await page.goto(`${env.moat.url}/#/configuration/security-exceptions/anti-phishing`);

  // The same name again is refused on the name field.
  await page.getByRole('button', { name: 'Add person' }).click();
  await dialog.getByRole('combobox', { name: 'Name' }).fill('jane  doe');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(dialog.getByText('jane doe is on the list already')).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // One of the organisation's users is picked by name: their address comes with them.
  await page.getByRole('button', { name: 'Add person' }).click();
  await dialog.getByRole('combobox', { name: 'Name' }).fill('Ann');
  await page.getByRole('option', { name: 'Ann Lee' }).click();
  await expect(dialog.getByRole('combobox', { name: 'Name' })).toHaveValue('Ann Lee');
  await expect(dialog.getByRole('textbox', { name: 'Address 1' })).toHaveValue('ann.lee@acme.test');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByText('Ann Lee is protected')).toBeVisible();

  // Edit: the second address goes, another comes.
  await janeEntry(page).getByRole('button', { name: 'Edit Jane Doe' }).click();
  const edit = page.getByRole('dialog', { name: 'Change a protected person' });
  await expect(edit.getByRole('combobox', { name: 'Name' })).toHaveValue('Jane Doe');
  await edit.getByRole('button', { name: 'Remove address 2' }).click();
  await edit.getByRole('button', { name: 'Add another address' }).click();
  await edit.getByRole('textbox', { name: 'Address 2' }).fill('ceo@acme.test');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  await expect(page.getByText('Jane Doe saved')).toBeVisible();
  await expect(janeEntry(page)).toContainText('ceo@acme.test');
  await expect(janeEntry(page)).not.toContainText('jane@home.example');

  // Screens: wide and phone, light and dark, with a person listed.
  await page.getByRole('button', { name: 'Add person' }).click();
  await dialog.getByRole('combobox', { name: 'Name' }).fill('Carl Finance-Director With A Long Name');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(dialog).toBeHidden();
  for (const [width, height] of [
    [1440, 900],
    [360, 780],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const theme of ['Mixed theme', 'Dark theme'] as const) {
      await setTheme(page, theme);
      await expect(janeEntry(page)).toBeVisible();
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(width);
      // The whole page from its top (the shell's bar stays at the top of the picture).
      await page.evaluate(() => window.scrollTo(0, 0));
      await keepShot(
        page,
        path.join(SHOTS, `vips-${width}-${theme === 'Dark theme' ? 'dark' : 'light'}.png`),
      );
      await expectNoAxeViolations(page);
    }
  }
  // On a phone the entry is a card, its buttons in view.
  await expect(page.getByRole('list', { name: 'Protected people' })).toBeVisible();
  await janeEntry(page).getByRole('button', { name: 'Edit Jane Doe' }).click();
  await expect(page.getByRole('dialog', { name: 'Change a protected person' })).toBeVisible();
  await keepShot(page, path.join(SHOTS, 'vips-360-dark-dialog.png'));
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await setTheme(page, 'Mixed theme');

  // Delete, confirmed.
  await janeEntry(page).getByRole('button', { name: 'Delete Jane Doe' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove this person?' });
  await expect(confirm).toContainText('Jane Doe is no longer protected');
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText('Jane Doe removed')).toBeVisible();
  await expect(janeEntry(page)).toHaveCount(0);
});
