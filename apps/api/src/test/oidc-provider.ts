import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/*
 * A real OpenID Connect provider for the tests, on loopback: `oidc-provider` (the certified
 * implementation) with one confidential client for Moat. Its login and consent are answered at
 * once for the user the test names (`signInAs`), as a user who is already signed in at Microsoft
 * would see it; everything else (discovery, PKCE, the code, the signed ID token) is the real thing.
 */
export const TEST_OIDC_CLIENT = { id: 'moat-test-client', secret: 'moat-test-client-secret-0123456789' };

export async function startOidcProvider(options: { redirectUris: string[] }) {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let nextUser = '';
  let emailVerified = true;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_OIDC_CLIENT.id,
        client_secret: TEST_OIDC_CLIENT.secret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    pkce: { required: () => true },
    cookies: { keys: ['moat-test-oidc-cookie-key'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: sub, email_verified: emailVerified, name: sub }),
    }),
  });

  /** Login and consent, answered at once for `nextUser`. */
  async function interact(req: http.IncomingMessage, res: http.ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: nextUser } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const accountId = details.session?.accountId ?? nextUser;
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) ??
        new provider.Grant({ accountId, clientId: String(details.params.client_id) }))
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope('openid email profile');
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      if (!nextUser) {
        res.writeHead(403).end('no user to sign in');
        return;
      }
      interact(req, res).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    /** Who the provider signs in next, and whether it calls their email verified. */
    signInAs(email: string, verified = true) {
      nextUser = email;
      emailVerified = verified;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type TestOidcProvider = Awaited<ReturnType<typeof startOidcProvider>>;
