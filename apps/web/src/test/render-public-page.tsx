import { render } from '@testing-library/react';
import { hashLocation } from '../app/public-paths';
import { PublicLoginPage } from '../areas/auth/PublicLoginPage';
import { PublicPages } from '../areas/email-actions/PublicPages';

/**
 * Renders the public pages' bundle at a hash path (`/email-actions/restore-email?…`), as
 * `src/public-main.tsx` does, with the same React; unmounted after the test (Testing Library's
 * cleanup).
 */
export function renderPublicPage(path: string) {
  const { pathname, search } = hashLocation(`#${path}`);
  return render(<PublicPages pathname={pathname} search={search} />);
}

/** Renders the public bundle's login page (`/auth/login` opened afresh); unmounted after the test. */
export function renderPublicLoginPage() {
  return render(<PublicLoginPage />);
}
