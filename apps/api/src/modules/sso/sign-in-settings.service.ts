import type { SamlIdp, SignInSettings, SignInSettingsUpdate } from '@moat/contracts/sso';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { TenantsRepo } from '../tenants/tenants.repo.ts';
import { type SamlService, type SamlSettings, samlSettingsOf } from './saml.service.ts';
import { parseIdpMetadata, type SamlIdpConfig } from './saml-metadata.ts';
import { createSsoRepo } from './sso.repo.ts';

/** The IdP as the console shows it (no PEM blobs). */
const shown = (idp: SamlIdpConfig | null): SamlIdp | null =>
  idp ? { entity_id: idp.entity_id, sso_url: idp.sso_url, certificates: idp.certificates } : null;

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
  clock: Clock;
  tenants: Pick<TenantsRepo, 'findById' | 'update'>;
  saml: Pick<SamlService, 'spOf'>;
  repo: Pick<ReturnType<typeof createSsoRepo>, 'config'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  async function read(tenantId: string) {
    const tenant = await deps.tenants.findById(tenantId);
    if (!tenant) throw new AppError('not_found', 'No such tenant');
    const row = await deps.repo.config(tenantId, 'saml');
    return { tenant, enabled: row?.enabled ?? false, saml: samlSettingsOf(row?.settings) };
  }

  const answer = (tenantId: string, passwordsAllowed: boolean, enabled: boolean, saml: SamlSettings) =>
    ({
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
      const { tenant, enabled, saml } = await read(tenantId);
      return answer(tenantId, tenant.passwordsAllowed, enabled, saml);
    },

    /** Read an IdP's metadata without saving it: the console's "Test" button. */
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
      const passwordsAllowed = body.passwords_allowed ?? before.tenant.passwordsAllowed;
      if (!passwordsAllowed && !enabled) {
        throw refuse('passwords_allowed', 'Passwords can be turned off only while SAML sign-in is on');
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
      if (Object.keys(changed).length === 0) return answer(tenantId, passwordsAllowed, enabled, next);

      await deps.db.transaction(async (tx) => {
        await createSsoRepo(tx).saveConfig(
          tenantId,
          'saml',
          { enabled, settings: next as unknown as Record<string, unknown> },
          deps.clock.now(),
          tx,
        );
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
      return answer(tenantId, passwordsAllowed, enabled, next);
    },
  };
}
export type SignInSettingsService = ReturnType<typeof createSignInSettingsService>;
