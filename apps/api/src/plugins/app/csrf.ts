import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';
import { CLI_BRIDGE_PATH } from '../../modules/cli-bridge/cli-bridge.routes.ts';

export const CSRF_HEADER = 'x-requested-with';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A signed form posted across sites by design (SAML's HTTP-POST binding): no custom header. */
    crossSiteForm?: boolean;
  }
}
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every state-changing request must carry a custom header, whatever its path looks like (the
 * router decodes "%61pi" to "api", so the rule does not look at the path). A browser sends a
 * custom header cross-origin only after a CORS preflight, which this server never grants; and a
 * browser that says the request is cross-site is refused outright. The CLI bridge authenticates
 * with its own secret instead. A route an identity provider posts to across sites (the SAML ACS)
 * says so with `config.crossSiteForm`: its answer is proven by its own signature, not by the browser.
 */
export const csrfPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method) || request.routeOptions.url === CLI_BRIDGE_PATH) return;
    if (request.routeOptions.config.crossSiteForm === true) return;
    if (!request.headers[CSRF_HEADER] || request.headers['sec-fetch-site'] === 'cross-site') {
      throw new AppError(
        'forbidden',
        `Missing the ${CSRF_HEADER} header required on state-changing requests`,
      );
    }
  });
});
