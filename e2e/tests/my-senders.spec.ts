import type { Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { openSignInLink } from '../support/sign-in-link.ts';

/**
 * A plain user's own allow and block list (issue 12, SPEC §6): Ana blocks a sender's domain from
 * her Quarantined Items; the next message from it to her and Ben is held for her alone (silently,
 * in her own quarantine) while Ben receives it.
 */
let env: MoatWithMail;

async function signIn(page: Page, email: string) {
  await openSignInLink(page, env.moat, email);
  await expect(page).toHaveURL(/#\/dashboard$/);
}

test.beforeAll(async () => {
  env = await startMoatWithMail();
  for (const email of ['ana@acme.test', 'ben@acme.test']) {
    const made = await env.cli(
      'user:create',
      '--email',
      email,
      '--role',
      'user',
      '--password',
      'a long password 1',
    );
    expect(made.code, made.stderr).toBe(0);
  }
});
test.afterAll(async () => {
  await env.stop();
});

test('a user blocks a sender for herself: its next message is held in her quarantine, and another recipient gets it', async ({
  page,
}) => {
  // Mail through the gateway and axe runs, on a CPU shared with other work.
  test.setTimeout(180_000);
  await signIn(page, 'ana@acme.test');
  await page.goto(`${env.moat.url}/#/user-interaction/quarantine-item`);
  const section = page.getByRole('region', { name: 'My allowed and blocked senders' });
  await expect(section.getByText(/You have not allowed or blocked any sender yet/)).toBeVisible();

  // What is not an address or a domain is refused on the field, and nothing is added.
  const field = section.getByRole('textbox', { name: /Email address or domain/ });
  await field.fill('promo dot test');
  await section.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(
    section.getByText('Enter an email address (name@example.com) or a domain (example.com)'),
  ).toHaveCount(1);

  await section.getByRole('combobox', { name: 'List' }).selectOption('block');
  await field.fill('Promo.TEST');
  await section.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(section.getByText('promo.test is now on your block list.')).toBeVisible();
  const row = section.getByRole('row').filter({ hasText: 'promo.test' });
  await expect(row).toContainText('Blocked');
  await expectNoAxeViolations(page);

  // One message from the blocked domain to both: Ben receives it, Ana's copy is held for her.
  const sent = await env.swaks([
    ...['--from', 'news@mail.promo.test', '--to', 'ana@acme.test,ben@acme.test'],
    ...['--header', 'Subject: Weekly promotions', '--body', 'Our best offers this week'],
  ]);
  expect(sent.code, sent.out).toBe(0);
  await env.sink.waitFor('ben@acme.test', (m) => m.subject === 'Weekly promotions');

  const mine = page.getByRole('table', { name: 'Your held messages' });
  await expect(async () => {
    await page.reload();
    await expect(mine.getByText('Weekly promotions')).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  // Held silently: no copy and no notice reached Ana.
  expect(
    env.sink.mails.filter((m) => m.to.includes('ana@acme.test') && m.subject.includes('Weekly promotions')),
  ).toEqual([]);

  // Removing the entry asks first.
  await section.getByRole('button', { name: 'Remove promo.test' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove this sender?' });
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(section.getByText('promo.test is no longer on your lists.')).toBeVisible();
  await expect(section.getByText(/You have not allowed or blocked any sender yet/)).toBeVisible();
  await expectNoAxeViolations(page);

  // On a phone the section fits the width.
  await page.setViewportSize({ width: 360, height: 780 });
  await expect(section.getByRole('button', { name: 'Add', exact: true })).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectNoAxeViolations(page);
});
