/** @jsxImportSource preact */
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach } from 'vitest';
import { hashLocation } from '../app/public-paths';
import { PublicLoginPage } from '../areas/auth/PublicLoginPage';
import { PublicPages } from '../areas/email-actions/PublicPages';

const mounted = new Set<HTMLElement>();

afterEach(() => {
  for (const container of mounted) {
    render(null, container);
    container.remove();
  }
  mounted.clear();
  document.title = '';
});

/**
 * Renders the public pages' bundle (Preact) at a hash path (`/email-actions/restore-email?…`),
 * as `src/public-main.tsx` does; unmounted after the test.
 */
export function renderPublicPage(path: string) {
  const container = document.createElement('div');
  document.body.append(container);
  mounted.add(container);
  const { pathname, search } = hashLocation(`#${path}`);
  act(() => {
    render(<PublicPages pathname={pathname} search={search} />, container);
  });
  return { container };
}

/** Renders the public bundle's login page (`/auth/login` opened afresh); unmounted after the test. */
export function renderPublicLoginPage() {
  const container = document.createElement('div');
  document.body.append(container);
  mounted.add(container);
  act(() => {
    render(<PublicLoginPage />, container);
  });
  return { container };
}
