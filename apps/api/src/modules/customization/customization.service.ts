import type { AuditAction } from '@moat/contracts/audit';
import type { ThemeMode } from '@moat/contracts/constants';
import type { Customization, LogoMime } from '@moat/contracts/customization';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import { checkLogo } from '../../lib/logo.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { FeaturesRepo } from '../features/features.repo.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';

/**
 * Customization (issue 12): the organisation's logo and default theme. Each half is open only
 * with its flag (enableCustomLogo, enableChangeApplicationMode); every change is audited and
 * this node's cache of the tenant forgotten at once (the others hear the database's notice).
 */
export function createCustomizationService(deps: {
  db: Pick<Db, 'transaction'>;
  tenants: Pick<TenantsRepo, 'findById' | 'setLogo' | 'update'>;
  features: Pick<FeaturesRepo, 'flagsOf'>;
  audit: Pick<AuditRepo, 'record'>;
  forgetTenants: () => void;
}) {
  async function tenantOf(tenantId: string): Promise<TenantRow> {
    const tenant = await deps.tenants.findById(tenantId);
    if (!tenant) throw new AppError('forbidden', 'not authenticated');
    return tenant;
  }
  async function assertFlag(tenantId: string, flag: 'enableCustomLogo' | 'enableChangeApplicationMode') {
    if (!(await deps.features.flagsOf(tenantId))[flag]) {
      throw new AppError('forbidden', 'Customization of this kind is not enabled for your organisation');
    }
  }
  async function audited(
    tenantId: string,
    actor: Actor,
    action: AuditAction,
    details: Record<string, unknown>,
    work: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<void>,
  ) {
    await deps.db.transaction(async (tx) => {
      await work(tx);
      await deps.audit.record(
        actor,
        { tenantId, action, targetType: 'tenant', targetId: tenantId, details },
        tx,
      );
    });
    deps.forgetTenants();
  }

  return {
    async get(tenantId: string): Promise<Customization> {
      const [tenant, flags] = await Promise.all([tenantOf(tenantId), deps.features.flagsOf(tenantId)]);
      return {
        has_custom_logo: tenant.logo !== null,
        logo_mime: (tenant.logoMime as LogoMime | null) ?? null,
        default_application_mode: tenant.defaultApplicationMode,
        can_change_logo: flags.enableCustomLogo,
        can_change_application_mode: flags.enableChangeApplicationMode,
      };
    },

    /** A new logo, checked (type, size, a plain SVG) before anything is stored. */
    async setLogo(tenantId: string, body: Uint8Array, mime: LogoMime, actor: Actor): Promise<Customization> {
      await assertFlag(tenantId, 'enableCustomLogo');
      checkLogo(body, mime);
      await audited(tenantId, actor, 'tenant.logo_set', { mime, bytes: body.length }, (tx) =>
        deps.tenants.setLogo(tenantId, body, mime, tx),
      );
      return this.get(tenantId);
    },

    /** Back to the brand's logo. */
    async clearLogo(tenantId: string, actor: Actor): Promise<Customization> {
      await assertFlag(tenantId, 'enableCustomLogo');
      await audited(tenantId, actor, 'tenant.logo_cleared', {}, (tx) =>
        deps.tenants.setLogo(tenantId, null, null, tx),
      );
      return this.get(tenantId);
    },

    async setApplicationMode(tenantId: string, mode: ThemeMode, actor: Actor): Promise<Customization> {
      await assertFlag(tenantId, 'enableChangeApplicationMode');
      const before = (await tenantOf(tenantId)).defaultApplicationMode;
      if (before !== mode) {
        await audited(tenantId, actor, 'tenant.application_mode', { from: before, to: mode }, (tx) =>
          deps.tenants.update(tenantId, { defaultApplicationMode: mode }, tx),
        );
      }
      return this.get(tenantId);
    },
  };
}
export type CustomizationService = ReturnType<typeof createCustomizationService>;
