/** @jsxImportSource preact */
import './styles/public-pages.css';
import './styles/brand.css';
import { ROUTES } from '@moat/contracts/routes';
import { render } from 'preact';
import { bundleOf, hashLocation } from './app/public-paths';
import { PublicPages } from './areas/email-actions/PublicPages';
import { hasSignInResume } from './features/auth/sign-in-handover';
import { storedColorScheme } from './lib/theme-mode';

/**
 * The public bundle: Preact, the email-actions pages (SPEC §2.2) and the login page (SPEC §2.1),
 * without the console's React, Mantine, router, i18next or zod. `src/boot.ts` loads it for their
 * hash paths.
 */
document.documentElement.lang = 'en';
// Mantine's attribute and variable names, so that `brand.css` tints these pages as it tints the console.
document.documentElement.dataset.mantineColorScheme = storedColorScheme() ?? 'light';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const root = container;

function show(): void {
  // A console route: the boot script is loading the page afresh for it; nothing to show meanwhile.
  if (bundleOf(window.location.hash, hasSignInResume()) === 'console') return;
  const { pathname, search } = hashLocation(window.location.hash);
  if (pathname === ROUTES.auth.login) {
    // In a chunk of its own: the email-actions pages do not load it.
    void import('./areas/auth/PublicLoginPage').then(({ PublicLoginPage }) => {
      if (hashLocation(window.location.hash).pathname === ROUTES.auth.login)
        render(<PublicLoginPage />, root);
    });
    return;
  }
  render(<PublicPages pathname={pathname} search={search} />, root);
}
show();
window.addEventListener('hashchange', show);
