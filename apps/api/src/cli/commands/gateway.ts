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
    usage: 'gateway:sender-list --tenant ID|DOMAIN (--allow VALUE | --block VALUE) [--remove]',
    options: {
      ...HELP,
      tenant: { type: 'string' },
      allow: { type: 'string' },
      block: { type: 'string' },
      remove: { type: 'boolean' },
    },
    async run({ values }, _ctx, deps) {
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
        return `Removed ${value} from the ${list} list of "${tenant.name}"`;
      }
      await deps.senderLists.add(tenant.id, list, value);
      return `Added ${value} to the ${list} list of "${tenant.name}"`;
    },
  },
};
