import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';

test.describe('foundation in a real browser', () => {
  test('/#/ shows the login page', async ({ page, pageErrors }) => {
    await page.goto('/#/');
    await expect(page).toHaveURL(/#\/auth\/login$/);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByLabel('Email')).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Password' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Forgot your password?' })).toBeVisible();
    await expectNoAxeViolations(page);
    expect(pageErrors).toEqual([]);
  });

  test('/#/nowhere shows the not-found page', async ({ page, pageErrors }) => {
    await page.goto('/#/nowhere');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expectNoAxeViolations(page);
    expect(pageErrors).toEqual([]);
  });

  test('/#/email_action.html?type=a&id=b lands on the action page with its query', async ({ page }) => {
    await page.goto('/#/email_action.html?type=a&id=b');
    await expect(page).toHaveURL(/#\/email-actions\/action\?type=a&id=b$/);
  });

  test('an old mail link opened as a real path lands on the hash route', async ({ page }) => {
    await page.goto('/email_action.html?type=quarantine&id=m1');
    await expect(page).toHaveURL(/#\/email-actions\/action\?type=quarantine&id=m1$/);
    // An unknown message: the page says it cannot check the identification.
    await expect(page.getByRole('heading', { name: 'Mail action' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveText("Error: Can't check the identification");
    // A restore link of a message that is gone ends on the 410 page (the restore page checks first).
    await page.goto('/restore_original.html?type=office365_emails&msg=m1');
    await expect(page).toHaveURL(/#\/error\/410$/);
    await expect(page.getByRole('heading', { name: 'This email no longer exists' })).toBeVisible();
  });

  test('the action page says which parameters are missing', async ({ page }) => {
    await page.goto('/#/email-actions/action?type=a');
    await expect(page.getByText('Could not find email message to restore.')).toBeVisible();
  });

  test('a console area without a session goes to sign-in with its return URL', async ({ page }) => {
    await page.goto('/#/security-events');
    await expect(page).toHaveURL(/#\/auth\/login\?returnUrl=%2Fsecurity-events$/);
  });

  test('the login page (the public bundle): no axe violations and no sideways scroll, both themes, 360 and 1440 px', async ({
    page,
  }) => {
    for (const theme of ['mixed', 'dark'] as const) {
      for (const width of [360, 1440]) {
        await page.setViewportSize({ width, height: 740 });
        await page.goto('/#/auth/login');
        await page.evaluate((mode) => localStorage.setItem('moat.theme', mode), theme);
        await page.reload();
        await expect(page.locator('html')).toHaveAttribute(
          'data-mantine-color-scheme',
          theme === 'dark' ? 'dark' : 'light',
        );
        await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
        await expectNoAxeViolations(page);
        // The form with its errors.
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect(page.getByText('Enter a valid email address.')).toBeVisible();
        await expectNoAxeViolations(page);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${theme} at ${width} px`).toBeLessThanOrEqual(0);
      }
    }
    const loaded = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname),
    );
    expect(loaded.filter((file) => /^\/assets\/public-main-.*\.js$/.test(file))).toHaveLength(1);
    expect(loaded.filter((file) => /^\/assets\/main-/.test(file))).toEqual([]);
  });

  test('/api/docs lists the endpoints', async ({ page, pageErrors }) => {
    await page.goto('/api/docs');
    await expect(page.getByText('/api/v1/generic/ui_features_public').first()).toBeVisible();
    await expect(page.getByText('/healthz').first()).toBeVisible();
    expect(pageErrors).toEqual([]);
  });

  test('/healthz answers 200', async ({ request }) => {
    const res = await request.get('/healthz');
    expect(res.status()).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
