import { LEGACY_REDIRECTS, legacyTarget } from '@moat/contracts/routes';
import { data, type LoaderFunctionArgs, type RouteObject, redirect } from 'react-router';

/** Sends a legacy path (SPEC §2.3) to its new place, keeping the rest of the path and the query. */
export function legacyRedirectLoader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const target = legacyTarget(url.pathname);
  if (target === null) throw data(null, { status: 404 });
  return redirect(`${target}${url.search}`);
}

/**
 * One route per legacy path of contracts, plus `<path>/*` where the rest of the path is kept.
 * They only redirect, so they render nothing (`element: null`).
 */
export function legacyRoutes(): RouteObject[] {
  return LEGACY_REDIRECTS.flatMap(({ from, keepRest }) => {
    const paths = keepRest ? [from, `${from}/*`] : [from];
    return paths.map((path): RouteObject => ({ path, loader: legacyRedirectLoader, element: null }));
  });
}
