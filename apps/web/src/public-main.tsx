/** @jsxImportSource preact */
import './styles/public-pages.css';
import './styles/brand.css';
import { render } from 'preact';
import { hashLocation } from './app/public-paths';
import { PublicPages } from './areas/email-actions/PublicPages';
import { storedColorScheme } from './lib/theme-mode';

/**
 * The public pages' bundle (SPEC §2.2): Preact and the email-actions flow, without the console's
 * React, Mantine, router, i18next or zod. `src/boot.ts` loads it for the public hash paths.
 */
document.documentElement.lang = 'en';
// Mantine's attribute and variable names, so that `brand.css` tints these pages as it tints the console.
document.documentElement.dataset.mantineColorScheme = storedColorScheme() ?? 'light';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const root = container;

function show(): void {
  const { pathname, search } = hashLocation(window.location.hash);
  render(<PublicPages pathname={pathname} search={search} />, root);
}
show();
window.addEventListener('hashchange', show);
