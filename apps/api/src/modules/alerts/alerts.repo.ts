import type { AlertSettings } from '@moat/contracts/phishing-reports';
import { quarantineSettingsFrom } from '@moat/contracts/user-interaction-settings';
import { and, count, eq, gt, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  alertSettings,
  alertWindows,
  outboundHeld,
  phishingReports,
  quarantineMessages,
  restoreRequests,
  securityEvents,
  tenants,
  users,
} from '../../db/schema.ts';
import type { AlertKind } from '../../mail/notifications.ts';

const DEFAULTS: AlertSettings = {
  alert_restore_requests: true,
  alert_reports: true,
  alert_malware_holds: true,
};

/** The admins' alerts: their settings, the throttle window of each kind and what waits for them. */
export function createAlertsRepo(db: DbOrTx) {
  return {
    async settingsOf(tenantId: string, tx?: DbOrTx): Promise<AlertSettings> {
      const [row] = await (tx ?? db).select().from(alertSettings).where(eq(alertSettings.tenantId, tenantId));
      if (!row) return DEFAULTS;
      return {
        alert_restore_requests: row.alertRestoreRequests,
        alert_reports: row.alertReports,
        alert_malware_holds: row.alertMalwareHolds,
      };
    },

    async saveSettings(tenantId: string, s: AlertSettings, at: Date, tx?: DbOrTx): Promise<void> {
      const values = {
        alertRestoreRequests: s.alert_restore_requests,
        alertReports: s.alert_reports,
        alertMalwareHolds: s.alert_malware_holds,
        updatedAt: at,
      };
      await (tx ?? db)
        .insert(alertSettings)
        .values({ tenantId, ...values })
        .onConflictDoUpdate({ target: alertSettings.tenantId, set: values });
    },

    /**
     * Claim the alert of `kind` if none was sent since `cutoff`: the previous send's time (or
     * `cutoff` for the first ever) when this call claimed it, else null. Within a window this only
     * reads, so a flood of events does not queue on one row.
     */
    async claimWindow(
      tenantId: string,
      kind: AlertKind,
      now: Date,
      cutoff: Date,
      tx?: DbOrTx,
    ): Promise<Date | null> {
      const q = tx ?? db;
      const where = and(eq(alertWindows.tenantId, tenantId), eq(alertWindows.kind, kind));
      const [row] = await q.select({ sentAt: alertWindows.sentAt }).from(alertWindows).where(where);
      if (!row) {
        const [inserted] = await q
          .insert(alertWindows)
          .values({ tenantId, kind, sentAt: now })
          .onConflictDoNothing()
          .returning({ kind: alertWindows.kind });
        return inserted ? cutoff : null;
      }
      if (row.sentAt > cutoff) return null;
      const [claimed] = await q
        .update(alertWindows)
        .set({ sentAt: now })
        .where(and(where, eq(alertWindows.sentAt, row.sentAt)))
        .returning({ kind: alertWindows.kind });
      return claimed ? row.sentAt : null;
    },

    /** How many events of `kind` the tenant had after `since` (the count an alert tells). */
    async eventsSince(tenantId: string, kind: AlertKind, since: Date, tx?: DbOrTx): Promise<number> {
      const q = tx ?? db;
      const [row] =
        kind === 'restore_request'
          ? await q
              .select({ n: count() })
              .from(restoreRequests)
              .where(and(eq(restoreRequests.tenantId, tenantId), gt(restoreRequests.createdAt, since)))
          : kind === 'report'
            ? await q
                .select({ n: count() })
                .from(phishingReports)
                .where(and(eq(phishingReports.tenantId, tenantId), gt(phishingReports.createdAt, since)))
            : kind === 'outbound_hold'
              ? await q
                  .select({ n: count() })
                  .from(outboundHeld)
                  .where(and(eq(outboundHeld.tenantId, tenantId), gt(outboundHeld.createdAt, since)))
              : kind === 'dlp_hit'
                ? await q
                    .select({ n: count() })
                    .from(securityEvents)
                    .where(
                      and(
                        eq(securityEvents.tenantId, tenantId),
                        eq(securityEvents.engine, 'dlp'),
                        gt(securityEvents.createdAt, since),
                      ),
                    )
                : await q
                    .select({ n: count() })
                    .from(quarantineMessages)
                    .where(
                      and(
                        eq(quarantineMessages.tenantId, tenantId),
                        eq(quarantineMessages.verdict, 'malware'),
                        gt(quarantineMessages.receivedAt, since),
                      ),
                    );
      return Number(row?.n ?? 0);
    },

    /** The tenant's brand, read on the caller's transaction (an alert is raised inside one). */
    async brandOf(tenantId: string, tx?: DbOrTx) {
      const [row] = await (tx ?? db)
        .select({ brand: tenants.brand, brandName: tenants.brandName })
        .from(tenants)
        .where(eq(tenants.id, tenantId));
      return row ?? null;
    },

    /** The addresses of the tenant's active admins. */
    /** Who gets the tenant's alerts: the recipients its Settings name, else every active admin. */
    /**
     * Who an alert goes to: the tenant's alert recipients (Settings), else every active admin. A
     * restore request goes to the approvers when the tenant named them (Settings → User
     * Interaction → Quarantine), those still active admins, else as any alert.
     */
    async alertRecipients(tenantId: string, tx?: DbOrTx, kind?: string): Promise<string[]> {
      const [tenant] = await (tx ?? db)
        .select({ recipients: tenants.alertRecipients, quarantine: tenants.quarantineSettings })
        .from(tenants)
        .where(eq(tenants.id, tenantId));
      const admins = (ids?: string[]) =>
        (tx ?? db)
          .select({ email: users.email })
          .from(users)
          .where(
            and(
              eq(users.tenantId, tenantId),
              eq(users.role, 'admin'),
              eq(users.status, 'active'),
              ...(ids ? [inArray(users.id, ids)] : []),
            ),
          );
      const approvers = tenant ? quarantineSettingsFrom(tenant.quarantine) : null;
      if (
        kind === 'restore_request' &&
        approvers?.approvers === 'named' &&
        approvers.approver_ids.length > 0
      ) {
        const named = await admins(approvers.approver_ids);
        if (named.length > 0) return named.map((r) => r.email);
      }
      if (tenant && tenant.recipients.length > 0) return tenant.recipients;
      return (await admins()).map((r) => r.email);
    },

    /** What waits for the tenant's admins now: open reports and restore requests not decided. */
    async waiting(tenantId: string, tx?: DbOrTx): Promise<{ openReports: number; waitingRequests: number }> {
      const q = tx ?? db;
      const [[reports], [requests]] = await Promise.all([
        q
          .select({ n: count() })
          .from(phishingReports)
          .where(and(eq(phishingReports.tenantId, tenantId), eq(phishingReports.status, 'open'))),
        q
          .select({ n: count() })
          .from(restoreRequests)
          .where(and(eq(restoreRequests.tenantId, tenantId), eq(restoreRequests.status, 'requested'))),
      ]);
      return { openReports: Number(reports?.n ?? 0), waitingRequests: Number(requests?.n ?? 0) };
    },
  };
}
export type AlertsRepo = ReturnType<typeof createAlertsRepo>;
