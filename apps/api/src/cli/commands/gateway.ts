import { EXCEPTION_COMMENT_MAX } from '@moat/contracts/exceptions';
import { VERDICTS } from '@moat/contracts/quarantine';
import { cliActor } from '../../lib/actor.ts';
import { GATEWAY_ACTIONS, gatewayActionFrom } from '../../mail/gateway/policy.ts';
import { type Command, HELP, oneOf, required, UsageError } from './command.ts';

/** What the mail gateway does with a tenant's mail: the action per verdict and the sender lists. */
export const gatewayCommands: Record<string, Command> = {
  'gateway:policy': {
    summary: "Set what the mail gateway does with a verdict for a tenant (or show the tenant's policy)",
    usage:
      'gateway:policy --tenant ID|DOMAIN [--verdict phishing|malware|spam|suspicious --action deliver|deliver_banner|strip|quarantine|quarantine_silent]',
    options: { ...HELP, tenant: { type: 'string' }, verdict: { type: 'string' }, action: { type: 'string' } },
    async run({ values }, _ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const verdict = oneOf(values.verdict, VERDICTS, 'verdict');
      const action = oneOf(values.action, GATEWAY_ACTIONS, 'action');
      if (Boolean(verdict) !== Boolean(action)) throw new UsageError('give --verdict and --action together');
      if (verdict && action) {
        if (verdict === 'malware' && (action === 'deliver' || action === 'deliver_banner')) {
          throw new UsageError(
            'known malware is never delivered: choose strip, quarantine or quarantine_silent',
          );
        }
        await deps.gatewayPolicies.setAction(tenant.id, verdict, action);
        await deps.audit.record(cliActor, {
          tenantId: tenant.id,
          action: 'gateway.policy_update',
          targetType: 'tenant',
          targetId: tenant.id,
          details: { verdict, action },
        });
      }
      const actions = await deps.gatewayPolicies.actionsOf(tenant.id);
      const lines = VERDICTS.map((v) => `${v.padEnd(11)} ${gatewayActionFrom(actions, v)}`);
      return `Gateway policy of "${tenant.name}":\n${lines.join('\n')}`;
    },
  },

  'gateway:sender-list': {
    summary: "Add a sender address or domain to a tenant's allow or block list, or remove it",
    usage:
      'gateway:sender-list --tenant ID|DOMAIN (--allow VALUE | --block VALUE) [--comment TEXT] [--expires ISO-DATE] [--remove]',
    options: {
      ...HELP,
      tenant: { type: 'string' },
      allow: { type: 'string' },
      block: { type: 'string' },
      comment: { type: 'string' },
      expires: { type: 'string' },
      remove: { type: 'boolean' },
    },
    async run({ values }, ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      if ((values.allow === undefined) === (values.block === undefined)) {
        throw new UsageError('give exactly one of --allow or --block');
      }
      const list = values.allow !== undefined ? 'allow' : 'block';
      const value = String(values.allow ?? values.block)
        .trim()
        .toLowerCase();
      if (!/^([a-z0-9._%+-]+@)?[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(value)) {
        throw new UsageError(`--${list} takes an email address or a domain (got "${value}")`);
      }
      if (values.remove === true) {
        await deps.senderLists.remove(tenant.id, list, value);
        await deps.audit.record(cliActor, {
          tenantId: tenant.id,
          action: 'exception.delete',
          targetType: 'tenant',
          targetId: tenant.id,
          details: { list, value },
        });
        return `Removed ${value} from the ${list} list of "${tenant.name}"`;
      }
      const comment = String(values.comment ?? '').trim();
      if (comment.length > EXCEPTION_COMMENT_MAX) {
        throw new UsageError(`--comment takes at most ${EXCEPTION_COMMENT_MAX} characters`);
      }
      let expiresAt: Date | null = null;
      if (values.expires !== undefined) {
        expiresAt = new Date(String(values.expires));
        if (Number.isNaN(expiresAt.getTime()) || expiresAt <= ctx.clock.now()) {
          throw new UsageError('--expires takes a date in the future (ISO 8601, e.g. 2027-01-31T00:00:00Z)');
        }
      }
      const added = await deps.senderLists.add(tenant.id, list, value, {
        comment,
        expiresAt,
        createdBy: 'cli',
      });
      if (!added) return `${value} is on the ${list} list of "${tenant.name}" already`;
      await deps.audit.record(cliActor, {
        tenantId: tenant.id,
        action: 'exception.create',
        targetType: 'tenant',
        targetId: tenant.id,
        details: { list, value, expires_at: expiresAt?.toISOString() ?? null },
      });
      return `Added ${value} to the ${list} list of "${tenant.name}"`;
    },
  },

  'gateway:exceptions-list': {
    summary: "List a tenant's allow and block entries (every kind and page; expired ones with --expired)",
    usage: 'gateway:exceptions-list --tenant ID|DOMAIN [--expired]',
    options: { ...HELP, tenant: { type: 'string' }, expired: { type: 'boolean' } },
    async run({ values }, ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const now = ctx.clock.now();
      const rows = (await deps.senderLists.list(tenant.id)).filter(
        (r) => values.expired === true || r.expiresAt === null || r.expiresAt > now,
      );
      if (rows.length === 0) return `"${tenant.name}" has no allow or block entries`;
      const table = [
        ['LIST', 'KIND', 'PAGE', 'VALUE', 'EXPIRES', 'ADDED BY', 'COMMENT'],
        ...rows.map((r) => [
          r.list,
          r.kind,
          r.scope,
          r.value,
          r.expiresAt === null
            ? 'never'
            : `${r.expiresAt.toISOString().slice(0, 16).replace('T', ' ')}${r.expiresAt <= now ? ' (expired)' : ''}`,
          r.createdBy || '-',
          r.comment.replace(/\s+/g, ' '),
        ]),
      ];
      const widths = table[0]!.map((_, i) => Math.min(60, Math.max(...table.map((row) => row[i]!.length))));
      return table
        .map((row) =>
          row
            .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
            .join('  ')
            .trimEnd(),
        )
        .join('\n');
    },
  },
};
