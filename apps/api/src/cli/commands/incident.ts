import { INCIDENT_SEVERITIES } from '@moat/contracts/console';
import { type Command, HELP, oneOf, required, UsageError } from './command.ts';

/** Service-status incidents shown in every console. */
export const incidentCommands: Record<string, Command> = {
  'incident:open': {
    summary: 'Open a service-status incident, shown on a navigation item of every console',
    usage: 'incident:open --title TEXT [--severity info|warning|error] [--nav-item ID]',
    options: {
      ...HELP,
      title: { type: 'string' },
      severity: { type: 'string' },
      'nav-item': { type: 'string' },
    },
    async run({ values }, _ctx, deps) {
      const title = required(values, 'title').trim();
      if (title === '' || title.length > 200)
        throw new UsageError('--title must be 1 to 200 characters long');
      const navItem = values['nav-item'] as string | undefined;
      if (navItem !== undefined && !/^[a-z0-9-]{1,60}$/.test(navItem)) {
        throw new UsageError(
          `--nav-item must be a navigation item id such as security-events (got "${navItem}")`,
        );
      }
      const severity = oneOf(values.severity, INCIDENT_SEVERITIES, 'severity') ?? 'warning';
      const incident = await deps.incidents.open({ title, severity, navItem: navItem ?? null });
      return `Opened incident ${incident.id} (${severity}${navItem ? ` on ${navItem}` : ''}): ${title}`;
    },
  },

  'incident:resolve': {
    summary: 'Resolve a service-status incident',
    usage: 'incident:resolve --id ID',
    options: { ...HELP, id: { type: 'string' } },
    async run({ values }, _ctx, deps) {
      const id = required(values, 'id');
      await deps.incidents.resolve(id);
      return `Resolved incident ${id}`;
    },
  },

  'incident:list': {
    summary: 'List the open service-status incidents',
    usage: 'incident:list',
    options: { ...HELP },
    async run(_args, _ctx, deps) {
      const open = await deps.incidents.list();
      if (open.length === 0) return 'No open incidents';
      return open
        .map((i) => `${i.id}  ${i.severity}  ${i.nav_item ?? '(whole service)'}  ${i.title}`)
        .join('\n');
    },
  },
};
