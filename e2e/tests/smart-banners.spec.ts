import path from 'node:path';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { ROOT } from '../support/server.ts';

/**
 * User Interaction → Smart Banners (issue 33): a banner set on the screen — its words, colour and
 * subject tag — is what the next message delivered through the gateway carries, read from the
 * mailbox (the SMTP sink); the preview shows a held message with it, in a frame that runs nothing.
 */
let env: MoatWithMail;
const PREVIEW_FRAME = 'iframe[title="The message as its recipient would see it"]';

function sendSuspicious(subject: string) {
  return env.swaks([
    '--from',
    'bob@outside.test',
    '--to',
    'ana@acme.test',
    '--header',
    `Subject: ${subject}`,
    '--add-header',
    'Content-Type: text/html; charset=utf-8',
    '--body',
    '<p>Your parcel</p><a href="http://192.0.2.7/track">Track it</a>',
  ]);
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  env = await startMoatWithMail();
  // Suspicious for its link alone: the anti-spam engine is off for this organisation.
  const tools = await env.cli('tenant:apps', '--tenant', 'acme.test', '--disable-tools', 'anti_spam');
  expect(tools.code, tools.stderr).toBe(0);
  const flags = await env.cli('features:set', '--tenant', 'acme.test', 'enableSmartBanners=on');
  expect(flags.code, flags.stderr).toBe(0);
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

test('a banner set on Smart Banners is the banner of the next delivered message', async ({ page }) => {
  test.setTimeout(150_000);
  const signIn = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(signIn.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.getByRole('button', { name: 'User Interaction' }).click();
  await page.getByRole('link', { name: 'Smart Banners' }).click();
  await expect(page).toHaveURL(/#\/user-interaction\/configuration\/smart-banners$/);
  const suspicious = page.getByRole('region', { name: 'Suspicious' });
  await expect(suspicious.getByText('The policy: Strip attachments.')).toBeVisible();

  await suspicious
    .getByRole('textbox', { name: /Banner text/ })
    .fill('IT desk: this one looks odd, check before you click.');
  await suspicious.getByRole('radio', { name: 'Blue' }).check();
  await suspicious.getByRole('textbox', { name: /Subject tag/ }).fill('[Check first]');
  // The preview shows the example message with the banner on screen, before anything is saved.
  const frame = page.frameLocator(PREVIEW_FRAME);
  await expect(frame.getByText('IT desk: this one looks odd, check before you click.')).toBeVisible();
  await expect(page.getByText('[Check first] Your invoice is ready')).toBeVisible();
  // The preview frame holds the sender's message, not the console: axe checks everything around it.
  await expectNoAxeViolations(page, [PREVIEW_FRAME]);
  await page.getByRole('button', { name: 'Save banners' }).click();
  await expect(page.getByText('Banners saved. The gateway uses them for the next message.')).toBeVisible();

  // The next suspicious message through the gateway carries exactly that banner.
  const sent = await sendSuspicious('Parcel waiting');
  expect(sent.code, sent.out).toBe(0);
  const delivered = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === '[Check first] Parcel waiting',
  );
  const html = delivered.html.replace(/=\r?\n/g, '');
  expect(html).toContain('IT desk: this one looks odd, check before you click.');
  expect(html).toContain('border:2px solid #1864ab');
  expect(html).not.toContain('Caution: this message looks suspicious');
  expect(delivered.text.startsWith('IT desk: this one looks odd, check before you click.')).toBe(true);
  expect(String(delivered.headers.get('x-moat-warning'))).toContain('IT desk');

  // A held message previews as its recipient would get it: no script runs, no link is left.
  const held = await env.cli(
    'quarantine:import',
    '--file',
    path.join(ROOT, 'e2e/fixtures/invoice.eml'),
    '--recipient',
    'ana@acme.test',
    '--verdict',
    'suspicious',
  );
  expect(held.code, held.stderr).toBe(0);
  await page.reload();
  const message = page.getByRole('combobox', { name: 'Message' });
  await expect(message.locator('option')).toHaveCount(2);
  await message.selectOption({ index: 1 });
  await expect(page.getByText(/\[Check first\] Invoice/)).toBeVisible();
  await expect(frame.locator('a[href]')).toHaveCount(0);
  await expect(frame.locator('script')).toHaveCount(0);

  // At 360 px the screen fits the width.
  await page.setViewportSize({ width: 360, height: 800 });
  await page.reload();
  await expect(page.getByRole('region', { name: 'Suspicious' })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
