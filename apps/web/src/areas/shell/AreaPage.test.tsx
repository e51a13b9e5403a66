import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { flattenNavItems, navLink } from '../../features/navigation/nav-items';
import { renderRoute } from '../../test/render-route';
import { stubShell } from './shell-fixtures';

/** The breadcrumb's links and its current page, without the separators. */
const crumbs = () =>
  [
    ...screen.getByRole('navigation', { name: 'Breadcrumb' }).querySelectorAll('a, [aria-current="page"]'),
  ].map((crumb) => [crumb.textContent, crumb.getAttribute('href')]);

describe('page frames behind the navigation', () => {
  it('takes the title and the breadcrumb from the navigation entry of the path', async () => {
    stubShell();
    renderRoute('/configuration/security-exceptions/external/url-reputation');
    expect(await screen.findByRole('heading', { level: 1, name: 'URL Reputation' })).toBeInTheDocument();
    expect(crumbs()).toEqual([
      ['Home', '/dashboard'],
      ['Security Settings', '/configuration'],
      ['Exceptions', '/configuration/security-exceptions'],
      ['URL Reputation', null],
    ]);
    // The page's screen (Exceptions, issue 11) under that frame.
    expect(
      await screen.findByRole('button', { name: 'Add exception' }, { timeout: 10_000 }),
    ).toBeInTheDocument();
  }, 20_000);

  it("falls back to the area's title for a path without an entry", async () => {
    stubShell();
    renderRoute('/analytics/somewhere/else');
    expect(await screen.findByRole('heading', { level: 1, name: 'Analytics' })).toBeInTheDocument();
    expect(crumbs()).toEqual([
      ['Home', '/dashboard'],
      ['Analytics', null],
    ]);
  });

  it('frames the pages of search results and of the help menu', async () => {
    stubShell();
    const profile = renderRoute('/profile/user/u-1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile' })).toBeInTheDocument();
    profile.unmount();
    renderRoute('/system-settings/product-updates');
    expect(await screen.findByRole('heading', { level: 1, name: 'Product updates' })).toBeInTheDocument();
  });

  const entries = flattenNavItems().filter((item) => item.href && !item.children);
  it.each(entries.map((item) => [item.id, navLink(item) as string]))(
    'the entry %s (%s) lands on a page frame',
    async (_id, link) => {
      stubShell({ features: { enableSmartArchiveTestFF: true } });
      const app = renderRoute(link);
      expect(await screen.findByRole('heading', { level: 1 })).toBeInTheDocument();
      expect(app.location()).toBe(link);
      expect(screen.queryByRole('heading', { name: /not found/i })).not.toBeInTheDocument();
    },
  );
});
