import type { TrialExtensionRequest, TrialExtensionResponse } from '@moat/contracts/console';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { tenants, trialExtensionRequests } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { trialExtensionDecisionEmail, trialExtensionRequestEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import { createAuditRepo } from '../audit/audit.repo.ts';
import { deploymentConfigOf } from '../deployment/deployment.service.ts';
import type { TenantRow } from '../tenants/tenants.repo.ts';
import type { UserRow } from '../users/users.repo.ts';

export const DEFAULT_EXTENSION_DAYS = 14;

/** Open trial-extension requests, oldest first (the CLI's list). */
export function openTrialRequests(db: Db) {
  return db
    .select({ request: trialExtensionRequests, tenantName: tenants.name })
    .from(trialExtensionRequests)
    .innerJoin(tenants, eq(tenants.id, trialExtensionRequests.tenantId))
    .where(eq(trialExtensionRequests.status, 'requested'))
    .orderBy(asc(trialExtensionRequests.createdAt));
}
export const TRIAL_REQUEST_SENT = 'Your request was sent. We will let you know by email once it is approved.';

/**
 * Trial extension (SPEC §4 "Trial extension", §6): an admin of a poc tenant whose trial ended asks
 * the provider for more time. The request is stored (one open request per tenant), the provider's
 * support address is told, and the tenant shows "waiting for approval" until the provider approves
 * or declines it with the CLI.
 */
export function createTrialService(deps: { db: Db; clock: Clock; mailer: Mailer; supportEmail: string }) {
  const { db, clock } = deps;
  const audit = createAuditRepo(db);

  return {
    async request(
      tenant: TenantRow,
      user: UserRow,
      body: TrialExtensionRequest,
      actor: Actor,
    ): Promise<TrialExtensionResponse> {
      if (user.role !== 'admin') throw new AppError('insufficient_privileges', 'Insufficient privileges');
      const config = deploymentConfigOf(tenant, clock.now(), deps.supportEmail);
      if (config.deploymentMode !== 'poc' || !config.trialExpired) {
        return { success: false, info: 'The trial has not expired, so it cannot be extended yet.' };
      }
      return db.transaction(async (tx) => {
        const inserted = await tx
          .insert(trialExtensionRequests)
          .values({
            tenantId: tenant.id,
            requestedBy: user.id,
            requesterEmail: body.requester_email_address,
            requesterFirstName: body.requester_first_name,
            requesterLastName: body.requester_last_name,
          })
          .onConflictDoNothing()
          .returning({ id: trialExtensionRequests.id });
        await tx.update(tenants).set({ waitingForApproval: true }).where(eq(tenants.id, tenant.id));
        if (inserted.length === 0) return { success: true, info: TRIAL_REQUEST_SENT };
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: 'trial.extension_requested',
            targetType: 'trial_extension_request',
            targetId: inserted[0]!.id,
            details: { requester: body.requester_email_address },
          },
          tx,
        );
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
      return db.transaction(async (tx) => {
        const [open] = await tx
          .select()
          .from(trialExtensionRequests)
          .where(
            and(
              eq(trialExtensionRequests.tenantId, tenant.id),
              eq(trialExtensionRequests.status, 'requested'),
            ),
          );
        if (!open)
          throw new AppError('not_found', `Tenant "${tenant.name}" has no open trial extension request`);
        await tx
          .update(trialExtensionRequests)
          .set({
            status: decision.approve ? 'approved' : 'declined',
            decidedAt: now,
            extendedDays: decision.approve ? decision.days : null,
          })
          .where(eq(trialExtensionRequests.id, open.id));
        await tx
          .update(tenants)
          .set(
            decision.approve
              ? { waitingForApproval: false, trialStartDate: now, trialExpirationDays: decision.days }
              : { waitingForApproval: false },
          )
          .where(eq(tenants.id, tenant.id));
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
