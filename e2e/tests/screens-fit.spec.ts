import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';
import { mailScenarios } from '../support/mail-scenarios.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, keepShot, SHOTS, setTheme, THEMES } from '../support/sweep.ts';

/**
 * The lists fit their screen (issue 33): with very long subjects and sender addresses, Mail
 * Explorer at 1440 px shows every column and the row actions without sideways scrolling, and
 * Events and the other lists at 360 px become cards that show the subject, the verdict and Open.
 */
let env: MoatWithMail;
let mail: ReturnType<typeof mailScenarios>;
let page: Page;
const LONG_SUBJECT = `Quarterly-financial-statements-and-the-board-presentation-${'x'.repeat(120)}-final`;
const LONG_SENDER = `a.very.long.sender.address.from.the.marketing.department@${'sub.'.repeat(8)}long-domain.example`;

const overflow = (p: Page) =>
  p.evaluate(() => {
    const root = document.documentElement;
    // Any element wider than its scrolling box: the page, or a box that scrolls sideways inside it.
    const inner = Array.from(document.querySelectorAll<HTMLElement>('main *')).filter(
      (el) =>
        el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX),
    );
    return { page: root.scrollWidth - root.clientWidth, inner: inner.length };
  });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  env = await startMoatWithMail();
  mail = mailScenarios(env);
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await env.swaks([
    ...['--from', LONG_SENDER, '--to', 'ana.maria.lopez-fernandez@acme.test'],
    ...['--header', `Subject: ${LONG_SUBJECT}`, '--body', 'Figures attached'],
  ]);
  await env.sink.waitFor('ana.maria.lopez-fernandez@acme.test', (m) => m.subject === LONG_SUBJECT);
  await mail.sendPhishing('cara@acme.test', `Your password expires today ${LONG_SUBJECT}`);
  await mail.signInAdmin(page);
  await dismissWelcome(page);
});
test.afterAll(async () => {
  await page?.context().close();
  await env?.stop();
  mail?.cleanUp();
});

test('Mail Explorer at 1440 px: every column and the row actions in view, nothing scrolls sideways', async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${env.moat.url}/#/mail-explorer`);
  const table = page.getByRole('table', { name: 'Processed messages' });
  await expect(table.getByText(LONG_SUBJECT, { exact: true })).toBeVisible();
  for (const column of ['Received', 'From', 'To', 'Subject', 'Verdict', 'Action', 'Authentication']) {
    await expect(table.getByRole('columnheader', { name: new RegExp(`\\b${column}(?!s)`) })).toBeInViewport();
  }
  // Authentication in one column, in words.
  await expect(table.getByText(/SPF/).first()).toBeVisible();
  expect(await overflow(page)).toEqual({ page: 0, inner: 0 });
  // Each row's actions are in view, whole, at the right of the table.
  const open = table.getByRole('link', { name: `Open the trace of ${LONG_SUBJECT}` });
  await expect(open).toBeInViewport({ ratio: 1 });
  const box = (await open.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(1440);
  await expect(table.getByRole('button', { name: `Details of ${LONG_SUBJECT}` })).toBeInViewport({
    ratio: 1,
  });
  for (const [theme, slug] of THEMES) {
    await setTheme(page, theme);
    await keepShot(page, `${SHOTS}/fit-mail-explorer-${slug}-1440.png`);
  }
  await setTheme(page, 'Mixed theme');
});

test('Events, Mail Explorer and Quarantined Items at 360 px: cards with the subject, the verdict and Open', async () => {
  await page.setViewportSize({ width: 360, height: 780 });
  for (const [path, name, verdict, open] of [
    ['/security-events', 'Security events', 'Phishing', 'Open the event: Your password expires today'],
    ['/mail-explorer', 'Processed messages', 'Clean', `Open the trace of ${LONG_SUBJECT}`],
    [
      '/user-interaction/quarantine-item',
      'Quarantined messages',
      'Phishing',
      'Open Your password expires today',
    ],
  ] as const) {
    await page.goto(`${env.moat.url}/#${path}`);
    const cards = page.getByRole('list', { name });
    const card = cards
      .getByRole('listitem')
      .filter(
        verdict === 'Clean'
          ? { has: page.getByText(LONG_SUBJECT, { exact: true }) }
          : { hasText: 'Your password' },
      )
      .first();
    await expect(card).toBeVisible();
    await expect(page.getByRole('table')).toHaveCount(0);
    await expect(
      card
        .getByText(verdict === 'Clean' ? LONG_SUBJECT : /^Your password expires today/, {
          exact: verdict === 'Clean',
        })
        .first(),
    ).toBeVisible();
    await expect(card.getByText(verdict, { exact: true })).toBeVisible();
    const action = card.getByRole(path === '/user-interaction/quarantine-item' ? 'button' : 'link', {
      name: new RegExp(`^${open.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    });
    await expect(action).toBeVisible();
    expect((await action.boundingBox())!.x + (await action.boundingBox())!.width).toBeLessThanOrEqual(360);
    expect(await overflow(page), path).toEqual({ page: 0, inner: 0 });
    for (const [theme, slug] of THEMES) {
      await setTheme(page, theme);
      await keepShot(page, `${SHOTS}/fit-${path.split('/').at(-1)}-${slug}-360.png`);
    }
    await setTheme(page, 'Mixed theme');
  }
});
