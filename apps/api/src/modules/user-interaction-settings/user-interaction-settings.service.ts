import type { Verdict } from '@moat/contracts/quarantine';
import {
  frequencyOf,
  type QuarantineSettings,
  quarantineSettingsFrom,
  type quarantineSettingsInputSchema,
  RESTORABLE_VERDICTS,
  type ReportSettings,
  reportSettingsFrom,
  type reportSettingsInputSchema,
  type StoredQuarantineSettings,
  type StoredReportSettings,
} from '@moat/contracts/user-interaction-settings';
import type { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import {
  DEFAULT_DIGEST_SUBJECT,
  DEFAULT_NOTICE_SUBJECT,
  DEFAULT_REPORT_TEXTS,
} from '../../mail/notifications.ts';
import type { AlertsRepo } from '../alerts/alerts.repo.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { PolicyRepo } from '../policy/policy.repo.ts';
import { restorePolicyFrom } from '../quarantine/policy.ts';
import type { QuarantineRepo } from '../quarantine/quarantine.repo.ts';
import type { UserInteractionSettingsRepo } from './user-interaction-settings.repo.ts';

type QuarantineInput = z.output<typeof quarantineSettingsInputSchema>;
type ReportInput = z.output<typeof reportSettingsInputSchema>;

/** 400 naming the field, as the schema's own refusals do. */
const refuse = (field: string, message: string, code: string) =>
  new AppError('validation_error', message, [{ field: `body.${field}`, message: code }]);

/**
 * Settings → User Interaction (issue 33): the Quarantine settings (who decides restore requests,
 * what recipients may do per verdict, how and how often they are told, what the digest lists) and
 * the Phishing Reports settings (what the report buttons do, what a reporter is told, what a
 * confirmation does). Each save is one transaction, audited with before and after, and read by
 * every node at once (the tenants and restore policies tables announce their writes).
 */
export function createUserInteractionSettingsService(deps: {
  repo: UserInteractionSettingsRepo;
  restore: Pick<QuarantineRepo, 'restorePoliciesOf'>;
  policy: Pick<PolicyRepo, 'setRestorePolicies'>;
  alerts: Pick<AlertsRepo, 'settingsOf'>;
  audit: Pick<AuditRepo, 'record'>;
  /** Forget this node's cached tenants and restore policies (the notices reach the other nodes). */
  forget: () => void;
}) {
  const { repo } = deps;

  async function stored(tenantId: string) {
    const row = await repo.storedOf(tenantId);
    if (!row) throw new AppError('forbidden', 'not authenticated');
    return row;
  }

  async function quarantineOf(tenantId: string): Promise<QuarantineSettings> {
    const row = await stored(tenantId);
    const s = quarantineSettingsFrom(row.quarantineSettings);
    const [admins, restore] = await Promise.all([
      repo.activeAdmins(tenantId),
      deps.restore.restorePoliciesOf(tenantId),
    ]);
    const verdicts = {} as QuarantineSettings['verdicts'];
    for (const verdict of RESTORABLE_VERDICTS) {
      const p = restorePolicyFrom(restore, verdict);
      verdicts[verdict] = { restore_mode: p.mode, identification_required: p.identificationRequired };
    }
    return {
      approvers: s.approvers,
      approver_ids: s.approver_ids,
      approver_candidates: admins.map((a) => ({
        id: a.id,
        email: a.email,
        name: `${a.firstName} ${a.lastName}`.trim(),
      })),
      verdicts,
      notification_frequency: frequencyOf(s.per_message, row.digestSchedule),
      digest_schedule: row.digestSchedule,
      digest_verdicts: s.digest_verdicts,
      digest_days: s.digest_days,
      notice_subject: s.notice_subject,
      notice_intro: s.notice_intro,
      digest_subject: s.digest_subject,
      digest_intro: s.digest_intro,
      defaults: {
        notice_subject: DEFAULT_NOTICE_SUBJECT,
        notice_intro: '',
        digest_subject: DEFAULT_DIGEST_SUBJECT,
        digest_intro: '',
      },
    };
  }

  async function reportsOf(tenantId: string): Promise<ReportSettings> {
    const row = await stored(tenantId);
    const alerts = await deps.alerts.settingsOf(tenantId);
    return {
      ...reportSettingsFrom(row.reportSettings),
      defaults: {
        receipt_text: DEFAULT_REPORT_TEXTS.receipt,
        confirmed_text: DEFAULT_REPORT_TEXTS.confirmed.all_copies,
        confirmed_text_reported_copy: DEFAULT_REPORT_TEXTS.confirmed.reported_copy,
        dismissed_text: DEFAULT_REPORT_TEXTS.dismissed,
      },
      admin_alerts: alerts.alert_reports,
    };
  }

  return {
    quarantine: quarantineOf,

    async saveQuarantine(
      tenantId: string,
      input: QuarantineInput,
      actor: Actor,
    ): Promise<QuarantineSettings> {
      const before = await quarantineOf(tenantId);
      const approverIds = [...new Set(input.approver_ids)];
      const admins = new Set(before.approver_candidates.map((a) => a.id));
      const outside = approverIds.filter((id) => !admins.has(id));
      if (outside.length > 0) {
        throw refuse(
          'approver_ids',
          'Only active administrators of the organisation can be named',
          'approver_not_admin',
        );
      }
      const next: StoredQuarantineSettings = {
        approvers: input.approvers,
        approver_ids: input.approvers === 'named' ? approverIds : [],
        per_message: input.notification_frequency === 'per_message',
        notice_subject: input.notice_subject,
        notice_intro: input.notice_intro,
        digest_subject: input.digest_subject,
        digest_intro: input.digest_intro,
        digest_verdicts: RESTORABLE_VERDICTS.filter((v) => input.digest_verdicts.includes(v)),
        digest_days: input.digest_days,
      };
      const restore: Partial<Record<Verdict, { mode: string; identificationRequired: boolean }>> = {};
      for (const verdict of RESTORABLE_VERDICTS) {
        const v = input.verdicts[verdict];
        restore[verdict] = { mode: v.restore_mode, identificationRequired: v.identification_required };
      }
      await repo.transaction(async (tx) => {
        await repo.saveQuarantine(
          tenantId,
          { digestSchedule: input.digest_schedule, quarantineSettings: { ...next } },
          tx,
        );
        await deps.policy.setRestorePolicies(tenantId, restore, tx);
        const { approver_candidates: _c, defaults: _d, ...was } = before;
        await deps.audit.record(
          actor,
          {
            tenantId,
            action: 'user_interaction.quarantine_settings',
            targetType: 'tenant',
            targetId: tenantId,
            details: {
              before: was,
              after: {
                ...next,
                notification_frequency: input.notification_frequency,
                digest_schedule: input.digest_schedule,
                verdicts: input.verdicts,
              },
            },
          },
          tx,
        );
      });
      deps.forget();
      return quarantineOf(tenantId);
    },

    reports: reportsOf,

    async saveReports(tenantId: string, input: ReportInput, actor: Actor): Promise<ReportSettings> {
      const before = reportSettingsFrom((await stored(tenantId)).reportSettings);
      const next: StoredReportSettings = { ...input };
      await repo.transaction(async (tx) => {
        await repo.saveReports(tenantId, { ...next }, tx);
        await deps.audit.record(
          actor,
          {
            tenantId,
            action: 'user_interaction.report_settings',
            targetType: 'tenant',
            targetId: tenantId,
            details: { before, after: next },
          },
          tx,
        );
      });
      deps.forget();
      return reportsOf(tenantId);
    },
  };
}
export type UserInteractionSettingsService = ReturnType<typeof createUserInteractionSettingsService>;
