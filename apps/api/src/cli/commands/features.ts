import { FEATURE_NAMES, isFeatureName } from '@moat/contracts/features';
import { cliActor } from '../../lib/actor.ts';
import { type Command, HELP, required, UsageError } from './command.ts';

/** A tenant's feature flags. */
export const featureCommands: Record<string, Command> = {
  'features:set': {
    summary: "Turn a tenant's feature flags on or off",
    usage: 'features:set --tenant ID|DOMAIN FLAG=on|off [FLAG=on|off ...]',
    options: { ...HELP, tenant: { type: 'string' } },
    positionals: true,
    async run({ values, positionals }, _ctx, deps) {
      if (positionals.length === 0) throw new UsageError('name at least one FLAG=on|off');
      const changes: Record<string, boolean> = {};
      for (const item of positionals) {
        const match = /^([A-Za-z0-9_]+)=(on|off|true|false|1|0)$/.exec(item);
        if (!match) throw new UsageError(`"${item}" is not FLAG=on|off`);
        const [, name, value] = match as unknown as [string, string, string];
        if (!isFeatureName(name)) {
          const near = FEATURE_NAMES.filter((f) => f.toLowerCase().includes(name.toLowerCase().slice(0, 6)));
          throw new UsageError(
            `unknown flag "${name}"${near.length ? ` (did you mean ${near.slice(0, 3).join(', ')}?)` : ''}; features:list shows them all`,
          );
        }
        changes[name] = ['on', 'true', '1'].includes(value);
      }
      const { tenant } = await deps.tenantsService.setFeatures(required(values, 'tenant'), changes, cliActor);
      return Object.entries(changes)
        .map(([name, on]) => `${tenant.name}: ${name} = ${on ? 'on' : 'off'}`)
        .join('\n');
    },
  },

  'features:list': {
    summary: "Show a tenant's feature flags",
    usage: 'features:list --tenant ID|DOMAIN',
    options: { ...HELP, tenant: { type: 'string' } },
    async run({ values }, _ctx, deps) {
      const service = deps.tenantsService;
      const tenant = await service.resolve(required(values, 'tenant'));
      const flags = await service.flagsOf(tenant.id);
      return FEATURE_NAMES.map((name) => `${name} = ${flags[name] ? 'on' : 'off'}`).join('\n');
    },
  },
};
