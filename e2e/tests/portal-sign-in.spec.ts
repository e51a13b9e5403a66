import { signPortalToken } from '../../apps/api/src/modules/auth/portal-tokens.ts';
import { expect, test } from '../support/fixtures.ts';
import { type RunningMoat, runCli, startMoat } from '../support/server.ts';
import { openSignInLink } from '../support/sign-in-link.ts';

/**
 * The portal sign-ins of SPEC §3 "Auth tokens" and §4 "Start-up" in Chromium, on the real server:
 * each brand's link signs the user in once and lands on the route it names; the same link again
 * goes to error/401. Links come from `auth:link --brand` (the operator) or are signed with
 * PORTAL_LOGIN_SECRET here, as a parent portal does.
 */
const SECRET = 'the parent portal and Moat share this secret (32+ bytes)';
const ADMIN = 'admin@portal.test';
let moat: RunningMoat;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  moat = await startMoat({
    env: { ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: 'portal-admin-password', PORTAL_LOGIN_SECRET: SECRET },
  });
  const onboarded = await runCli(['tenant:update', '--tenant', 'portal.test', '--onboarded', 'on'], {
    DATA_DIR: moat.dataDir,
  });
  expect(onboarded.code, onboarded.stderr).toBe(0);
});
test.afterAll(async () => {
  await moat?.stop();
});

const overview = (page: import('@playwright/test').Page) =>
  expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
const refused = async (page: import('@playwright/test').Page) => {
  await expect(page).toHaveURL(/#\/error\/401$/);
  await expect(page.getByRole('heading', { name: 'This link is invalid or has expired' })).toBeVisible();
};

test('the checkpoint brand’s first-time token signs in once; the same link again is refused', async ({
  page,
}) => {
  const link = await openSignInLink(page, moat, ADMIN, '--brand', 'checkpoint');
  expect(link).toMatch(/#\/dashboard\?firstTimeToken=/);
  await expect(page).toHaveURL(/#\/dashboard$/);
  await overview(page);

  await page.context().clearCookies();
  await page.goto('about:blank');
  await page.goto(link);
  await refused(page);
});

test('the firewall vendor’s token signs in with its serial number, as authtoken+domain or packed in spogSrc', async ({
  page,
}) => {
  const link = await openSignInLink(page, moat, ADMIN, '--brand', 'firewall', '--serial', 'FW-0042');
  expect(link).toMatch(/authtoken=.+&domain=FW-0042$/);
  await overview(page);

  // Another link, packed: spogSrc = base64("authtoken=…&domain=…"), opened on the Policy page.
  await page.context().clearCookies();
  const second = await runCli(['auth:link', '--email', ADMIN, '--brand', 'firewall', '--serial', 'FW-0042'], {
    DATA_DIR: moat.dataDir,
  });
  const query = new URL(second.stdout.trim().split('\n').at(-1)!.replace('#/dashboard', '')).searchParams;
  const packed = Buffer.from(`authtoken=${query.get('authtoken')}&domain=FW-0042`).toString('base64');
  await page.goto('about:blank');
  await page.goto(`${moat.url}/#/policy?spogSrc=${encodeURIComponent(packed)}`);
  await expect(page).toHaveURL(/#\/policy$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Policy' })).toBeVisible();

  // The same token for another firewall is refused.
  await page.context().clearCookies();
  await page.goto('about:blank');
  await page.goto(`${moat.url}/#/dashboard?authtoken=${query.get('authtoken')}&domain=FW-0043`);
  await refused(page);
});

test('a parent portal’s signed access token signs in once through server_login', async ({ page }) => {
  const token = signPortalToken(SECRET, {
    email: ADMIN,
    brand: 'msp',
    exp: Math.floor(Date.now() / 1000) + 300,
  });
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/v1/current_user/server_login')) {
      posts.push(request.headers()['content-type'] ?? '');
    }
  });
  const link = `${moat.url}/#/dashboard?accessToken=${encodeURIComponent(token)}`;
  await page.goto(link);
  await overview(page);
  expect(posts).toHaveLength(1);
  expect(posts[0]).toMatch(/^multipart\/form-data; boundary=/);

  await page.context().clearCookies();
  await page.goto('about:blank');
  await page.goto(link);
  await refused(page);
});
