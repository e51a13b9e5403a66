import { hashUrlForLegacyEntry } from './app/entry-location';
import { isPublicPage, publicPageHashOfLegacy } from './app/public-paths';

/**
 * The one script `index.html` loads. It settles the entry URL (legacy paths, `route`, sign-in
 * tokens), then loads one of two bundles: the public pages' (Preact, a few kilobytes: what a
 * recipient opening a notification on a phone needs) or the console's (React, Mantine, the
 * router). When the hash moves from one side to the other, the page loads afresh.
 */
const legacyEntry = hashUrlForLegacyEntry(window.location);
if (legacyEntry) window.history.replaceState(null, '', legacyEntry);
const legacyPublicPage = publicPageHashOfLegacy(window.location.hash);
if (legacyPublicPage) window.history.replaceState(null, '', legacyPublicPage);

const publicPage = isPublicPage(window.location.hash);
// Two named loaders, not `if (publicPage) import(…) else import(…)`: the minifier folds those two
// calls of the preload helper into one with the console's dependency list, and the public pages
// would then preload the whole console.
const bundles = {
  public: () => import('./public-main'),
  console: () => import('./main'),
};
void bundles[publicPage ? 'public' : 'console']();

window.addEventListener('hashchange', () => {
  if (isPublicPage(window.location.hash) !== publicPage) window.location.reload();
});
