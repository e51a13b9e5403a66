import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Role } from '@moat/contracts/deployment';
import { SSO_API } from '@moat/contracts/sso';
import { domainOfEmail } from '@moat/contracts/validation';
import type * as Client from 'openid-client';
import type { Config } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { packageOnFirstUse } from '../../lib/on-first-use.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import { addressRefusal } from '../../mail/next-hop.ts';
import type { TenantsRepo } from '../tenants/tenants.repo.ts';
import type { SsoRepo } from './sso.repo.ts';
import type { SsoHandover } from './sso-handover.ts';

export type OidcProvider = 'microsoft' | 'google';
export const OIDC_PROVIDERS = ['microsoft', 'google'] as const satisfies readonly OidcProvider[];
export const OIDC_SECRET_PURPOSE = 'sso-client-secret';

/** What a tenant's Microsoft or Google row keeps (`sso_configs.settings`; the secret is sealed apart). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** The email domains this provider may sign in (empty: the tenant's own). */
  allowedDomains: string[];
  jitEnabled: boolean;
  jitRole: Role;
}
export const DEFAULT_ISSUER: Record<OidcProvider, string> = {
  microsoft: 'https://login.microsoftonline.com/YOUR-TENANT-ID/v2.0',
  google: 'https://accounts.google.com',
};
export const oidcSettingsOf = (provider: OidcProvider, settings?: Record<string, unknown>): OidcSettings => ({
  issuer: DEFAULT_ISSUER[provider],
  clientId: '',
  allowedDomains: [],
  jitEnabled: false,
  jitRole: 'user',
  ...(settings as Partial<OidcSettings> | undefined),
});

/** openid-client and jose: loaded with the first Microsoft or Google sign-in, not at start (issue 14). */
const openid = packageOnFirstUse<typeof import('openid-client')>('openid-client');

const REQUEST_TTL_MS = 10 * 60_000;
const DISCOVERY_TTL_MS = 10 * 60_000;
/** Plain http is allowed only for an issuer on this machine (a local test provider). */
const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

/**
 * Microsoft and Google sign-in (OpenID Connect, `openid-client`): the authorization code flow
 * with PKCE (S256), state and nonce, each request kept in the database for ten minutes and taken
 * once. openid-client checks the ID token's signature against the issuer's keys, its issuer,
 * audience (our client id), expiry and nonce; Moat then checks the email is verified (when the
 * provider says), in the provider's allowed domains and the tenant's, and hands over as SAML does.
 */
export function createOidcService(deps: {
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'nextHopNetworks'>;
  serverKey: Pick<ServerKey, 'decrypt'>;
  repo: Pick<SsoRepo, 'config' | 'saveRequest' | 'takeRequest'>;
  tenants: Pick<TenantsRepo, 'findById' | 'findByDomain'>;
  handover: Pick<SsoHandover, 'handOver' | 'refuse'>;
}) {
  const { repo } = deps;
  const discovered = new Map<string, { at: number; config: Client.Configuration }>();

  const redirectUri = (provider: OidcProvider) => `${deps.config.publicUrl}${SSO_API.oidcCallback(provider)}`;

  /**
   * An endpoint Moat may call: https (http only on this machine, for a local provider), and every
   * address of its host allowed under NEXT_HOP_NETWORKS (a shared deployment calls public
   * addresses only: no admin can make Moat probe its own network or a cloud metadata service).
   */
  async function assertReachable(endpoint: string | undefined): Promise<void> {
    if (!endpoint) return;
    const url = new URL(endpoint);
    const local = isLoopback(url);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
      throw new Error(`${url.origin} is not https`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : (await dnsLookup(host, { all: true })).map((a) => a.address);
    for (const address of addresses) {
      const why = addressRefusal(address, deps.config.nextHopNetworks);
      if (why) throw new Error(`${url.hostname}: ${why}`);
    }
  }

  /** The provider's configuration from its discovery document (cached ten minutes per client). */
  async function discover(issuer: string, clientId: string, secret: string): Promise<Client.Configuration> {
    const key = `${issuer}\n${clientId}\n${hashToken(secret)}`;
    const cached = discovered.get(key);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const url = new URL(issuer);
    await assertReachable(issuer);
    const client = await openid();
    const config = await client.discovery(url, clientId, secret, undefined, {
      execute: isLoopback(url) ? [client.allowInsecureRequests] : [],
      timeout: 10,
    });
    const meta = config.serverMetadata();
    await assertReachable(meta.token_endpoint);
    await assertReachable(meta.jwks_uri);
    discovered.set(key, { at: Date.now(), config });
    return config;
  }

  async function enabled(tenantId: string, provider: OidcProvider) {
    const row = await repo.config(tenantId, provider);
    if (!row?.enabled || !row.secret) return null;
    const settings = oidcSettingsOf(provider, row.settings);
    if (!settings.clientId) return null;
    return { settings, secret: deps.serverKey.decrypt(OIDC_SECRET_PURPOSE, row.secret) };
  }

  return {
    redirectUri,

    /** Whether an issuer answers discovery: the console's "Test" button (nothing saved). */
    async test(issuer: string): Promise<{ issuer: string; authorization_endpoint: string }> {
      try {
        const config = await discover(issuer, 'moat-test', 'moat-test');
        const meta = config.serverMetadata();
        return { issuer: meta.issuer, authorization_endpoint: meta.authorization_endpoint ?? '' };
      } catch (error) {
        throw new AppError(
          'validation_error',
          `The issuer's discovery document could not be used: ${(error as Error).message}`,
          [{ field: 'issuer', message: (error as Error).message }],
        );
      }
    },

    /** The provider's authorization URL for this email's organisation, and the starting browser's secret. */
    async start(provider: OidcProvider, email: string): Promise<{ url: string; browserSecret: string }> {
      const tenant = await deps.tenants.findByDomain(domainOfEmail(email));
      const setup = tenant ? await enabled(tenant.id, provider) : null;
      if (!tenant || !setup) {
        throw new AppError(
          'not_found',
          `Sign-in with ${provider === 'microsoft' ? 'Microsoft' : 'Google'} is not set up for this email's organisation.`,
        );
      }
      let config: Client.Configuration;
      try {
        config = await discover(setup.settings.issuer, setup.settings.clientId, setup.secret);
      } catch {
        throw new AppError(
          'service_unavailable',
          'The identity provider cannot be reached. Try again later.',
        );
      }
      const client = await openid();
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const browserSecret = newToken();
      const now = deps.clock.now();
      await repo.saveRequest({
        id: `oidc:${state}`,
        tenantId: tenant.id,
        provider,
        value: JSON.stringify({ verifier, nonce }),
        browser: hashToken(browserSecret),
        expiresAt: new Date(now.getTime() + REQUEST_TTL_MS),
      });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri(provider),
        scope: 'openid email profile',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
        login_hint: email,
      });
      return { url: url.href, browserSecret };
    },

    /** The provider's answer at the callback: a hand-over token for the popup, or SsoRefused. */
    async callback(provider: OidcProvider, callbackUrl: URL, ip: string | null): Promise<string> {
      const state = callbackUrl.searchParams.get('state') ?? '';
      const request = state ? await repo.takeRequest(`oidc:${state}`, provider, deps.clock.now()) : null;
      if (!request)
        return deps.handover.refuse(
          provider,
          null,
          ip,
          'state is not valid: no sign-in of Moat waits for it',
        );
      const fail = (reason: string) => deps.handover.refuse(provider, request.tenantId, ip, reason);
      const providerError = callbackUrl.searchParams.get('error');
      if (providerError) return fail(`the provider answered ${providerError.slice(0, 100)}`);
      const tenant = await deps.tenants.findById(request.tenantId);
      const setup = tenant ? await enabled(tenant.id, provider) : null;
      if (!tenant || !setup) return fail(`${provider} sign-in is not enabled for this tenant`);
      const { verifier, nonce } = JSON.parse(request.value) as { verifier: string; nonce: string };
      let claims: { email?: unknown; email_verified?: unknown } | undefined;
      try {
        const config = await discover(setup.settings.issuer, setup.settings.clientId, setup.secret);
        const client = await openid();
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims();
        claims = idToken as Record<string, unknown> | undefined;
        // A provider may keep the email out of the ID token (OIDC Core 5.4): ask its userinfo,
        // for the same subject.
        if (idToken && typeof idToken.email !== 'string') {
          claims = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
        }
      } catch (error) {
        // openid-client's error wraps oauth4webapi's, which names the check that failed (nonce, iss, aud…).
        const cause = (error as { cause?: unknown }).cause;
        return fail(`${(error as Error).message}${cause instanceof Error ? `: ${cause.message}` : ''}`);
      }
      const email = typeof claims?.email === 'string' ? claims.email.trim().toLowerCase() : '';
      if (!email.includes('@')) return fail('the ID token names no email');
      if (claims?.email_verified === false) return fail(`${email} is not verified by the provider`);
      const allowed = setup.settings.allowedDomains;
      if (allowed.length > 0 && !allowed.includes(domainOfEmail(email))) {
        return fail(`${email} is not in the provider's allowed domains`);
      }
      return deps.handover.handOver({
        provider,
        tenant,
        email,
        browserHash: request.browser,
        jit: { enabled: setup.settings.jitEnabled, role: setup.settings.jitRole },
        ip,
      });
    },
  };
}
export type OidcService = ReturnType<typeof createOidcService>;
