import { type MiddlewareFunction, replace } from 'react-router';
import { applyDebugParam } from '../lib/debug-mode';
import { decodeRouteTarget, ROUTE_PARAM, withParams } from './entry-location';

/**
 * Root middleware for the hash route's own query: `debug=1|0` switches troubleshooting mode, and
 * a `route` parameter (SPEC §2.3) is followed when it names a path of this app, else dropped.
 */
export function entryParamsMiddleware(): MiddlewareFunction {
  return ({ request }, next) => {
    const url = new URL(request.url);
    applyDebugParam(url.searchParams);
    if (!url.searchParams.has(ROUTE_PARAM)) return next();
    const target = decodeRouteTarget(url.searchParams.get(ROUTE_PARAM));
    url.searchParams.delete(ROUTE_PARAM);
    throw replace(withParams(target ?? url.pathname, url.searchParams));
  };
}
