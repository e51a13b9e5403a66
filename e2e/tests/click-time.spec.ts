import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * Click-time protection (issue 36) on real mail: a flagged message is delivered with its links
 * rewritten to Moat; the recipient's click on a suspicious link shows the warning page with the
 * real host written out, and goes on only when the person chooses to; a link whose host the admin
 * blocks afterwards is blocked at the click; the admin sees who clicked in Exceptions → Click-Time.
 */
let env: MoatWithMail;

test.beforeAll(async () => {
  env = await startMoatWithMail();
});
test.afterAll(async () => {
  await env.stop();
});

const rewritten = (html: string) =>
  [...html.matchAll(/href="(https?:\/\/[^"/]+\/l\/[^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

test('links of flagged mail are checked at the click: warned, continued, blocked, and listed for the admin', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const sent = await env.swaks([
    '--from',
    'parcels@outside.test',
    '--to',
    'ana@acme.test',
    '--header',
    'Subject: Your parcel is waiting',
    '--add-header',
    'MIME-Version: 1.0',
    '--add-header',
    'Content-Type: text/html; charset=utf-8',
    '--body',
    '<p>Your parcel: <a href="http://192.0.2.7/login">Log in</a> or <a href="https://evil.test/track">https://bank.test/account</a></p>',
  ]);
  expect(sent.code, sent.out).toBe(0);
  const mail = await env.sink.waitFor('ana@acme.test', (m) => m.subject.includes('Your parcel is waiting'));
  const links = rewritten(mail.html);
  expect(links).toHaveLength(2);
  // The delivered copy carries no clickable copy of the original links, and names nobody.
  expect(mail.html).not.toContain('href="http://192.0.2.7');
  expect(mail.html).not.toContain('href="https://evil.test');
  const local = (link: string) => link.replace(/^https?:\/\/[^/]+/, env.moat.url);

  // The recipient clicks the link to an IP address: a warning, with the real host written out.
  const reader = await browser.newContext();
  const tab = await reader.newPage();
  await tab.route('http://192.0.2.7/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<h1>The site itself</h1>' }),
  );
  await tab.goto(local(links[0]!));
  await expect(tab.getByRole('heading', { name: 'This link may be dangerous' })).toBeVisible();
  await expect(tab.getByText('192.0.2.7', { exact: true })).toBeVisible();
  await expect(tab.getByText('Link to an IP address: http://192.0.2.7/login')).toBeVisible();
  await expect(tab.getByRole('link')).toHaveCount(0);
  await expectNoAxeViolations(tab);
  for (const scheme of ['light', 'dark'] as const) {
    await tab.evaluate(
      (mode) => localStorage.setItem('moat.theme', mode),
      scheme === 'light' ? 'mixed' : 'dark',
    );
    await tab.reload();
    await expect(tab.getByRole('heading', { name: 'This link may be dangerous' })).toBeVisible();
    for (const width of [1440, 360]) {
      await tab.setViewportSize({ width, height: 800 });
      expect(await tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await keepShot(tab, `${SHOTS}/click-time/warning-${scheme}-${width}.png`);
    }
  }
  await tab.getByRole('button', { name: 'Open the site anyway' }).click();
  await expect(tab.getByRole('heading', { name: 'The site itself' })).toBeVisible();

  // The admin signs in and blocks the other link's host at click time.
  const signIn = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(signIn.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);
  const added = await page.request.post(`${env.moat.url}/api/v1/exceptions`, {
    headers: { 'x-requested-with': 'moat' },
    data: {
      list: 'block',
      kind: 'domain',
      scope: 'click_time',
      value: 'evil.test',
      comment: 'found malicious',
    },
  });
  expect(added.status(), await added.text()).toBe(200);

  // The reader's click on it now is blocked: no way on.
  await tab.goto(local(links[1]!));
  await expect(tab.getByRole('heading', { name: 'This link was blocked' })).toBeVisible();
  await expect(tab.getByText('The organisation blocked the site evil.test')).toBeVisible();
  await expect(tab.getByRole('button')).toHaveCount(0);
  for (const width of [1440, 360]) {
    await tab.setViewportSize({ width, height: 800 });
    await keepShot(tab, `${SHOTS}/click-time/blocked-${width}.png`);
  }
  // A changed link is refused outright.
  const changed = await tab.goto(local(links[1]!).replace(/u=[^&]+/, 'u=https%3A%2F%2Fattacker.example%2F'));
  expect(changed?.status()).toBe(400);
  await expect(tab.getByRole('heading', { name: 'This link is not valid' })).toBeVisible();
  await reader.close();

  // Exceptions → Click-Time: the choices, the entry, and who clicked the IP address.
  await page.goto(`${env.moat.url}/#/configuration/security-exceptions/clicktime-protection-list-management`);
  await expect(page.getByRole('heading', { name: 'Click-time protection' })).toBeVisible();
  await expect(
    page.getByRole('switch', { name: /Check links in mail delivered with a warning/ }),
  ).toBeChecked();
  await expect(page.getByText('evil.test', { exact: true }).first()).toBeVisible();
  await page.getByRole('searchbox', { name: 'Site or address' }).fill('192.0.2.7');
  await page.getByRole('button', { name: 'Find clicks' }).click();
  await expect(page.getByText('1 person clicked 192.0.2.7')).toBeVisible();
  const clicks = page.getByRole('table', { name: 'Clicks on checked links' });
  await expect(clicks.getByText('Opened after warning')).toBeVisible();
  await expect(clicks.getByText('Warned')).toBeVisible();
  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    // The list turns into cards when its box is narrow (a ResizeObserver, so after a frame).
    await expect
      .poll(() =>
        page.evaluate(() =>
          Array.from(document.querySelectorAll('main *'))
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(0, 3)
            .map((e) => `${e.tagName}.${e.className}`),
        ),
      )
      .toEqual([]);
    await keepShot(page, `${SHOTS}/click-time/console-${slug}-${width}.png`);
  });

  // Events: the person who went on past the warning, and the blocked click.
  await page.goto(`${env.moat.url}/#/security-events?type=click`);
  await expect(
    page.getByText(/went on past the warning to http:\/\/192\.0\.2\.7\/login/).first(),
  ).toBeVisible();
  await expect(
    page.getByText(/Blocked ana@acme\.test's click on https:\/\/evil\.test\/track/).first(),
  ).toBeVisible();
});
