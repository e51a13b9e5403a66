import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * Anti-phishing (issue 35) on real mail: the lure that used to reach the inbox with a banner
 * ("Microsoft 365" from micros0ft-login.example, a link showing login.microsoftonline.com) is held
 * as phishing; the recipient's notice names no dangerous link; the admin's message trace lists
 * each piece of evidence in words with its points.
 */
let env: MoatWithMail;

test.beforeAll(async () => {
  env = await startMoatWithMail();
});
test.afterAll(async () => {
  await env.stop();
});

test('the brand lure is held as phishing, and the trace says why, piece by piece', async ({ page }) => {
  test.setTimeout(120_000);
  const sent = await env.swaks([
    '--from',
    'security@micros0ft-login.example',
    '--to',
    'ana@acme.test',
    '--header',
    'From: "Microsoft 365" <security@micros0ft-login.example>',
    '--header',
    'Subject: Unusual sign-in activity',
    '--add-header',
    'MIME-Version: 1.0',
    '--add-header',
    'Content-Type: text/html; charset=utf-8',
    '--body',
    '<p>We detected unusual sign-in activity. Verify your account within 24 hours.</p>' +
      '<a href="https://micros0ft-login.example/owa/auth">https://login.microsoftonline.com/</a>',
  ]);
  expect(sent.code, sent.out).toBe(0);
  // Held: the recipient is told, and the notice carries no copy of the lure's address to click.
  const notice = await env.sink.waitFor(
    'ana@acme.test',
    (m) => m.subject === 'A message to you was held: Unusual sign-in activity',
  );
  // The reasons name the lure's hosts only defanged (micros0ft-login[.]example), three at most.
  for (const body of [notice.html, notice.text]) {
    expect(body).not.toContain('micros0ft-login.example');
    expect(body).not.toContain('login.microsoftonline.com');
    expect(body).toContain('micros0ft-login[.]example');
  }
  expect(notice.text).toMatch(/Why: [^\n]*\(and \d+ more\)/);

  const link = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(link.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);
  await page.goto(`${env.moat.url}/#/mail-explorer?verdict=phishing&range=30d`);
  await page
    .getByRole('table', { name: 'Processed messages' })
    .getByRole('link', { name: 'Open the trace of Unusual sign-in activity' })
    .click();
  await expect(page.getByRole('heading', { name: 'Message trace', level: 1 })).toBeVisible();
  const evidence = page.getByRole('region', { name: 'Phishing evidence' });
  await expect(evidence).toBeVisible();
  await expect(evidence.getByTestId('phishing-points')).toHaveText(/^\d+(\.\d)? points$/);
  await expect(evidence).toContainText('suspicious from 3, phishing from 6');
  await expect(evidence).toContainText(
    'The sender calls itself "Microsoft 365" (Microsoft), but writes from micros0ft-login.example',
  );
  await expect(evidence).toContainText(
    "The sender's domain micros0ft-login.example imitates Microsoft's domains",
  );
  await expect(evidence).toContainText(
    'Link text names login.microsoftonline.com (Microsoft) but leads to micros0ft-login.example',
  );
  await expect(evidence).toContainText('BRAND_DISPLAY_NAME');
  await expect(page.getByText(/Anti-phishing: phishing \(\+4 points\)/).first()).toBeVisible();
  await expectNoAxeViolations(page);

  await inEachLook(page, async (slug, width) => {
    await expect(evidence).toBeVisible();
    // Nothing of the evidence runs off the side of a phone.
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/anti-phishing/trace-${slug}-${width}.png`);
  });
});
