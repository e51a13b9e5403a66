import type { Role } from '@moat/contracts/deployment';
import { SSO_API } from '@moat/contracts/sso';
import { domainOfEmail } from '@moat/contracts/validation';
import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import type { Config } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { packageOnFirstUse } from '../../lib/on-first-use.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import { isSha1Algorithm, type SamlIdpConfig, sha1Refusal } from './saml-metadata.ts';
import type { SsoRepo } from './sso.repo.ts';
import { type SsoHandover, SsoRefused } from './sso-handover.ts';

/** What a tenant's SAML row keeps (`sso_configs.settings`). */
export interface SamlSettings {
  idp: SamlIdpConfig | null;
  jitEnabled: boolean;
  jitRole: Role;
}
export const DEFAULT_SAML_SETTINGS: SamlSettings = { idp: null, jitEnabled: false, jitRole: 'user' };

/** node-saml and its XML stack: loaded with the first SAML sign-in, not at start (issue 14). */
const nodeSaml = packageOnFirstUse<typeof import('@node-saml/node-saml')>('@node-saml/node-saml');

/** How long an AuthnRequest waits for its answer; how far the IdP's clock may be off. */
const REQUEST_TTL_MS = 10 * 60_000;
const CLOCK_SKEW_MS = 2 * 60_000;
/** An assertion without an end is remembered (against replay) this long. */
const ASSERTION_MEMORY_MS = 60 * 60_000;

const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
] as const;

/** The XML-DSig elements that name a signature or digest algorithm. */
const SIGNING_ELEMENTS = new Set(['SignatureMethod', 'DigestMethod']);

/**
 * Every signature and digest algorithm an XML document names (in any namespace: what xml-crypto
 * reads is among them) that is SHA-1: RSA-SHA1, DSA-SHA1, HMAC-SHA1, ECDSA-SHA1, the SHA-1
 * digest. SHA-1 is collision-broken: an answer signed or digested with it is refused.
 */
export function weakAlgorithmsIn(xml: string): string[] {
  const root = new DOMParser({
    errorHandler: { warning: () => {}, error: () => {}, fatalError: () => {} },
  }).parseFromString(xml, 'text/xml')?.documentElement;
  if (!root) return [];
  const weak = new Set<string>();
  const all = root.getElementsByTagName('*');
  for (let i = 0; i < all.length; i += 1) {
    const element = all.item(i);
    if (!element || !SIGNING_ELEMENTS.has(element.localName ?? '')) continue;
    const algorithm = (element.getAttribute('Algorithm') ?? '').trim();
    if (isSha1Algorithm(algorithm)) weak.add(algorithm);
  }
  return [...weak];
}

/** An xs:ID as SAML ids are (NCName-like), of a sane length: anything else names no request. */
const SAML_ID = /^[A-Za-z_][A-Za-z0-9_.-]{0,255}$/;
/** A sign-in response is small: more than this many elements is not one (xpath over it is quadratic). */
const MAX_RESPONSE_ELEMENTS = 2_000;

/**
 * Look at a base64 SAMLResponse before anything in it is trusted or handed to node-saml: its
 * InResponseTo, or why it is refused (a DTD, more than one assertion, more signatures than one
 * response and one assertion carry, too many elements). node-saml's xpath queries take time
 * quadratic in a response's size, so a crafted one is stopped here, cheaply.
 */
function precheck(samlResponse: string): { inResponseTo: string } | { refused: string } {
  try {
    const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
    if (/<!DOCTYPE/i.test(xml)) return { refused: 'a document type declaration (DTD) in the response' };
    const root = new DOMParser({
      errorHandler: { warning: () => {}, error: () => {}, fatalError: () => {} },
    }).parseFromString(xml, 'text/xml')?.documentElement;
    if (!root) return { refused: 'not XML' };
    const all = root.getElementsByTagName('*');
    if (all.length > MAX_RESPONSE_ELEMENTS) return { refused: 'too many elements for a sign-in response' };
    let assertions = 0;
    let signatures = 0;
    for (let i = 0; i < all.length; i += 1) {
      const name = all.item(i)?.localName;
      if (name === 'Assertion' || name === 'EncryptedAssertion') assertions += 1;
      else if (name === 'Signature') signatures += 1;
    }
    if (assertions > 1) return { refused: 'more than one assertion' };
    if (signatures > 2) return { refused: 'more than two signatures' };
    const inResponseTo = root.getAttribute('InResponseTo') ?? '';
    return SAML_ID.test(inResponseTo) ? { inResponseTo } : { refused: 'no valid InResponseTo' };
  } catch {
    return { refused: 'not a SAML response' };
  }
}

export const samlSettingsOf = (settings: Record<string, unknown> | undefined): SamlSettings => ({
  ...DEFAULT_SAML_SETTINGS,
  ...(settings as Partial<SamlSettings> | undefined),
});

/**
 * SAML 2.0 per tenant (@node-saml/node-saml), the service provider's side: the AuthnRequest, and
 * the checks on the answer that node-saml does (signature by the IdP's metadata certificates on
 * the assertion, audience, time bounds with a bounded clock skew, InResponseTo a
 * request of ours taken once) and those it leaves to us (the Destination and Recipient are this
 * tenant's ACS URL, the issuer is the IdP, the assertion is used once, the email belongs to the tenant). A good answer
 * becomes a two-minute hand-over token the popup exchanges for the sign-in's next step.
 */
export function createSamlService(deps: {
  clock: Clock;
  config: Pick<Config, 'publicUrl'>;
  repo: Pick<
    SsoRepo,
    'config' | 'saveRequest' | 'findRequest' | 'browserOf' | 'removeRequest' | 'useAssertion'
  >;
  tenants: Pick<TenantsRepo, 'findById' | 'findByDomain'>;
  handover: Pick<SsoHandover, 'handOver' | 'refuse'>;
}) {
  const { repo } = deps;

  /** The values an admin enters at the identity provider. */
  function spOf(tenantId: string) {
    const metadataUrl = `${deps.config.publicUrl}${SSO_API.samlMetadata(tenantId)}`;
    return {
      entity_id: metadataUrl,
      acs_url: `${deps.config.publicUrl}${SSO_API.samlAcs(tenantId)}`,
      metadata_url: metadataUrl,
    };
  }

  /** Requests in flight, in the database: any node takes the answer, once. */
  function cacheOf(tenantId: string, browser = ''): CacheProvider {
    return {
      async saveAsync(key, value) {
        const createdAt = deps.clock.now();
        await repo.saveRequest({
          id: key,
          tenantId,
          provider: 'saml',
          value,
          browser,
          expiresAt: new Date(createdAt.getTime() + REQUEST_TTL_MS),
        });
        return { value, createdAt: createdAt.getTime() };
      },
      getAsync: (key) => repo.findRequest(key, tenantId, 'saml', deps.clock.now()),
      removeAsync: async (key) => (key ? repo.removeRequest(key, tenantId) : null),
    };
  }

  async function samlOf(tenantId: string, idp: SamlIdpConfig, browser?: string): Promise<SAML> {
    const { SAML, ValidateInResponseTo } = await nodeSaml();
    const sp = spOf(tenantId);
    return new SAML({
      entryPoint: idp.sso_url,
      issuer: sp.entity_id,
      callbackUrl: sp.acs_url,
      audience: sp.entity_id,
      idpCert: idp.pems,
      idpIssuer: idp.entity_id,
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: REQUEST_TTL_MS,
      cacheProvider: cacheOf(tenantId, browser),
      identifierFormat: EMAIL_NAME_ID,
      disableRequestedAuthnContext: true,
      signatureAlgorithm: 'sha256',
    });
  }

  async function enabledIdp(tenant: TenantRow | null): Promise<SamlIdpConfig | null> {
    if (!tenant) return null;
    const row = await repo.config(tenant.id, 'saml');
    const idp = samlSettingsOf(row?.settings).idp;
    return row?.enabled && idp ? idp : null;
  }

  /** The attribute or NameID that names the user's email. */
  function emailOf(profile: Profile): string | null {
    for (const name of EMAIL_ATTRIBUTES) {
      const value = profile[name];
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === 'string' && first.includes('@')) return first.trim().toLowerCase();
    }
    return profile.nameID?.includes('@') ? profile.nameID.trim().toLowerCase() : null;
  }

  /**
   * What node-saml leaves to its caller: the assertion's Issuer is the IdP (node-saml checks
   * `idpIssuer` on logout messages only), the Destination (when the response names one) and
   * every Recipient are this ACS URL; and the assertion's id and end, for the replay check.
   */
  function checkAddressedTo(
    profile: Profile,
    idp: SamlIdpConfig,
    acsUrl: string,
  ): { id: string; expiresAt: Date } {
    if (profile.issuer !== idp.entity_id) {
      throw new SsoRefused(`Unknown SAML issuer ${profile.issuer ?? '(none)'}: expected ${idp.entity_id}`);
    }
    const xml = profile.getSamlResponseXml?.();
    const response = xml ? new DOMParser().parseFromString(xml, 'text/xml').documentElement : null;
    const destination = response?.getAttribute('Destination');
    if (destination && destination !== acsUrl)
      throw new SsoRefused(`Destination ${destination} is not ${acsUrl}`);
    const assertion = profile.getAssertion?.() as
      | { Assertion?: { $?: { ID?: string }; Subject?: Array<{ SubjectConfirmation?: unknown[] }> } }
      | undefined;
    const id = assertion?.Assertion?.$?.ID;
    if (!id) throw new SsoRefused('the assertion has no ID');
    const confirmations = (assertion?.Assertion?.Subject?.[0]?.SubjectConfirmation ?? []) as Array<{
      SubjectConfirmationData?: Array<{ $?: { Recipient?: string; NotOnOrAfter?: string } }>;
    }>;
    const data = confirmations.flatMap((c) => c.SubjectConfirmationData ?? []).map((d) => d.$ ?? {});
    if (data.length === 0 || data.some((d) => d.Recipient !== acsUrl)) {
      throw new SsoRefused(`the assertion's Recipient is not ${acsUrl}`);
    }
    const ends = data.map((d) => Date.parse(d.NotOnOrAfter ?? '')).filter(Number.isFinite);
    const now = deps.clock.now().getTime();
    return {
      id,
      expiresAt: new Date(ends.length ? Math.max(...ends) + CLOCK_SKEW_MS : now + ASSERTION_MEMORY_MS),
    };
  }

  return {
    spOf,

    /**
     * The IdP URL for this email's organisation, with a fresh AuthnRequest (HTTP-Redirect), and
     * the secret the starting browser keeps (a cookie): only that browser can use the answer, so
     * an answer of someone else's account, posted by an attacker, signs the victim into nothing.
     */
    async start(email: string): Promise<{ url: string; browserSecret: string }> {
      const tenant = await deps.tenants.findByDomain(domainOfEmail(email));
      const idp = await enabledIdp(tenant);
      if (!tenant || !idp) {
        throw new AppError(
          'not_found',
          "Single sign-on with SAML is not set up for this email's organisation.",
        );
      }
      // RelayState carries nothing Moat follows: the answer always lands on the popup page.
      const browserSecret = newToken();
      const url = await (await samlOf(tenant.id, idp, hashToken(browserSecret))).getAuthorizeUrlAsync(
        '',
        undefined,
        {},
      );
      return { url, browserSecret };
    },

    /** The IdP's answer at the tenant's ACS: a hand-over token for the popup, or SsoRefused. */
    async acs(tenantId: string, samlResponse: string, ip: string | null): Promise<string> {
      const tenant = await deps.tenants.findById(tenantId).catch(() => null);
      // Until the IdP's signature is checked, a refusal goes to the operators' log only (no
      // tenant), with Moat's own words: anyone may post here, and must not write into a
      // tenant's audit log or choose the text.
      const unsigned = (reason: string) =>
        deps.handover.refuse('saml', null, ip, `${reason} (tenant ${tenant?.id ?? tenantId})`);
      const fail = (reason: string) => deps.handover.refuse('saml', tenant?.id ?? null, ip, reason);
      const idp = await enabledIdp(tenant);
      if (!tenant || !idp) return unsigned('SAML is not enabled for this tenant');
      const checked = precheck(samlResponse);
      if ('refused' in checked) return unsigned(`not accepted: ${checked.refused}`);
      const browser = await repo.browserOf(checked.inResponseTo, tenant.id, deps.clock.now());
      if (!browser) return unsigned('InResponseTo is not valid: no sign-in of Moat waits for this answer');
      let profile: Profile | null;
      try {
        const saml = await samlOf(tenant.id, idp);
        profile = (await saml.validatePostResponseAsync({ SAMLResponse: samlResponse })).profile;
      } catch (error) {
        // The provider's own status text is not repeated: it is not signed.
        if (error instanceof (await nodeSaml()).SamlStatusError)
          return unsigned('the provider answered with a failure status');
        return unsigned(error instanceof Error ? error.message.slice(0, 200) : 'invalid response');
      }
      if (!profile) return fail('not a sign-in response');
      // Signed by the IdP's key, but with SHA-1: refused, and the tenant's admins are told why.
      const weak = weakAlgorithmsIn(Buffer.from(samlResponse, 'base64').toString('utf8'));
      if (weak.length > 0) return fail(`The SAML answer is refused: ${sha1Refusal(weak)}`);
      let assertion: { id: string; expiresAt: Date };
      try {
        assertion = checkAddressedTo(profile, idp, spOf(tenant.id).acs_url);
      } catch (error) {
        return fail((error as Error).message);
      }
      if (!(await repo.useAssertion(`saml:${tenant.id}:${assertion.id}`, assertion.expiresAt))) {
        return fail(`assertion ${assertion.id} was used before (replay)`);
      }
      const email = emailOf(profile);
      if (!email) return fail('the assertion names no email');
      const settings = samlSettingsOf((await repo.config(tenant.id, 'saml'))?.settings);
      return deps.handover.handOver({
        provider: 'saml',
        tenant,
        email,
        browserHash: browser,
        jit: { enabled: settings.jitEnabled, role: settings.jitRole },
        ip,
      });
    },

    /** The service provider's metadata for this tenant (what the IdP imports). */
    async metadata(tenantId: string): Promise<string> {
      const tenant = await deps.tenants.findById(tenantId).catch(() => null);
      if (!tenant) throw new AppError('not_found', 'No such tenant');
      const sp = spOf(tenant.id);
      return (await nodeSaml()).generateServiceProviderMetadata({
        issuer: sp.entity_id,
        callbackUrl: sp.acs_url,
        identifierFormat: EMAIL_NAME_ID,
        wantAssertionsSigned: true,
      });
    },
  };
}
export type SamlService = ReturnType<typeof createSamlService>;
