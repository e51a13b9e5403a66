import './styles/public-pages.css';
import './styles/brand.css';
import { ROUTES } from '@moat/contracts/routes';
import { createRoot } from 'react-dom/client';
import { bundleOf, hashLocation } from './app/public-paths';
import { PublicPages } from './areas/email-actions/PublicPages';
import { hasSignInResume } from './features/auth/sign-in-handover';
import { storedColorScheme } from './lib/theme-mode';

/**
 * The public bundle: the email-actions pages (SPEC §2.2) and the login page (SPEC §2.1) on React,
 * without the console's Mantine, router, TanStack Query or zod. `src/boot.ts` loads it for their
 * hash paths.
 */
document.documentElement.lang = 'en';
// Mantine's attribute and variable names, so that `brand.css` tints these pages as it tints the console.
document.documentElement.dataset.mantineColorScheme = storedColorScheme() ?? 'light';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const root = createRoot(container);

function show(): void {
  // A console route: the boot script is loading the page afresh for it; nothing to show meanwhile.
  if (bundleOf(window.location.hash, hasSignInResume()) === 'console') return;
  const { pathname, search } = hashLocation(window.location.hash);
  if (pathname === ROUTES.auth.login) {
    // In a chunk of its own: the email-actions pages do not load it.
    void import('./areas/auth/PublicLoginPage').then(({ PublicLoginPage }) => {
      if (hashLocation(window.location.hash).pathname === ROUTES.auth.login) root.render(<PublicLoginPage />);
    });
    return;
  }
  root.render(<PublicPages pathname={pathname} search={search} />);
}
show();
window.addEventListener('hashchange', show);
