import { z } from 'zod/mini';
import { roleSchema } from './deployment.ts';
import { emailSchema, noNul } from './validation.ts';

/**
 * Single sign-on (SPEC §2.1, §4 "External sign-in", issue 15): SAML 2.0 per tenant. The popup
 * (`/auth/saml/login`) asks for the work email and goes to `samlStart`; the identity provider
 * posts its answer to the tenant's `samlAcs`; Moat sends the popup back with `samlSuccess=true`
 * and a one-time hand-over token, which the page exchanges (`complete`) for the next sign-in step.
 */
export const SSO_ROUTES = {
  samlAcs: '/api/v1/auth/saml/acs/:tenantId',
  samlMetadata: '/api/v1/auth/saml/metadata/:tenantId',
  oidcStart: '/api/v1/auth/oidc/:provider/start',
  oidcCallback: '/api/v1/auth/oidc/:provider/callback',
} as const;

export const SSO_API = {
  samlStart: '/api/v1/auth/saml/start',
  samlAcs: (tenantId: string) => `/api/v1/auth/saml/acs/${encodeURIComponent(tenantId)}`,
  samlMetadata: (tenantId: string) => `/api/v1/auth/saml/metadata/${encodeURIComponent(tenantId)}`,
  complete: '/api/v1/auth/sso/complete',
  /** Microsoft and Google sign-in (OpenID Connect): the popup's start and the provider's redirect. */
  oidcStart: (provider: string) => `/api/v1/auth/oidc/${provider}/start`,
  oidcCallback: (provider: string) => `/api/v1/auth/oidc/${provider}/callback`,
  oidcTest: '/api/v1/settings/sign_in/oidc/test',
  /** Settings → Sign-in (admins). */
  settings: '/api/v1/settings/sign_in',
  samlTest: '/api/v1/settings/sign_in/saml/test',
} as const;

/** SPEC §8: what the popup says when the identity provider's answer is refused, per provider. */
export const SAML_FAILURE_MESSAGE = 'SAML authentication failed.';
export const SSO_FAILURE_MESSAGES = {
  saml: SAML_FAILURE_MESSAGE,
  microsoft: 'Microsoft sign-in failed.',
  google: 'Google sign-in failed.',
} as const;

/** The popup's query after the identity provider's answer (SPEC §4 "External sign-in"). */
export const SSO_RETURN_PARAMS = {
  success: 'samlSuccess',
  token: 'ssoToken',
  error: 'ssoError',
  eventsFilters: 'eventsPageRedirectFilters',
} as const;

/** How long the popup has to exchange its hand-over token. */
export const SSO_HANDOFF_TTL_MS = 2 * 60_000;
/** The largest IdP metadata document taken. */
export const SAML_METADATA_MAX_LENGTH = 200_000;

export const samlStartRequestSchema = z
  .object({ email: emailSchema })
  .register(z.globalRegistry, { id: 'SamlStartRequest' });

export const ssoCompleteRequestSchema = z
  .strictObject({ token: z.string().check(z.minLength(1), z.maxLength(100)) })
  .register(z.globalRegistry, { id: 'SsoCompleteRequest' });

/** One signing certificate of the identity provider, as the console shows it. */
export const samlCertificateSchema = z.object({
  subject: z.string(),
  not_after: z.string(),
  sha256: z.string(),
});

/** What Moat read from an identity provider's metadata. */
export const samlIdpSchema = z
  .object({
    entity_id: z.string(),
    sso_url: z.string(),
    certificates: z.array(samlCertificateSchema),
  })
  .register(z.globalRegistry, { id: 'SamlIdp' });
export type SamlIdp = z.infer<typeof samlIdpSchema>;

/** Microsoft or Google sign-in (OpenID Connect) as configured; the client secret is never shown. */
export const oidcSettingsSchema = z
  .object({
    enabled: z.boolean(),
    issuer: z.string(),
    client_id: z.string(),
    secret_set: z.boolean(),
    /** Empty: any of the tenant's domains. */
    allowed_domains: z.array(z.string()),
    jit_enabled: z.boolean(),
    jit_role: roleSchema,
    /** The redirect URI to register at the provider. */
    redirect_url: z.string(),
  })
  .register(z.globalRegistry, { id: 'OidcSettings' });
export type OidcSettingsAnswer = z.infer<typeof oidcSettingsSchema>;

const domainSchema = z
  .string()
  .check(
    z.trim(),
    z.toLowerCase(),
    z.maxLength(253),
    z.regex(/^(?=.{1,253}$)([a-z0-9-]+\.)+[a-z]{2,}$/, 'not a domain'),
  );

const oidcUpdateSchema = z.strictObject({
  enabled: z.optional(z.boolean()),
  issuer: z.optional(z.url({ protocol: /^https?$/ }).check(z.maxLength(300))),
  client_id: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(300))),
  client_secret: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
  allowed_domains: z.optional(z.array(domainSchema).check(z.maxLength(20))),
  jit_enabled: z.optional(z.boolean()),
  jit_role: z.optional(roleSchema),
});

export const oidcTestRequestSchema = z
  .strictObject({ issuer: z.url({ protocol: /^https?$/ }).check(z.maxLength(300)) })
  .register(z.globalRegistry, { id: 'OidcTestRequest' });

/** Settings → Sign-in: the values to enter at the identity provider, and what is configured. */
export const signInSettingsSchema = z
  .object({
    saml: z.object({
      enabled: z.boolean(),
      /** Null until metadata was saved. */
      idp: z.nullable(samlIdpSchema),
      /** Create an unknown user of the tenant's domains at first sign-in, with this role. */
      jit_enabled: z.boolean(),
      jit_role: roleSchema,
      sp: z.object({ entity_id: z.string(), acs_url: z.string(), metadata_url: z.string() }),
    }),
    microsoft: oidcSettingsSchema,
    google: oidcSettingsSchema,
    /** Whether the tenant's users may still sign in with a password (admins always may). */
    passwords_allowed: z.boolean(),
  })
  .register(z.globalRegistry, { id: 'SignInSettings' });
export type SignInSettings = z.infer<typeof signInSettingsSchema>;

const metadataXmlSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(SAML_METADATA_MAX_LENGTH),
    z.refine(noNul, 'must not contain a NUL character'),
  )
  .register(z.globalRegistry, { description: "The identity provider's SAML metadata (XML)" });

export const signInSettingsUpdateSchema = z
  .strictObject({
    saml: z.optional(
      z.strictObject({
        enabled: z.optional(z.boolean()),
        metadata_xml: z.optional(metadataXmlSchema),
        jit_enabled: z.optional(z.boolean()),
        jit_role: z.optional(roleSchema),
      }),
    ),
    microsoft: z.optional(oidcUpdateSchema),
    google: z.optional(oidcUpdateSchema),
    passwords_allowed: z.optional(z.boolean()),
  })
  .register(z.globalRegistry, { id: 'SignInSettingsUpdate' });
export type SignInSettingsUpdate = z.infer<typeof signInSettingsUpdateSchema>;

export const samlTestRequestSchema = z
  .strictObject({ metadata_xml: metadataXmlSchema })
  .register(z.globalRegistry, { id: 'SamlTestRequest' });
