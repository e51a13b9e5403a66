import type { OidcSettingsAnswer, SamlIdp, SignInSettings, SignInSettingsUpdate } from '@moat/contracts/sso';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { TenantsRepo } from '../tenants/tenants.repo.ts';
import {
  OIDC_PROVIDERS,
  OIDC_SECRET_PURPOSE,
  type OidcProvider,
  type OidcService,
  type OidcSettings,
  oidcSettingsOf,
} from './oidc.service.ts';
import { type SamlService, type SamlSettings, samlSettingsOf } from './saml.service.ts';
import { parseIdpMetadata, type SamlIdpConfig } from './saml-metadata.ts';
import { createSsoRepo } from './sso.repo.ts';

/** The IdP as the console shows it (no PEM blobs). */
const shown = (idp: SamlIdpConfig | null): SamlIdp | null =>
  idp ? { entity_id: idp.entity_id, sso_url: idp.sso_url, certificates: idp.certificates } : null;

interface OidcState {
  enabled: boolean;
  settings: OidcSettings;
  secret: string | null;
}

const refuse = (field: string, message: string) =>
  new AppError('validation_error', message, [{ field, message }]);

/**
 * Settings → Sign-in (issue 15, admins): the tenant's SAML identity provider (from its metadata),
 * just-in-time users, and whether passwords stay allowed. Every change is audited with what
 * changed; passwords can be turned off only while SAML is on (admins keep theirs, so a broken IdP
 * never locks the tenant out).
 */
export function createSignInSettingsService(deps: {
  db: Pick<Db, 'transaction'>;
  /** After a saved change: this node's cache of the providers in use forgets at once. */
  onSaved?: () => void;
  clock: Clock;
  tenants: Pick<TenantsRepo, 'findById' | 'update'>;
  saml: Pick<SamlService, 'spOf'>;
  oidc: Pick<OidcService, 'redirectUri' | 'test'>;
  serverKey: Pick<ServerKey, 'encrypt'>;
  repo: Pick<ReturnType<typeof createSsoRepo>, 'config'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  async function read(tenantId: string) {
    const tenant = await deps.tenants.findById(tenantId);
    if (!tenant) throw new AppError('not_found', 'No such tenant');
    const row = await deps.repo.config(tenantId, 'saml');
    const oidc = {} as Record<OidcProvider, OidcState>;
    for (const provider of OIDC_PROVIDERS) {
      const r = await deps.repo.config(tenantId, provider);
      oidc[provider] = {
        enabled: r?.enabled ?? false,
        settings: oidcSettingsOf(provider, r?.settings),
        secret: r?.secret ?? null,
      };
    }
    return { tenant, enabled: row?.enabled ?? false, saml: samlSettingsOf(row?.settings), oidc };
  }

  const oidcAnswer = (provider: OidcProvider, state: OidcState): OidcSettingsAnswer => ({
    enabled: state.enabled,
    issuer: state.settings.issuer,
    client_id: state.settings.clientId,
    secret_set: state.secret !== null,
    allowed_domains: state.settings.allowedDomains,
    jit_enabled: state.settings.jitEnabled,
    jit_role: state.settings.jitRole,
    redirect_url: deps.oidc.redirectUri(provider),
  });

  const answer = (
    tenantId: string,
    passwordsAllowed: boolean,
    enabled: boolean,
    saml: SamlSettings,
    oidc: Record<OidcProvider, OidcState>,
  ) =>
    ({
      microsoft: oidcAnswer('microsoft', oidc.microsoft),
      google: oidcAnswer('google', oidc.google),
      saml: {
        enabled,
        idp: shown(saml.idp),
        jit_enabled: saml.jitEnabled,
        jit_role: saml.jitRole,
        sp: deps.saml.spOf(tenantId),
      },
      passwords_allowed: passwordsAllowed,
    }) satisfies SignInSettings;

  return {
    async get(tenantId: string): Promise<SignInSettings> {
      const { tenant, enabled, saml, oidc } = await read(tenantId);
      return answer(tenantId, tenant.passwordsAllowed, enabled, saml, oidc);
    },

    /** Read an IdP's metadata without saving it: the console's "Test" button. */
    testOidc: (issuer: string) => deps.oidc.test(issuer),

    test(metadataXml: string): SamlIdp {
      return shown(parseIdpMetadata(metadataXml, deps.clock.now())) as SamlIdp;
    },

    async update(tenantId: string, body: SignInSettingsUpdate, actor: Actor): Promise<SignInSettings> {
      const before = await read(tenantId);
      const next: SamlSettings = { ...before.saml };
      if (body.saml?.metadata_xml !== undefined) {
        try {
          next.idp = parseIdpMetadata(body.saml.metadata_xml, deps.clock.now());
        } catch (error) {
          if (error instanceof AppError) throw refuse('saml.metadata_xml', error.message);
          throw error;
        }
      }
      if (body.saml?.jit_enabled !== undefined) next.jitEnabled = body.saml.jit_enabled;
      if (body.saml?.jit_role !== undefined) next.jitRole = body.saml.jit_role;
      const enabled = body.saml?.enabled ?? before.enabled;
      if (enabled && !next.idp) {
        throw refuse('saml.enabled', "Add the identity provider's metadata before turning SAML on");
      }
      const oidc = { ...before.oidc };
      for (const provider of OIDC_PROVIDERS) {
        const change = body[provider];
        if (!change) continue;
        const was = before.oidc[provider];
        const settings: OidcSettings = {
          issuer: change.issuer ?? was.settings.issuer,
          clientId: change.client_id ?? was.settings.clientId,
          allowedDomains: change.allowed_domains
            ? [...new Set(change.allowed_domains)]
            : was.settings.allowedDomains,
          jitEnabled: change.jit_enabled ?? was.settings.jitEnabled,
          jitRole: change.jit_role ?? was.settings.jitRole,
        };
        const secret = change.client_secret
          ? deps.serverKey.encrypt(OIDC_SECRET_PURPOSE, change.client_secret)
          : was.secret;
        const on = change.enabled ?? was.enabled;
        if (on && (!settings.clientId || !secret)) {
          throw refuse(
            `${provider}.client_id`,
            'Enter the client ID and secret before turning this sign-in on',
          );
        }
        oidc[provider] = { enabled: on, settings, secret };
      }
      const anySso = enabled || OIDC_PROVIDERS.some((p) => oidc[p].enabled);
      const passwordsAllowed = body.passwords_allowed ?? before.tenant.passwordsAllowed;
      if (!passwordsAllowed && !anySso) {
        throw refuse('passwords_allowed', 'Passwords can be turned off only while a single sign-on is on');
      }

      const changed: Record<string, { from: unknown; to: unknown }> = {};
      const note = (key: string, from: unknown, to: unknown) => {
        if (JSON.stringify(from) !== JSON.stringify(to)) changed[key] = { from, to };
      };
      note('saml.enabled', before.enabled, enabled);
      note('saml.idp', shown(before.saml.idp), shown(next.idp));
      note('saml.jit_enabled', before.saml.jitEnabled, next.jitEnabled);
      note('saml.jit_role', before.saml.jitRole, next.jitRole);
      note('passwords_allowed', before.tenant.passwordsAllowed, passwordsAllowed);
      for (const provider of OIDC_PROVIDERS) {
        const [was, now] = [before.oidc[provider], oidc[provider]];
        note(`${provider}.enabled`, was.enabled, now.enabled);
        note(`${provider}.settings`, was.settings, now.settings);
        // The secret itself is never written to the audit log: only that it changed.
        if (was.secret !== now.secret) changed[`${provider}.client_secret`] = { from: '…', to: 'changed' };
      }
      if (Object.keys(changed).length === 0) return answer(tenantId, passwordsAllowed, enabled, next, oidc);

      await deps.db.transaction(async (tx) => {
        await createSsoRepo(tx).saveConfig(
          tenantId,
          'saml',
          { enabled, settings: next as unknown as Record<string, unknown> },
          deps.clock.now(),
          tx,
        );
        for (const provider of OIDC_PROVIDERS) {
          if (before.oidc[provider] === oidc[provider]) continue;
          await createSsoRepo(tx).saveConfig(
            tenantId,
            provider,
            {
              enabled: oidc[provider].enabled,
              settings: oidc[provider].settings as unknown as Record<string, unknown>,
              secret: oidc[provider].secret,
            },
            deps.clock.now(),
            tx,
          );
        }
        if (passwordsAllowed !== before.tenant.passwordsAllowed) {
          await deps.tenants.update(tenantId, { passwordsAllowed }, tx);
        }
        await deps.audit.record(
          actor,
          {
            tenantId,
            action: 'settings.sign_in_updated',
            targetType: 'tenant',
            targetId: tenantId,
            details: changed,
          },
          tx,
        );
      });
      deps.onSaved?.();
      return answer(tenantId, passwordsAllowed, enabled, next, oidc);
    },
  };
}
export type SignInSettingsService = ReturnType<typeof createSignInSettingsService>;
