import { cliActor } from '../../lib/actor.ts';
import { createAuditRepo } from '../../modules/audit/audit.repo.ts';
import { createTrialRepo } from '../../modules/trial/trial.repo.ts';
import {
  createTrialService,
  DEFAULT_EXTENSION_DAYS,
  openTrialRequests,
} from '../../modules/trial/trial.service.ts';
import { type CliContext, type Command, HELP, required, UsageError } from './command.ts';

function trialServiceOf(ctx: CliContext) {
  if (!ctx.mailer) throw new Error('the trial commands need a mailer');
  return createTrialService({
    repo: createTrialRepo(ctx.db),
    audit: createAuditRepo(ctx.db),
    clock: ctx.clock,
    mailer: ctx.mailer,
    supportEmail: ctx.config.supportEmail ?? '',
  });
}

/** The provider's side of trial extensions: list the requests, approve or decline one. */
export const trialCommands: Record<string, Command> = {
  'trial:requests': {
    summary: 'List the open trial-extension requests',
    usage: 'trial:requests',
    options: { ...HELP },
    async run(_args, ctx) {
      const open = await openTrialRequests(ctx.db);
      if (open.length === 0) return 'No open trial-extension requests';
      return open
        .map(
          ({ request, tenantName }) =>
            `${request.createdAt.toISOString()}  tenant ${request.tenantId} "${tenantName}"  by ${request.requesterFirstName} ${request.requesterLastName} <${request.requesterEmail}>`,
        )
        .join('\n');
    },
  },

  'trial:approve': {
    summary: "Approve a tenant's trial-extension request: the trial restarts today for --days days (14)",
    usage: 'trial:approve --tenant ID|DOMAIN [--days DAYS]',
    options: { ...HELP, tenant: { type: 'string' }, days: { type: 'string' } },
    async run({ values }, ctx, deps) {
      const days = values.days === undefined ? DEFAULT_EXTENSION_DAYS : Number(values.days);
      if (!Number.isInteger(days) || days < 1 || days > 365 || !/^\d+$/.test(String(values.days ?? days))) {
        throw new UsageError(`--days must be a number of days from 1 to 365 (got "${String(values.days)}")`);
      }
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const { requester } = await trialServiceOf(ctx).decide(tenant, { approve: true, days }, cliActor);
      return `Extended the trial of "${tenant.name}" by ${days} day(s); told ${requester}`;
    },
  },

  'trial:decline': {
    summary: "Decline a tenant's trial-extension request",
    usage: 'trial:decline --tenant ID|DOMAIN',
    options: { ...HELP, tenant: { type: 'string' } },
    async run({ values }, ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const { requester } = await trialServiceOf(ctx).decide(tenant, { approve: false }, cliActor);
      return `Declined the trial extension of "${tenant.name}"; told ${requester}`;
    },
  },
};
