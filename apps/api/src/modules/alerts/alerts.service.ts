import { OUTBOUND_HELD_ROUTE } from '@moat/contracts/outbound';
import type { AlertBadge, AlertSettings } from '@moat/contracts/phishing-reports';
import { ROUTES, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import type { DbOrTx } from '../../db/client.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { type AlertKind, adminAlertEmail, clickThroughAlertEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { AlertsRepo } from './alerts.repo.ts';

/** At most one alert email of a kind per tenant in this window; the next one tells the count. */
export const ALERT_WINDOW_MS = 10 * 60_000;

/** The tenant's choice for each alert; outbound holds and DLP notices are the policy's own choice (DLP Data Types). */
const SETTING_OF: Partial<Record<AlertKind, keyof AlertSettings>> = {
  restore_request: 'alert_restore_requests',
  report: 'alert_reports',
  malware_hold: 'alert_malware_holds',
};
const SCREEN_OF: Record<AlertKind, string> = {
  restore_request: USER_INTERACTION_ROUTES.restoreRequests,
  report: `${ROUTES.userInteraction}/reported-phishing`,
  malware_hold: USER_INTERACTION_ROUTES.quarantineItems,
  outbound_hold: OUTBOUND_HELD_ROUTE,
  dlp_hit: `${ROUTES.securityEvents}?engine=dlp`,
};

/** The admins' alerts of new restore requests, reports and malware holds (issue 11). */
export function createAlerts(deps: {
  repo: AlertsRepo;
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  publicUrl: string;
}) {
  const { repo, clock } = deps;
  return {
    /**
     * Something of `kind` happened in the tenant: email its admins unless the tenant turned the
     * alert off or one was sent within the window. Runs on the caller's transaction `tx`; the
     * mail it queued is returned for the caller to deliver after its commit.
     */
    async raise(tenantId: string, kind: AlertKind, tx?: DbOrTx): Promise<string[]> {
      const setting = SETTING_OF[kind];
      if (setting && !(await repo.settingsOf(tenantId, tx))[setting]) return [];
      const now = clock.now();
      const since = await repo.claimWindow(
        tenantId,
        kind,
        now,
        new Date(now.getTime() - ALERT_WINDOW_MS),
        tx,
      );
      if (!since) return [];
      const admins = await repo.alertRecipients(tenantId, tx, kind);
      if (admins.length === 0) return [];
      const count = Math.max(1, await repo.eventsSince(tenantId, kind, since, tx));
      const brand = mailBrand(await repo.brandOf(tenantId, tx));
      const mail = adminAlertEmail(brand, {
        kind,
        count,
        consoleUrl: `${deps.publicUrl}/#${SCREEN_OF[kind]}`,
        windowMinutes: ALERT_WINDOW_MS / 60_000,
      });
      const ids: string[] = [];
      for (const to of admins)
        ids.push(await deps.mailer.send({ tenantId, kind: `alert_${kind}`, to, ...mail }, tx));
      return ids;
    },

    /**
     * People clicked through to a host or URL blocked since (click-time protection): its admins
     * are told at once, whoever they are and whatever the other alerts' choices, since someone
     * may have given a phishing site their password. Once per block.
     */
    async clickedThrough(tenantId: string, blocked: string, people: string[]): Promise<void> {
      const admins = await repo.alertRecipients(tenantId);
      if (admins.length === 0 || people.length === 0) return;
      const brand = mailBrand(await repo.brandOf(tenantId));
      const mail = clickThroughAlertEmail(brand, {
        blocked,
        people,
        consoleUrl: `${deps.publicUrl}/#${ROUTES.securityEvents}?type=click`,
      });
      for (const to of admins)
        deps.mailer.deliverStored(
          await deps.mailer.send({ tenantId, kind: 'alert_click_through', to, ...mail }),
        );
    },

    /** Deliver what `raise` queued, once its transaction committed. */
    deliver(ids: string[]): void {
      for (const id of ids) deps.mailer.deliverStored(id);
    },

    settingsOf: (tenantId: string) => repo.settingsOf(tenantId),

    async saveSettings(tenantId: string, settings: AlertSettings, actor: Actor): Promise<AlertSettings> {
      await repo.saveSettings(tenantId, settings, clock.now());
      await deps.audit.record(actor, {
        tenantId,
        action: 'alerts.settings_changed',
        targetType: 'tenant',
        targetId: tenantId,
        details: { ...settings },
      });
      return settings;
    },

    async badge(tenantId: string): Promise<AlertBadge> {
      const { openReports, waitingRequests } = await repo.waiting(tenantId);
      return {
        open_reports: openReports,
        waiting_requests: waitingRequests,
        total: openReports + waitingRequests,
      };
    },
  };
}
export type Alerts = ReturnType<typeof createAlerts>;
