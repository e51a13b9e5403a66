import { hashUrlForLegacyEntry } from './app/entry-location';
import { isPublicPage } from './app/public-paths';

/**
 * The one script `index.html` loads. It settles the entry URL (legacy paths, `route`, sign-in
 * tokens), then loads one of two bundles: the public pages' (Preact, a few kilobytes: what a
 * recipient opening a notification on a phone needs) or the console's (React, Mantine, the
 * router). When the hash moves from one side to the other, the page loads afresh.
 */
const legacyEntry = hashUrlForLegacyEntry(window.location);
if (legacyEntry) window.history.replaceState(null, '', legacyEntry);

const publicPage = isPublicPage(window.location.hash);
if (publicPage) void import('./public-main');
else void import('./main');

window.addEventListener('hashchange', () => {
  if (isPublicPage(window.location.hash) !== publicPage) window.location.reload();
});
