import type { Settings, settingsUpdateSchema } from '@moat/contracts/settings';
import { domainOfEmail } from '@moat/contracts/validation';
import type { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import { chooseSender, isMailDomain } from '../../mail/sender.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { QuarantineAdminRepo } from '../quarantine-admin/quarantine-admin.repo.ts';
import type { NewTenant, TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';

type Update = z.output<typeof settingsUpdateSchema>;

/** Each setting's column on the tenant. */
const COLUMN = {
  mfa_required: 'mfaRequired',
  password_max_age_days: 'passwordMaxAgeDays',
  session_idle_minutes: 'sessionIdleMinutes',
  session_absolute_hours: 'sessionAbsoluteHours',
  support_access_enabled: 'supportAccessEnabled',
  retention_days: 'retentionDays',
  mail_from_address: 'mailFromAddress',
  mail_from_name: 'mailFromName',
  alert_recipients: 'alertRecipients',
} as const satisfies Record<keyof Update, keyof TenantRow>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Settings (issue 12): the organisation's own policy, stored on the tenant. A change is audited
 * with each setting's value before and after; every node reads it at once (the tenants table's
 * writes are announced, lib/cache.ts), so sessions and mail follow the next request.
 */
export function createSettingsService(deps: {
  db: Pick<Db, 'transaction'>;
  tenants: Pick<TenantsRepo, 'findById' | 'domainsOf' | 'update' | 'list'>;
  quarantine: Pick<QuarantineAdminRepo, 'setRetention'>;
  audit: Pick<AuditRepo, 'record'>;
  /** How the sender of a tenant's mail is chosen when it sets none (MAIL_FROM, PUBLIC_URL). */
  senderConfig: Pick<Config, 'mailFrom' | 'mailFromSet'>;
  /**
   * Forget what this node cached of the tenants (its sessions' limits, its sender) right after the
   * commit: the database's notice reaches the other nodes, and this one a moment later.
   */
  forgetTenants: () => void;
}) {
  async function read(tenantId: string): Promise<{ tenant: TenantRow; domains: string[] }> {
    const tenant = await deps.tenants.findById(tenantId);
    if (!tenant) throw new AppError('forbidden', 'not authenticated');
    return { tenant, domains: await deps.tenants.domainsOf(tenantId) };
  }

  function settingsOf(tenant: TenantRow, domains: string[]): Settings {
    return {
      mfa_required: tenant.mfaRequired,
      password_max_age_days: tenant.passwordMaxAgeDays,
      session_idle_minutes: tenant.sessionIdleMinutes,
      session_absolute_hours: tenant.sessionAbsoluteHours,
      support_access_enabled: tenant.supportAccessEnabled,
      retention_days: tenant.retentionDays,
      mail_from_address: tenant.mailFromAddress,
      mail_from_name: tenant.mailFromName,
      alert_recipients: tenant.alertRecipients,
      default_mail_from: chooseSender(deps.senderConfig, { own: null, domains }).address,
      default_mail_from_name: mailBrand(tenant).name,
      domains,
    };
  }

  /** 400 naming the field, as the schema's own refusals do. */
  const refuse = (field: string, message: string, code: string) =>
    new AppError('validation_error', message, [{ field: `body.${field}`, message: code }]);

  return {
    /** The organisations whose own mail has no sender (the start-up warns of them). */
    async withoutSender(): Promise<string[]> {
      const names: string[] = [];
      for (const tenant of await deps.tenants.list()) {
        const domains = await deps.tenants.domainsOf(tenant.id);
        if (!chooseSender(deps.senderConfig, { own: tenant.mailFromAddress, domains }).address) {
          names.push(tenant.name);
        }
      }
      return names;
    },

    async get(tenantId: string): Promise<Settings> {
      const { tenant, domains } = await read(tenantId);
      return settingsOf(tenant, domains);
    },

    async update(tenantId: string, body: Update, actor: Actor): Promise<Settings> {
      const { tenant, domains } = await read(tenantId);
      const ours = (address: string) => domains.includes(domainOfEmail(address));
      if (body.mail_from_address && !isMailDomain(domainOfEmail(body.mail_from_address))) {
        throw refuse(
          'mail_from_address',
          'The sender must be an address on a mail domain, not an IP address or localhost',
          'not_a_mail_domain',
        );
      }
      if (body.mail_from_address && !ours(body.mail_from_address)) {
        throw refuse(
          'mail_from_address',
          `The sender must be an address of your domains (${domains.join(', ')}), or receivers will take it for spoofing`,
          'domain_not_yours',
        );
      }
      const outside = (body.alert_recipients ?? []).filter((address) => !ours(address));
      if (outside.length > 0) {
        throw refuse(
          'alert_recipients',
          `Alerts go to addresses of your domains only (${domains.join(', ')}): not ${outside.join(', ')}`,
          'domain_not_yours',
        );
      }
      const idle = body.session_idle_minutes ?? tenant.sessionIdleMinutes;
      const absolute = body.session_absolute_hours ?? tenant.sessionAbsoluteHours;
      if (idle > absolute * 60) {
        throw refuse(
          'session_idle_minutes',
          'The idle limit cannot be longer than the session limit',
          'idle_over_absolute',
        );
      }
      const changes: Partial<NewTenant> = {};
      const changed: Record<string, { from: unknown; to: unknown }> = {};
      for (const [key, column] of Object.entries(COLUMN) as Array<[keyof Update, keyof TenantRow]>) {
        const value =
          key === 'alert_recipients' && body.alert_recipients
            ? [...new Set(body.alert_recipients)]
            : body[key];
        if (value === undefined || same(value, tenant[column])) continue;
        (changes as Record<string, unknown>)[column] = value;
        changed[key] = { from: tenant[column], to: value };
      }
      if (Object.keys(changed).length === 0) return settingsOf(tenant, domains);
      await deps.db.transaction(async (tx) => {
        const { retentionDays, ...rest } = changes;
        if (Object.keys(rest).length > 0) await deps.tenants.update(tenantId, rest, tx);
        // A new retention moves the expiry of everything held (the purge and the links read it).
        if (retentionDays !== undefined) await deps.quarantine.setRetention(tenantId, retentionDays, tx);
        await deps.audit.record(
          actor,
          { tenantId, action: 'settings.update', targetType: 'tenant', targetId: tenantId, details: changed },
          tx,
        );
      });
      deps.forgetTenants();
      return this.get(tenantId);
    },
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
