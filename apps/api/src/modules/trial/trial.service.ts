import type { TrialExtensionRequest, TrialExtensionResponse } from '@moat/contracts/console';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { trialExtensionDecisionEmail, trialExtensionRequestEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { deploymentConfigOf } from '../deployment/deployment.service.ts';
import type { TenantRow } from '../tenants/tenants.repo.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { TrialRepo } from './trial.repo.ts';

// The CLI lists the open requests with this (it moved to the repo with the other queries).
export { openTrialRequests } from './trial.repo.ts';

export const DEFAULT_EXTENSION_DAYS = 14;

export const TRIAL_REQUEST_SENT = 'Your request was sent. We will let you know by email once it is approved.';

/**
 * Trial extension (SPEC §4 "Trial extension", §6): an admin of a poc tenant whose trial ended asks
 * the provider for more time. The request is stored (one open request per tenant), the provider's
 * support address is told, and the tenant shows "waiting for approval" until the provider approves
 * or declines it with the CLI.
 */
export function createTrialService(deps: {
  repo: Pick<TrialRepo, 'transaction' | 'insertRequest' | 'openRequestOf' | 'decide' | 'updateTenantTrial'>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  mailer: Mailer;
  /** Null: no support address is set; a request is kept (and audited) but mailed to no one. */
  supportEmail: string | null;
}) {
  const { repo, clock, audit } = deps;

  return {
    async request(
      tenant: TenantRow,
      user: UserRow,
      body: TrialExtensionRequest,
      actor: Actor,
    ): Promise<TrialExtensionResponse> {
      const config = deploymentConfigOf(tenant, clock.now(), deps.supportEmail);
      if (config.deploymentMode !== 'poc' || !config.trialExpired) {
        return { success: false, info: 'The trial has not expired, so it cannot be extended yet.' };
      }
      return repo.transaction(async (tx) => {
        const requestId = await repo.insertRequest(
          {
            tenantId: tenant.id,
            requestedBy: user.id,
            requesterEmail: body.requester_email_address,
            requesterFirstName: body.requester_first_name,
            requesterLastName: body.requester_last_name,
          },
          tx,
        );
        await repo.updateTenantTrial(tenant.id, { waitingForApproval: true }, tx);
        if (requestId === null) return { success: true, info: TRIAL_REQUEST_SENT };
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: 'trial.extension_requested',
            targetType: 'trial_extension_request',
            targetId: requestId,
            details: { requester: body.requester_email_address },
          },
          tx,
        );
        if (deps.supportEmail) {
          await deps.mailer.send(
            {
              tenantId: tenant.id,
              kind: 'trial_extension_request',
              to: deps.supportEmail,
              ...trialExtensionRequestEmail(mailBrand(tenant), {
                tenant,
                requester: {
                  firstName: body.requester_first_name,
                  lastName: body.requester_last_name,
                  email: body.requester_email_address,
                },
                endedDaysAgo: -(config.pocExpiresInDays ?? 0),
              }),
            },
            tx,
          );
        }
        return { success: true, info: TRIAL_REQUEST_SENT };
      });
    },

    /**
     * The provider's decision. Approving restarts the trial today for `days` days; either way the
     * tenant stops waiting and the requester is told by email.
     */
    async decide(
      tenant: TenantRow,
      decision: { approve: true; days: number } | { approve: false },
      actor: Actor,
    ): Promise<{ requester: string }> {
      const now = clock.now();
      return repo.transaction(async (tx) => {
        const open = await repo.openRequestOf(tenant.id, tx);
        if (!open)
          throw new AppError('not_found', `Tenant "${tenant.name}" has no open trial extension request`);
        await repo.decide(
          open.id,
          {
            status: decision.approve ? 'approved' : 'declined',
            decidedAt: now,
            extendedDays: decision.approve ? decision.days : null,
          },
          tx,
        );
        await repo.updateTenantTrial(
          tenant.id,
          decision.approve
            ? { waitingForApproval: false, trialStartDate: now, trialExpirationDays: decision.days }
            : { waitingForApproval: false },
          tx,
        );
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: decision.approve ? 'trial.extension_approved' : 'trial.extension_declined',
            targetType: 'trial_extension_request',
            targetId: open.id,
            details: decision.approve ? { days: decision.days } : {},
          },
          tx,
        );
        const brand = mailBrand(tenant);
        await deps.mailer.send(
          {
            tenantId: tenant.id,
            kind: 'trial_extension_decision',
            to: open.requesterEmail,
            ...trialExtensionDecisionEmail(brand, decision),
          },
          tx,
        );
        return { requester: open.requesterEmail };
      });
    },
  };
}
export type TrialService = ReturnType<typeof createTrialService>;
