import {
  type AppsResponse,
  type DeploymentConfig,
  type LearningMode,
  licenceState,
} from '@moat/contracts/console';
import type { FeatureFlags } from '@moat/contracts/features';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { licenceContactEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { FeaturesRepo } from '../features/features.repo.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { DeploymentRepo } from './deployment.repo.ts';

const DAY_MS = 86_400_000;
/** How long a new tenant's engines learn its traffic before they are fully tuned (learning mode). */
export const LEARNING_PERIOD_DAYS = 14;

/** Whole calendar days (UTC) from `from` to `to`; negative when `to` is earlier. */
export function calendarDaysBetween(from: Date, to: Date): number {
  const start = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  const end = Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate());
  return Math.round((end - start) / DAY_MS);
}

const isoDate = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The end of a tenant's poc trial. */
export function trialEndOf(tenant: Pick<TenantRow, 'trialStartDate' | 'trialExpirationDays'>): Date {
  return new Date(tenant.trialStartDate.getTime() + tenant.trialExpirationDays * DAY_MS);
}

/**
 * SPEC §3 "Deployment config" with the licence status of SPEC §4 "Licence state", as of `now`.
 * Trial days left and paid days left are whole calendar days; a trial is expired once its days
 * left are below 0 (at 0 it ends today).
 */
export function deploymentConfigOf(
  tenant: TenantRow,
  now: Date,
  supportEmail: string | null,
): DeploymentConfig {
  const mode = tenant.deploymentMode;
  const paidExpirationInDays = tenant.paidExpirationDate
    ? calendarDaysBetween(now, tenant.paidExpirationDate)
    : null;
  const pocExpiresInDays = mode === 'poc' ? calendarDaysBetween(now, trialEndOf(tenant)) : null;
  const { isExpired, isAboutToExpire } = licenceState({
    deploymentMode: mode,
    isMsp: tenant.isMsp,
    paidExpirationInDays,
  });
  const configs = tenant.customerConfigs;
  return {
    tenant_name: tenant.name,
    brand: tenant.brand,
    brandName: tenant.brandName ?? defaultBrandName(tenant.brand),
    deploymentMode: mode,
    portalLicenseState: tenant.portalLicenseState === 'locked' ? 'locked' : null,
    is_msp: tenant.isMsp,
    isManagedService: tenant.isManagedService,
    is_avanan_msp: tenant.isAvananMsp,
    is_cp_msp: tenant.isCpMsp,
    mspBrandID: tenant.mspBrandId,
    associationDate: iso(tenant.associationDate),
    demoExpirationDate: iso(tenant.demoExpirationDate),
    paidStartDate: iso(tenant.paidStartDate),
    paidExpirationDate: iso(tenant.paidExpirationDate),
    paidExpirationInDays,
    paidDurationInDays:
      tenant.paidStartDate && tenant.paidExpirationDate
        ? calendarDaysBetween(tenant.paidStartDate, tenant.paidExpirationDate)
        : null,
    trialExpirationDays: tenant.trialExpirationDays,
    pocExpiresInDays,
    trialExpired: pocExpiresInDays !== null && pocExpiresInDays < 0,
    waitingForApproval: tenant.waitingForApproval,
    unifiedQuarantineManuallyDisabled: tenant.unifiedQuarantineManuallyDisabled,
    licence: { isExpired, isAboutToExpire, licenseExpirationDate: isoDate(tenant.paidExpirationDate) },
    training: configs.training,
    dmarc: configs.dmarc,
    archiving: configs.archiving,
    sspm: configs.sspm,
    support_email: supportEmail,
    default_application_mode: tenant.defaultApplicationMode,
  };
}

function defaultBrandName(brand: string): string {
  if (brand === 'checkpoint') return 'Check Point';
  if (brand === 'sonicwall') return 'SonicWall';
  return 'Moat';
}

export function createDeploymentService(deps: {
  repo: Pick<
    DeploymentRepo,
    | 'transaction'
    | 'apps'
    | 'tools'
    | 'licenceSeats'
    | 'setUnifiedQuarantineDisabled'
    | 'addLicenceContactRequest'
  >;
  tenants: Pick<TenantsRepo, 'findById'>;
  features: Pick<FeaturesRepo, 'flagsOf'>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  mailer: Mailer;
  /** Null: no support address is set; a request is kept (and audited) but mailed to no one. */
  supportEmail: string | null;
}) {
  const { repo, clock, features, audit } = deps;

  return {
    /** The signed-in user's tenant: every console call is scoped by it (DESIGN §4 "Tenants"). */
    async tenant(tenantId: string): Promise<TenantRow> {
      const tenant = await deps.tenants.findById(tenantId);
      if (!tenant) throw new AppError('forbidden', 'not authenticated');
      return tenant;
    },

    deployment: (tenant: TenantRow) => deploymentConfigOf(tenant, clock.now(), deps.supportEmail),

    /** Every flag of the tenant; the brand's theme flag follows its brand, as on the public call. */
    async features(tenant: TenantRow): Promise<FeatureFlags> {
      const flags = await features.flagsOf(tenant.id);
      if (tenant.brand === 'checkpoint') flags.checkpointTheme = true;
      if (tenant.brand === 'sonicwall') flags.sonicwallTheme = true;
      return flags;
    },

    async apps(tenantId: string) {
      const [apps, tools] = await Promise.all([repo.apps(tenantId), repo.tools(tenantId)]);
      // The CLI keeps app and tool names within the contract's lists (the tables do not check them).
      return { apps, tools } as AppsResponse;
    },

    async licenceSeats(tenantId: string) {
      const rows = await repo.licenceSeats(tenantId);
      return { data: rows };
    },

    /**
     * Learning mode (SPEC §3): the share of the learning period that has passed since the tenant
     * started; at 100 the engines are tuned to the tenant's traffic and the banner goes away.
     */
    learningMode(tenant: TenantRow): LearningMode {
      const days = (clock.now().getTime() - tenant.createdAt.getTime()) / DAY_MS;
      const progress = Math.max(0, Math.min(100, Math.floor((days / LEARNING_PERIOD_DAYS) * 100)));
      return {
        progress_number: progress,
        modal_popup_title: 'Learning mode',
        modal_popup_text: `For the first ${LEARNING_PERIOD_DAYS} days, the detection engines learn how your organisation normally sends and receives mail, so they can tell unusual messages apart. Detection is active meanwhile; expect a few more messages to be flagged for review until learning completes (${progress}% done).`,
        modal_popup_href_text: 'Review security events',
        modal_popup_href: '#/security-events',
      };
    },

    /** The Microsoft unified quarantine toggle: stored as "manually disabled" on the tenant. */
    async setUnifiedQuarantine(tenant: TenantRow, enabled: boolean, actor: Actor): Promise<DeploymentConfig> {
      const row = await repo.transaction(async (tx) => {
        const updated = await repo.setUnifiedQuarantineDisabled(tenant.id, !enabled, clock.now(), tx);
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: 'tenant.unified_quarantine',
            targetType: 'tenant',
            targetId: tenant.id,
            details: { enabled },
          },
          tx,
        );
        return updated;
      });
      return deploymentConfigOf(row ?? tenant, clock.now(), deps.supportEmail);
    },

    /**
     * The licence banner's Contact us: stored, and sent to the provider's support address so a
     * representative can reach the customer.
     */
    async licenceContact(tenant: TenantRow, user: UserRow, actor: Actor) {
      const config = deploymentConfigOf(tenant, clock.now(), deps.supportEmail);
      await repo.transaction(async (tx) => {
        await repo.addLicenceContactRequest({ tenantId: tenant.id, userId: user.id, email: user.email }, tx);
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: 'licence.contact_requested',
            targetType: 'tenant',
            targetId: tenant.id,
          },
          tx,
        );
        const brand = mailBrand(tenant);
        if (deps.supportEmail) {
          await deps.mailer.send(
            {
              tenantId: tenant.id,
              kind: 'licence_contact',
              to: deps.supportEmail,
              ...licenceContactEmail(brand, {
                tenantName: tenant.name,
                user,
                licence: {
                  expirationDate: config.licence.licenseExpirationDate,
                  isExpired: config.licence.isExpired,
                },
              }),
            },
            tx,
          );
        }
      });
      if (!deps.supportEmail) {
        return {
          success: false,
          info: 'Your request was recorded, but this deployment has no support address to send it to. Ask your provider directly.',
        };
      }
      return { success: true, info: 'Thank you for reaching out. A representative will contact you soon.' };
    },
  };
}
export type DeploymentService = ReturnType<typeof createDeploymentService>;
