import { hashUrlForLegacyEntry } from './app/entry-location';
import { bundleOf, isPublicPage, publicPageHashOfLegacy } from './app/public-paths';
import { hasSignInResume } from './features/auth/sign-in-handover';

/**
 * The one script `index.html` loads. It settles the entry URL (legacy paths, `route`, sign-in
 * tokens), then loads one of two bundles: the public one (React and the few kilobytes of the pages a
 * recipient opens from a notification on a phone, and the login page) or the console's (React,
 * Mantine, the router).
 */
const legacyEntry = hashUrlForLegacyEntry(window.location);
if (legacyEntry) window.history.replaceState(null, '', legacyEntry);
const legacyPublicPage = publicPageHashOfLegacy(window.location.hash);
if (legacyPublicPage) window.history.replaceState(null, '', legacyPublicPage);

const bundle = bundleOf(window.location.hash, hasSignInResume());
// Two named loaders, not `if (publicPage) import(…) else import(…)`: the minifier folds those two
// calls of the preload helper into one with the console's dependency list, and the public pages
// would then preload the whole console.
const bundles = {
  public: () => import('./public-main'),
  console: () => import('./main'),
};
void bundles[bundle]();

// Leaving the public bundle for a console route, or the console for an email-actions page: the page
// loads afresh. The console serves the login page itself when its hash comes to it (a sign-out,
// Back): it has its own, and a reload would race the form its router has already shown.
window.addEventListener('hashchange', () => {
  const hash = window.location.hash;
  const leaves = bundle === 'public' ? bundleOf(hash, hasSignInResume()) === 'console' : isPublicPage(hash);
  if (leaves) window.location.reload();
});
