import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';
import { mailScenarios } from '../support/mail-scenarios.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, type SweptScreen, sweep, THEMES } from '../support/sweep.ts';

/**
 * Every administration screen (issue 12) with real data behind it — users, an audit log, queues,
 * task runs — in both themes at 360 px and 1440 px, as the security side's sweep checks its own;
 * and a plain user's own Quarantined Items.
 */
let env: MoatWithMail;
let mail: ReturnType<typeof mailScenarios>;
let page: Page;
const errors: string[] = [];

const ADMIN_SCREENS: SweptScreen[] = [
  {
    name: 'user-management',
    path: () => '/system-settings/user-management',
    ready: (p) =>
      p
        .getByRole('table', { name: 'Users' })
        .or(p.getByRole('list', { name: 'Users' }))
        .getByText('ivy@acme.test'),
  },
  {
    name: 'settings',
    path: () => '/configuration/settings',
    ready: (p) => p.getByRole('region', { name: 'Sessions' }),
  },
  {
    name: 'system-logs',
    path: () => '/system-settings/system-logs',
    ready: (p) =>
      p
        .getByRole('table', { name: 'Audit log' })
        .or(p.getByRole('list', { name: 'Audit log' }))
        .getByText('Created a user')
        .first(),
  },
  {
    name: 'customization',
    path: () => '/system-settings/customization',
    ready: (p) => p.getByRole('region', { name: 'Default theme' }),
  },
  {
    name: 'licenses',
    path: () => '/system-settings/license-configuration',
    ready: (p) => p.getByRole('region', { name: 'Seats' }),
  },
  {
    name: 'service-status',
    path: () => '/system-settings/service-status',
    ready: (p) => p.getByRole('region', { name: 'Queues' }),
  },
  {
    name: 'system-tasks',
    path: () => '/system-settings/system-tasks',
    ready: (p) => p.getByRole('region', { name: 'Background tasks' }).getByText('Quarantine digests'),
  },
  {
    name: 'saas-applications',
    path: () => '/configuration/cloud-apps',
    ready: (p) => p.getByRole('region', { name: 'SMTP mail' }),
  },
  {
    name: 'security-engines',
    path: () => '/configuration/app-store',
    ready: (p) => p.getByRole('region', { name: 'Anti-Malware' }).getByText(/Running on this server/),
  },
];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  env = await startMoatWithMail();
  mail = mailScenarios(env);
  for (const args of [
    ['features:set', '--tenant', 'acme.test', 'enableSystemTask=on'],
    ['user:create', '--email', 'ivy@acme.test', '--role', 'user', '--password', 'ivy-password-1'],
  ]) {
    const run = await env.cli(...args);
    expect(run.code, run.stderr).toBe(0);
  }
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  await mail.sendPhishing('ivy@acme.test', 'Sweep for Ivy');
  await mail.signInAdmin(page);
  await dismissWelcome(page);
});
test.afterAll(async () => {
  await page?.context().close();
  await env?.stop();
  mail?.cleanUp();
});

for (const [theme, slug] of THEMES) {
  test(`every administration screen in the ${slug} theme at 1440 px and 360 px`, async () => {
    test.setTimeout(240_000);
    await sweep(page, env.moat.url, ADMIN_SCREENS, theme, slug);
    expect(errors, 'no page errors').toEqual([]);
  });
}

test("a plain user's own Quarantined Items in both themes at both widths", async ({ browser }) => {
  test.setTimeout(120_000);
  const ivy = await (await browser.newContext()).newPage();
  ivy.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  const link = await env.cli('auth:link', '--email', 'ivy@acme.test');
  expect(link.code, link.stderr).toBe(0);
  await ivy.goto(
    link.stdout
      .trim()
      .split('\n')
      .at(-1)!
      .replace(/^https?:\/\/[^/]+/, env.moat.url),
  );
  await expect(ivy).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(ivy);
  const own: SweptScreen[] = [
    {
      name: 'my-quarantine',
      path: () => '/user-interaction/quarantine-item',
      ready: (p) =>
        p
          .getByRole('table', { name: 'Your held messages' })
          .or(p.getByRole('list', { name: 'Your held messages' }))
          .getByText('Sweep for Ivy'),
    },
  ];
  for (const [theme, slug] of THEMES) await sweep(ivy, env.moat.url, own, theme, slug);
  expect(errors, 'no page errors').toEqual([]);
  await ivy.context().close();
});
