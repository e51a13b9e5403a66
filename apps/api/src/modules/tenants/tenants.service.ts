import {
  type Brand,
  DEFAULT_SAAS_APPS,
  DEFAULT_SECURITY_TOOLS,
  type DeploymentMode,
} from '@moat/contracts/deployment';
import { domainSchema } from '@moat/contracts/validation';
import type { Db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { FeaturesRepo } from '../features/features.repo.ts';
import type { NewTenant, TenantRow, TenantsRepo } from './tenants.repo.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CreateTenantInput {
  name: string;
  domains: string[];
  brand?: Brand;
  deploymentMode?: DeploymentMode;
  isMsp?: boolean;
}

/** One app's or tool's new state. */
export interface AppChange {
  kind: 'saas_app' | 'security_tool';
  name: string;
  state: 'enabled' | 'disabled';
}

function parseDomain(raw: string): string {
  const parsed = domainSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError('validation_error', `"${raw}" is not a valid mail domain (for example: example.com)`, [
      { field: 'domain', message: 'invalid_domain' },
    ]);
  }
  return parsed.data;
}

export function createTenantsService({
  db,
  tenants,
  features,
  audit,
}: {
  db: Pick<Db, 'transaction'>;
  tenants: Pick<
    TenantsRepo,
    | 'findById'
    | 'findByDomain'
    | 'domainOwner'
    | 'insert'
    | 'addDomain'
    | 'update'
    | 'domainsOf'
    | 'list'
    | 'setAppState'
  >;
  features: Pick<FeaturesRepo, 'flagsOf' | 'set'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  async function assertDomainFree(domain: string): Promise<void> {
    const owner = await tenants.domainOwner(domain);
    if (owner) throw new AppError('conflict', `The domain ${domain} already belongs to a tenant`);
  }

  return {
    /** A tenant by its id or by one of its domains. */
    async resolve(ref: string): Promise<TenantRow> {
      const value = ref.trim().toLowerCase();
      const tenant = UUID.test(value) ? await tenants.findById(value) : await tenants.findByDomain(value);
      if (!tenant) throw new AppError('not_found', `No tenant has the id or domain "${ref}"`);
      return tenant;
    },

    async create(input: CreateTenantInput, actor: Actor): Promise<TenantRow & { domains: string[] }> {
      const name = input.name.trim();
      if (!name || name.length > 200) {
        throw new AppError('validation_error', 'The tenant name must be 1 to 200 characters long', [
          { field: 'name', message: 'invalid_name' },
        ]);
      }
      if (input.domains.length === 0) {
        throw new AppError('validation_error', 'A tenant needs at least one mail domain', [
          { field: 'domain', message: 'required' },
        ]);
      }
      const domains = [...new Set(input.domains.map(parseDomain))];
      for (const domain of domains) await assertDomainFree(domain);
      return db.transaction(async (tx) => {
        const tenant = await tenants.insert(
          {
            name,
            brand: input.brand ?? 'moat',
            deploymentMode: input.deploymentMode ?? 'poc',
            isMsp: input.isMsp ?? false,
          },
          tx,
        );
        for (const domain of domains) await tenants.addDomain(tenant.id, domain, tx);
        // A new tenant's SMTP mail is protected out of the box, by every engine of this edition.
        for (const name of DEFAULT_SAAS_APPS) {
          await tenants.setAppState(tenant.id, { kind: 'saas_app', name, state: 'enabled' }, tx);
        }
        for (const name of DEFAULT_SECURITY_TOOLS) {
          await tenants.setAppState(tenant.id, { kind: 'security_tool', name, state: 'enabled' }, tx);
        }
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: 'tenant.create',
            targetType: 'tenant',
            targetId: tenant.id,
            details: { name, domains, brand: tenant.brand, deploymentMode: tenant.deploymentMode },
          },
          tx,
        );
        return { ...tenant, domains };
      });
    },

    async addDomain(
      tenantRef: string,
      rawDomain: string,
      actor: Actor,
    ): Promise<{ tenant: TenantRow; domain: string }> {
      const tenant = await this.resolve(tenantRef);
      const domain = parseDomain(rawDomain);
      await assertDomainFree(domain);
      try {
        await db.transaction(async (tx) => {
          await tenants.addDomain(tenant.id, domain, tx);
          await audit.record(
            actor,
            {
              tenantId: tenant.id,
              action: 'tenant.domain_add',
              targetType: 'tenant',
              targetId: tenant.id,
              details: { domain },
            },
            tx,
          );
        });
      } catch (error) {
        // Taken between the check and the insert (two tenants at once): the same refusal, not a 500.
        if (isUniqueViolation(error)) {
          throw new AppError('conflict', `The domain ${domain} already belongs to a tenant`);
        }
        throw error;
      }
      return { tenant, domain };
    },

    /** Turn SaaS apps and security tools on or off (the CLI's tenant:apps, the console's switches); audited. */
    async setApps(tenantId: string, changes: AppChange[], actor: Actor): Promise<void> {
      if (changes.length === 0) {
        throw new AppError('validation_error', 'Name at least one app or tool to change');
      }
      await db.transaction(async (tx) => {
        for (const change of changes) await tenants.setAppState(tenantId, change, tx);
        await audit.record(
          actor,
          {
            tenantId,
            action: 'tenant.apps_update',
            targetType: 'tenant',
            targetId: tenantId,
            details: Object.fromEntries(changes.map((c) => [c.name, c.state])),
          },
          tx,
        );
      });
    },

    async setFeatures(tenantRef: string, values: Record<string, boolean>, actor: Actor) {
      const tenant = await this.resolve(tenantRef);
      await db.transaction(async (tx) => {
        await features.set(tenant.id, values, tx);
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: 'tenant.features_set',
            targetType: 'tenant',
            targetId: tenant.id,
            details: values,
          },
          tx,
        );
      });
      return { tenant, flags: await features.flagsOf(tenant.id) };
    },

    async update(tenantId: string, changes: Partial<NewTenant>, actor: Actor): Promise<void> {
      await db.transaction(async (tx) => {
        await tenants.update(tenantId, changes, tx);
        await audit.record(
          actor,
          { tenantId, action: 'tenant.update', targetType: 'tenant', targetId: tenantId, details: changes },
          tx,
        );
      });
    },

    domainsOf: (tenantId: string) => tenants.domainsOf(tenantId),
    flagsOf: (tenantId: string) => features.flagsOf(tenantId),
    list: () => tenants.list(),
  };
}
export type TenantsService = ReturnType<typeof createTenantsService>;
