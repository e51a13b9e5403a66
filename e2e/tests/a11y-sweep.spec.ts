import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';
import { mailScenarios } from '../support/mail-scenarios.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, type SweptScreen, sweep, THEMES } from '../support/sweep.ts';

/**
 * Every screen of the console's security side, with real mail behind it (clean, stripped, held,
 * a restore request, a report, an exception), in both themes at 360 px and 1440 px: each waits
 * for its data, has no axe violations, does not scroll sideways on a phone and never says "No
 * data yet". A full-page screenshot of each lands in /tmp/shots for a person to look at.
 */
let env: MoatWithMail;
let mail: ReturnType<typeof mailScenarios>;
let page: Page;
const errors: string[] = [];
/** Found while seeding: an event's page and a message's trace. */
let eventPath = '';
let tracePath = '';

const SCREENS: SweptScreen[] = [
  { name: 'overview', path: () => '/dashboard', ready: (p) => p.getByRole('link', { name: 'Sweep held' }) },
  {
    name: 'events',
    path: () => '/security-events',
    ready: (p) =>
      p
        .getByRole('table', { name: 'Security events' })
        .or(p.getByRole('list', { name: 'Security events' }))
        .getByText('Sweep held')
        .first(),
  },
  {
    name: 'event-detail',
    path: () => eventPath,
    ready: (p) => p.getByRole('region', { name: 'What happened to the message' }),
  },
  {
    name: 'mail-explorer',
    path: () => '/mail-explorer',
    ready: (p) =>
      p
        .getByRole('table', { name: 'Processed messages' })
        .or(p.getByRole('list', { name: 'Processed messages' }))
        .getByText('Sweep lunch'),
  },
  {
    name: 'trace',
    path: () => tracePath,
    ready: (p) => p.getByRole('region', { name: 'Timeline' }).getByText(/Delivery to ana@acme\.test: sent/),
  },
  {
    name: 'quarantine-items',
    path: () => '/user-interaction/quarantine-item',
    ready: (p) => p.getByRole('table').or(p.getByRole('list')).getByText('Sweep held').first(),
  },
  {
    name: 'restore-requests',
    path: () => '/user-interaction/restore-request-and-clean-attachments',
    ready: (p) => p.getByRole('table').or(p.getByRole('list')).getByText('Please let this one through'),
  },
  {
    name: 'policy',
    path: () => '/policy',
    ready: (p) =>
      p.getByRole('region', { name: 'Suspicious' }).getByRole('combobox', { name: 'Gateway action' }),
  },
  {
    name: 'exceptions',
    path: () => '/configuration/security-exceptions',
    ready: (p) => p.getByRole('table').or(p.getByRole('list')).getByText('offers@bulk.test'),
  },
  {
    name: 'phishing-reports',
    path: () => '/user-interaction/reported-phishing',
    ready: (p) =>
      p
        .getByRole('table', { name: 'Reported messages' })
        .or(p.getByRole('list', { name: 'Reported messages' }))
        .getByText('Sweep reported'),
  },
  {
    name: 'user-interaction-dashboard',
    path: () => '/user-interaction/dashboard',
    ready: (p) =>
      p
        .getByRole('table', { name: 'Restore requests and reports per day' })
        .or(p.getByRole('list', { name: 'Restore requests and reports per day' })),
  },
  {
    name: 'modified-attachments',
    path: () => '/user-interaction/modified-attachments',
    ready: (p) => p.getByRole('table').or(p.getByRole('list')).getByText('update.exe'),
  },
  {
    name: 'analytics',
    path: () => '/analytics/dashboard',
    ready: (p) =>
      p
        .getByRole('table', { name: 'Top targeted recipients' })
        .or(p.getByRole('list', { name: 'Top targeted recipients' }))
        .getByText('ana@acme.test'),
  },
];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  env = await startMoatWithMail();
  mail = mailScenarios(env);
  expect(
    (await env.cli('gateway:sender-list', '--tenant', 'acme.test', '--block', 'offers@bulk.test')).code,
  ).toBe(0);
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));

  await mail.sendClean('ana@acme.test', 'Sweep lunch');
  const stripped = await mail.sendStripped('ana@acme.test', 'Sweep tool');
  const held = await mail.sendPhishing('cara@acme.test', 'Sweep held');
  const reported = await mail.sendPhishing('ben@acme.test', 'Sweep reported');
  await mail.requestOriginal(page, stripped, 'ana@acme.test', 'I need this tool');
  await mail.requestRestore(page, held, 'cara@acme.test', 'Please let this one through');
  await mail.reportPhishing(page, reported, 'ben@acme.test');

  await mail.signInAdmin(page);
  await dismissWelcome(page);
  await page.goto(`${env.moat.url}/#/security-events`);
  await page.getByRole('link', { name: 'Open the event: Sweep held' }).first().click();
  await expect(page).toHaveURL(/#\/security-events\/[0-9a-f-]{36}$/);
  eventPath = new URL(page.url()).hash.slice(1);
  await page.goto(`${env.moat.url}/#/mail-explorer`);
  const trace = page.getByRole('link', { name: 'Open the trace of Sweep lunch' });
  tracePath = (await trace.getAttribute('href'))!.replace(/^#/, '');
});
test.afterAll(async () => {
  await page?.context().close();
  await env?.stop();
  mail?.cleanUp();
});

for (const [theme, slug] of THEMES) {
  test(`every security screen in the ${slug} theme at 1440 px and 360 px`, async () => {
    test.setTimeout(240_000);
    await sweep(page, env.moat.url, SCREENS, theme, slug);
    expect(errors, 'no page errors').toEqual([]);
  });
}
