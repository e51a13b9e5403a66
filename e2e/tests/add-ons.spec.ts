import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * The Add-ons Store (issue 33): each add-on says what it does and where it stands; one this
 * edition does not ship offers no switch, only a request, which reaches the provider's support
 * address (the SMTP sink) and is shown on the page afterwards.
 */
let env: MoatWithMail;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  env = await startMoatWithMail({ SUPPORT_EMAIL: 'support@provider.test' });
  const flags = await env.cli('features:set', '--tenant', 'acme.test', 'enableAddOnsStore=on');
  expect(flags.code, flags.stderr).toBe(0);
});
test.afterAll(async () => {
  await env.stop();
});

test('an admin asks the provider for an add-on this edition does not ship', async ({ page }) => {
  test.setTimeout(120_000);
  const signIn = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(signIn.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.goto(`${env.moat.url}/#/add-ons-store`);
  const archiving = page.getByRole('region', { name: 'Archiving' });
  await expect(archiving.getByText('Not part of this edition')).toBeVisible();
  await expectNoAxeViolations(page);
  await archiving.getByRole('link', { name: 'Archiving' }).click();
  await expect(page).toHaveURL(/#\/add-ons-store\/add-on-archiving$/);
  await expect(
    page.getByText(/does not include the Archiving module, so it cannot be turned on here/),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: /Turn on/ })).toHaveCount(0);

  await page
    .getByRole('textbox', { name: /A note for your provider/ })
    .fill('For our 40 people, from January.');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Ask my provider' }).click();
  await expect(page.getByText('Your provider was asked. A representative will contact you.')).toBeVisible();
  const mail = await env.sink.waitFor('support@provider.test', (m) =>
    m.subject.startsWith('Add-on request from'),
  );
  expect(mail.subject).toMatch(/: Archiving$/);
  expect(mail.text).toContain('admin@acme.test');
  expect(mail.text).toContain('For our 40 people, from January.');

  // The page says it was asked, by whom; asking again the same day is refused in words.
  await page.reload();
  await expect(page.getByText(/Your provider was asked on .* by admin@acme\.test\./)).toBeVisible();
  await page.getByRole('button', { name: 'Ask my provider' }).click();
  await expect(page.getByText('Your provider was asked for this add-on less than a day ago')).toBeVisible();

  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${env.moat.url}/#/add-ons-store`);
  await expect(page.getByRole('region', { name: 'DMARC' })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
