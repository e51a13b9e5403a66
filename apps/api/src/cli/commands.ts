import fs from 'node:fs';
import path from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { INCIDENT_SEVERITIES } from '@moat/contracts/console';
import { BRANDS, DEPLOYMENT_MODES, ROLES, SAAS_APPS, SECURITY_TOOLS } from '@moat/contracts/deployment';
import { FEATURE_NAMES, isFeatureName } from '@moat/contracts/features';
import { RESTORE_MODES, VERDICTS } from '@moat/contracts/quarantine';
import { and, eq } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { saasApps, securityTools, senderLists } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { cliActor } from '../lib/actor.ts';
import type { Clock } from '../lib/clock.ts';
import { GATEWAY_ACTIONS, gatewayActionOf, setGatewayAction } from '../mail/gateway/policy.ts';
import {
  RECIPIENT_VERIFICATION_MODES,
  type RecipientVerificationMode,
} from '../mail/gateway/recipient-verify.ts';
import type { Mailer } from '../mail/outbound.ts';
import { createAuditRepo } from '../modules/audit/audit.repo.ts';
import { createLoginLink } from '../modules/auth/login-links.ts';
import { createDigestService, DIGEST_SCHEDULES } from '../modules/digest/digest.service.ts';
import { restorePolicyOf, setRestorePolicy } from '../modules/quarantine/policy.ts';
import { createQuarantineService } from '../modules/quarantine/quarantine.service.ts';
import { createIncidentsRepo } from '../modules/service-status/incidents.repo.ts';
import { createTenantsRepo } from '../modules/tenants/tenants.repo.ts';
import { createTenantsService } from '../modules/tenants/tenants.service.ts';
import {
  createTrialService,
  DEFAULT_EXTENSION_DAYS,
  openTrialRequests,
} from '../modules/trial/trial.service.ts';
import { createUsersRepo } from '../modules/users/users.repo.ts';
import { createUsersService } from '../modules/users/users.service.ts';

export interface CliContext {
  db: Db;
  config: Pick<Config, 'publicUrl'> & Partial<Pick<Config, 'supportEmail'>>;
  /** Outgoing mail: the server's when the command runs through it, else the CLI's own. */
  mailer?: Mailer;
  clock: Clock;
  /** Where relative file paths are resolved: the directory the command was typed in. */
  cwd: string;
  /** Standard input, read by the caller when a command asks for it (--password-stdin). */
  stdin?: string | undefined;
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A mistake in how the command was typed: exit code 2 and a pointer to --help. */
class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

interface Command {
  summary: string;
  usage: string;
  options: Options;
  positionals?: boolean;
  /** Needs standard input (read by the caller before the command runs). */
  readsStdin?: (values: Record<string, unknown>) => boolean;
  run(args: { values: Record<string, unknown>; positionals: string[] }, ctx: CliContext): Promise<string>;
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const satisfies Options;

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function onOff(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new UsageError(`--${name} must be on or off (got "${String(value)}")`);
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) {
    throw new UsageError(`--${name} must be one of: ${allowed.join(', ')} (got "${String(value)}")`);
  }
  return value as T;
}

/** A YYYY-MM-DD date option (midnight UTC), or null for "off" when `allowOff`. */
function dateOrOff(value: unknown, name: string, allowOff = true): Date | null | undefined {
  if (value === undefined) return undefined;
  if (allowOff && value === 'off') return null;
  const text = String(value);
  const date = new Date(`${text}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(text) ||
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== text
  ) {
    throw new UsageError(
      `--${name} must be a date as YYYY-MM-DD${allowOff ? ' or off' : ''} (got "${text}")`,
    );
  }
  return date;
}

function trialServiceOf(ctx: CliContext) {
  if (!ctx.mailer) throw new Error('the trial commands need a mailer');
  return createTrialService({
    db: ctx.db,
    clock: ctx.clock,
    mailer: ctx.mailer,
    supportEmail: ctx.config.supportEmail ?? '',
  });
}

/** What each recipient verification mode does, said back after `tenant:domain-verify`. */
const RECIPIENT_VERIFICATION_HELP: Record<RecipientVerificationMode, string> = {
  auto: 'ask the next hop when SMTP_RELAY_URL is set, else accept every address',
  callout: 'ask the next hop (SMTP_RELAY_URL) whether each address exists',
  known: "accept only the tenant's users who are not disabled",
  off: 'accept every address',
};

const incidentsOf = (ctx: CliContext) => createIncidentsRepo({ db: ctx.db, clock: ctx.clock });

function listOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T[] {
  if (value === undefined) return [];
  const items = String(value)
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new UsageError(`--${name} takes a comma list of ${allowed.join(', ')} (bad: "${item}")`);
    }
  }
  return items as T[];
}

const LOGO_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};
const MAX_LOGO_BYTES = 1024 * 1024;

export const COMMANDS: Record<string, Command> = {
  'tenant:create': {
    summary: 'Create a tenant with one or more mail domains',
    usage:
      'tenant:create --name NAME --domain DOMAIN [--domain DOMAIN ...] [--brand moat|checkpoint|sonicwall] [--mode poc|paid|demo] [--msp]',
    options: {
      ...HELP,
      name: { type: 'string' },
      domain: { type: 'string', multiple: true },
      brand: { type: 'string' },
      mode: { type: 'string' },
      msp: { type: 'boolean' },
    },
    async run({ values }, ctx) {
      const domains = (values.domain as string[] | undefined) ?? [];
      if (domains.length === 0) throw new UsageError('--domain is required (repeat it for more domains)');
      const tenant = await createTenantsService({ db: ctx.db }).create(
        {
          name: required(values, 'name'),
          domains,
          brand: oneOf(values.brand, BRANDS, 'brand'),
          deploymentMode: oneOf(values.mode, DEPLOYMENT_MODES, 'mode'),
          isMsp: values.msp === true,
        },
        cliActor,
      );
      return `Created tenant "${tenant.name}" (id ${tenant.id}) with domain(s) ${tenant.domains.join(', ')}`;
    },
  },

  'tenant:domain-add': {
    summary: 'Add a mail domain to a tenant',
    usage: 'tenant:domain-add --tenant ID|DOMAIN --domain DOMAIN',
    options: { ...HELP, tenant: { type: 'string' }, domain: { type: 'string' } },
    async run({ values }, ctx) {
      const { tenant, domain } = await createTenantsService({ db: ctx.db }).addDomain(
        required(values, 'tenant'),
        required(values, 'domain'),
        cliActor,
      );
      return `Added domain ${domain} to tenant "${tenant.name}" (id ${tenant.id})`;
    },
  },

  'tenant:domain-verify': {
    summary: "Set how the mail gateway checks a domain's recipients while the sender is connected",
    usage: 'tenant:domain-verify --domain DOMAIN --mode auto|callout|known|off',
    options: { ...HELP, domain: { type: 'string' }, mode: { type: 'string' } },
    async run({ values }, ctx) {
      const domain = required(values, 'domain').trim().toLowerCase();
      const mode = oneOf(required(values, 'mode'), RECIPIENT_VERIFICATION_MODES, 'mode')!;
      await ctx.db.transaction(async (tx) => {
        const tenantId = await createTenantsRepo(tx).setRecipientVerification(domain, mode);
        if (!tenantId) throw new AppError('not_found', `No tenant has the domain "${domain}"`);
        await createAuditRepo(tx).record(cliActor, {
          tenantId,
          action: 'tenant.recipient_verification_set',
          targetType: 'tenant',
          targetId: tenantId,
          details: { domain, mode },
        });
      });
      return `Recipient verification of ${domain}: ${mode} (${RECIPIENT_VERIFICATION_HELP[mode]}); a running gateway applies it within 30 s`;
    },
  },

  'tenant:list': {
    summary: 'List tenants with their domains',
    usage: 'tenant:list',
    options: { ...HELP },
    async run(_args, ctx) {
      const service = createTenantsService({ db: ctx.db });
      const rows = await service.list();
      const lines = await Promise.all(
        rows.map(
          async (t) =>
            `${t.id}  ${t.name}  [${t.brand}, ${t.deploymentMode}${t.isMsp ? ', msp' : ''}]  ${(await service.domainsOf(t.id)).join(', ')}`,
        ),
      );
      return lines.length ? lines.join('\n') : 'No tenants yet';
    },
  },

  'tenant:update': {
    summary: "Change a tenant's sign-in policy, brand or deployment mode",
    usage:
      'tenant:update --tenant ID|DOMAIN [--name NAME] [--brand moat|checkpoint|sonicwall] [--brand-name TEXT] [--mode poc|paid|demo] [--mfa-required on|off] [--support-access on|off] [--password-max-age DAYS|off] [--msp on|off] [--managed-service on|off] [--portal-locked on|off] [--paid-start YYYY-MM-DD|off] [--paid-expires YYYY-MM-DD|off] [--trial-start YYYY-MM-DD] [--trial-days DAYS] [--digest off|daily|weekly]',
    options: {
      ...HELP,
      tenant: { type: 'string' },
      name: { type: 'string' },
      brand: { type: 'string' },
      'brand-name': { type: 'string' },
      mode: { type: 'string' },
      'mfa-required': { type: 'string' },
      'support-access': { type: 'string' },
      'password-max-age': { type: 'string' },
      msp: { type: 'string' },
      'managed-service': { type: 'string' },
      'portal-locked': { type: 'string' },
      'paid-start': { type: 'string' },
      'paid-expires': { type: 'string' },
      'trial-start': { type: 'string' },
      'trial-days': { type: 'string' },
      digest: { type: 'string' },
    },
    async run({ values }, ctx) {
      const service = createTenantsService({ db: ctx.db });
      const trialDays = values['trial-days'];
      if (trialDays !== undefined && !/^\d{1,4}$/.test(String(trialDays))) {
        throw new UsageError(
          `--trial-days must be a number of days from 0 to 9999 (got "${String(trialDays)}")`,
        );
      }
      const locked = onOff(values['portal-locked'], 'portal-locked');
      const tenant = await service.resolve(required(values, 'tenant'));
      const maxAge = values['password-max-age'];
      if (maxAge !== undefined && maxAge !== 'off' && !/^[1-9]\d{0,3}$/.test(String(maxAge))) {
        throw new UsageError(
          `--password-max-age must be a number of days from 1 to 9999, or off (got "${String(maxAge)}")`,
        );
      }
      if (typeof values.name === 'string' && (values.name.trim() === '' || values.name.length > 200)) {
        throw new UsageError('--name must be 1 to 200 characters long');
      }
      const changes = Object.fromEntries(
        Object.entries({
          name: typeof values.name === 'string' ? values.name.trim() : undefined,
          brand: oneOf(values.brand, BRANDS, 'brand'),
          brandName: values['brand-name'] as string | undefined,
          deploymentMode: oneOf(values.mode, DEPLOYMENT_MODES, 'mode'),
          mfaRequired: onOff(values['mfa-required'], 'mfa-required'),
          supportAccessEnabled: onOff(values['support-access'], 'support-access'),
          passwordMaxAgeDays: maxAge === undefined ? undefined : maxAge === 'off' ? null : Number(maxAge),
          isMsp: onOff(values.msp, 'msp'),
          isManagedService: onOff(values['managed-service'], 'managed-service'),
          portalLicenseState: locked === undefined ? undefined : locked ? 'locked' : null,
          paidStartDate: dateOrOff(values['paid-start'], 'paid-start'),
          paidExpirationDate: dateOrOff(values['paid-expires'], 'paid-expires'),
          trialStartDate: dateOrOff(values['trial-start'], 'trial-start', false),
          trialExpirationDays: trialDays === undefined ? undefined : Number(trialDays),
          digestSchedule: oneOf(values.digest, DIGEST_SCHEDULES, 'digest'),
        }).filter(([, v]) => v !== undefined),
      );
      if (Object.keys(changes).length === 0) throw new UsageError('name at least one thing to change');
      await service.update(tenant.id, changes, cliActor);
      return `Updated tenant "${tenant.name}": ${Object.entries(changes)
        .map(
          ([k, v]) =>
            `${k} = ${v === null ? 'off' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v)}`,
        )
        .join(', ')}`;
    },
  },

  'tenant:set-logo': {
    summary: "Set or clear a tenant's logo (PNG, JPEG, WebP or SVG, at most 1 MiB)",
    usage: 'tenant:set-logo --tenant ID|DOMAIN (--file PATH | --clear)',
    options: { ...HELP, tenant: { type: 'string' }, file: { type: 'string' }, clear: { type: 'boolean' } },
    async run({ values }, ctx) {
      const tenant = await createTenantsService({ db: ctx.db }).resolve(required(values, 'tenant'));
      const repo = createTenantsRepo(ctx.db);
      if (values.clear === true) {
        if (values.file !== undefined) throw new UsageError('give either --file or --clear, not both');
        await repo.setLogo(tenant.id, null, null);
        return `Cleared the logo of "${tenant.name}"; the brand's default is shown`;
      }
      const file = path.resolve(ctx.cwd, required(values, 'file'));
      const mime = LOGO_TYPES[path.extname(file).toLowerCase()];
      if (!mime) throw new UsageError(`--file must end in ${Object.keys(LOGO_TYPES).join(', ')}`);
      let body: Buffer;
      try {
        body = fs.readFileSync(file);
      } catch {
        throw new AppError('not_found', `Cannot read the file ${file}`);
      }
      if (body.length === 0 || body.length > MAX_LOGO_BYTES) {
        throw new AppError(
          'validation_error',
          `The logo must be 1 byte to 1 MiB (it is ${body.length} bytes)`,
        );
      }
      await repo.setLogo(tenant.id, body, mime);
      return `Set the logo of "${tenant.name}" (${mime}, ${body.length} bytes)`;
    },
  },

  'user:create': {
    summary: 'Create a user with a password, or invite one by link',
    usage:
      'user:create --email EMAIL --role admin|user (--password PASSWORD | --password-stdin | --invite) [--first-name NAME] [--last-name NAME] [--tenant ID|DOMAIN]',
    options: {
      ...HELP,
      email: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      invite: { type: 'boolean' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      tenant: { type: 'string' },
    },
    readsStdin: (values) => values['password-stdin'] === true,
    async run({ values }, ctx) {
      const email = required(values, 'email');
      const role = oneOf(values.role, ROLES, 'role');
      if (!role) throw new UsageError('--role is required (admin or user)');
      const ways = [values.password !== undefined, values['password-stdin'] === true, values.invite === true];
      if (ways.filter(Boolean).length !== 1) {
        throw new UsageError('give exactly one of --password, --password-stdin or --invite');
      }
      const password =
        values['password-stdin'] === true
          ? (ctx.stdin ?? '').replace(/\r?\n$/, '')
          : (values.password as string | undefined);
      const tenant =
        typeof values.tenant === 'string'
          ? await createTenantsService({ db: ctx.db }).resolve(values.tenant)
          : undefined;
      const created = await createUsersService({ db: ctx.db, clock: ctx.clock }).create(
        {
          email,
          role,
          password,
          firstName: values['first-name'] as string | undefined,
          lastName: values['last-name'] as string | undefined,
          tenant,
        },
        cliActor,
      );
      const line = `Created ${created.user.role} ${created.user.email} in tenant "${created.tenant.name}" (user id ${created.user.id})`;
      if (!created.inviteToken) return line;
      const link = `${ctx.config.publicUrl}/#/auth/reset-password?token=${created.inviteToken}`;
      return `${line}\nInvite link (valid 7 days, shown once): ${link}`;
    },
  },

  'auth:link': {
    summary: 'Print a one-time sign-in link for a user (single use, valid 10 minutes)',
    usage: 'auth:link --email EMAIL',
    options: { ...HELP, email: { type: 'string' } },
    async run({ values }, ctx) {
      const link = await createLoginLink(
        { db: ctx.db, clock: ctx.clock, publicUrl: ctx.config.publicUrl },
        required(values, 'email'),
        cliActor,
      );
      return `One-time sign-in link (valid 10 minutes, works once):\n${link}`;
    },
  },

  'tenant:apps': {
    summary: "Set the state of a tenant's SaaS apps and security tools (what the console shows)",
    usage:
      'tenant:apps --tenant ID|DOMAIN [--enable APP,…] [--disable APP,…] [--enable-tools TOOL,…] [--disable-tools TOOL,…]',
    options: {
      ...HELP,
      tenant: { type: 'string' },
      enable: { type: 'string' },
      disable: { type: 'string' },
      'enable-tools': { type: 'string' },
      'disable-tools': { type: 'string' },
    },
    async run({ values }, ctx) {
      const tenant = await createTenantsService({ db: ctx.db }).resolve(required(values, 'tenant'));
      const changes = [
        ...listOf(values.enable, SAAS_APPS, 'enable').map((name) => ({
          table: saasApps,
          name,
          state: 'enabled',
        })),
        ...listOf(values.disable, SAAS_APPS, 'disable').map((name) => ({
          table: saasApps,
          name,
          state: 'disabled',
        })),
        ...listOf(values['enable-tools'], SECURITY_TOOLS, 'enable-tools').map((name) => ({
          table: securityTools,
          name,
          state: 'enabled',
        })),
        ...listOf(values['disable-tools'], SECURITY_TOOLS, 'disable-tools').map((name) => ({
          table: securityTools,
          name,
          state: 'disabled',
        })),
      ];
      if (changes.length === 0) throw new UsageError('name at least one app or tool to change');
      await ctx.db.transaction(async (tx) => {
        for (const { table, name, state } of changes) {
          await tx
            .insert(table)
            .values({ tenantId: tenant.id, name, state })
            .onConflictDoUpdate({
              target: [table.tenantId, table.name],
              set: { state, updatedAt: new Date() },
            });
        }
        await createAuditRepo(ctx.db).record(
          cliActor,
          {
            tenantId: tenant.id,
            action: 'tenant.apps_update',
            targetType: 'tenant',
            targetId: tenant.id,
            details: Object.fromEntries(changes.map((c) => [c.name, c.state])),
          },
          tx,
        );
      });
      return `Updated "${tenant.name}": ${changes.map((c) => `${c.name} ${c.state}`).join(', ')}`;
    },
  },

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
    async run({ values }, ctx) {
      const days = values.days === undefined ? DEFAULT_EXTENSION_DAYS : Number(values.days);
      if (!Number.isInteger(days) || days < 1 || days > 365 || !/^\d+$/.test(String(values.days ?? days))) {
        throw new UsageError(`--days must be a number of days from 1 to 365 (got "${String(values.days)}")`);
      }
      const tenant = await createTenantsService({ db: ctx.db }).resolve(required(values, 'tenant'));
      const { requester } = await trialServiceOf(ctx).decide(tenant, { approve: true, days }, cliActor);
      return `Extended the trial of "${tenant.name}" by ${days} day(s); told ${requester}`;
    },
  },

  'trial:decline': {
    summary: "Decline a tenant's trial-extension request",
    usage: 'trial:decline --tenant ID|DOMAIN',
    options: { ...HELP, tenant: { type: 'string' } },
    async run({ values }, ctx) {
      const tenant = await createTenantsService({ db: ctx.db }).resolve(required(values, 'tenant'));
      const { requester } = await trialServiceOf(ctx).decide(tenant, { approve: false }, cliActor);
      return `Declined the trial extension of "${tenant.name}"; told ${requester}`;
    },
  },

  'incident:open': {
    summary: 'Open a service-status incident, shown on a navigation item of every console',
    usage: 'incident:open --title TEXT [--severity info|warning|error] [--nav-item ID]',
    options: {
      ...HELP,
      title: { type: 'string' },
      severity: { type: 'string' },
      'nav-item': { type: 'string' },
    },
    async run({ values }, ctx) {
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
      const incident = await incidentsOf(ctx).open({ title, severity, navItem: navItem ?? null });
      return `Opened incident ${incident.id} (${severity}${navItem ? ` on ${navItem}` : ''}): ${title}`;
    },
  },

  'incident:resolve': {
    summary: 'Resolve a service-status incident',
    usage: 'incident:resolve --id ID',
    options: { ...HELP, id: { type: 'string' } },
    async run({ values }, ctx) {
      const id = required(values, 'id');
      await incidentsOf(ctx).resolve(id);
      return `Resolved incident ${id}`;
    },
  },

  'incident:list': {
    summary: 'List the open service-status incidents',
    usage: 'incident:list',
    options: { ...HELP },
    async run(_args, ctx) {
      const open = await incidentsOf(ctx).list();
      if (open.length === 0) return 'No open incidents';
      return open
        .map((i) => `${i.id}  ${i.severity}  ${i.nav_item ?? '(whole service)'}  ${i.title}`)
        .join('\n');
    },
  },

  'gateway:policy': {
    summary: "Set what the mail gateway does with a verdict for a tenant (or show the tenant's policy)",
    usage:
      'gateway:policy --tenant ID|DOMAIN [--verdict phishing|malware|spam|suspicious --action deliver|deliver_banner|strip|quarantine|quarantine_silent]',
    options: { ...HELP, tenant: { type: 'string' }, verdict: { type: 'string' }, action: { type: 'string' } },
    async run({ values }, ctx) {
      const tenant = await createTenantsService({ db: ctx.db }).resolve(required(values, 'tenant'));
      const verdict = oneOf(values.verdict, VERDICTS, 'verdict');
      const action = oneOf(values.action, GATEWAY_ACTIONS, 'action');
      if (Boolean(verdict) !== Boolean(action)) throw new UsageError('give --verdict and --action together');
      if (verdict && action) {
        if (verdict === 'malware' && (action === 'deliver' || action === 'deliver_banner')) {
          throw new UsageError(
            'known malware is never delivered: choose strip, quarantine or quarantine_silent',
          );
        }
        await setGatewayAction(ctx.db, tenant.id, verdict, action);
        await createAuditRepo(ctx.db).record(cliActor, {
          tenantId: tenant.id,
          action: 'gateway.policy_update',
          targetType: 'tenant',
          targetId: tenant.id,
          details: { verdict, action },
        });
      }
      const lines = await Promise.all(
        VERDICTS.map(async (v) => `${v.padEnd(11)} ${await gatewayActionOf(ctx.db, tenant.id, v)}`),
      );
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
    async run({ values }, ctx) {
      const tenant = await createTenantsService({ db: ctx.db }).resolve(required(values, 'tenant'));
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
        await ctx.db
          .delete(senderLists)
          .where(
            and(
              eq(senderLists.tenantId, tenant.id),
              eq(senderLists.list, list),
              eq(senderLists.value, value),
            ),
          );
        return `Removed ${value} from the ${list} list of "${tenant.name}"`;
      }
      await ctx.db.insert(senderLists).values({ tenantId: tenant.id, list, value }).onConflictDoNothing();
      return `Added ${value} to the ${list} list of "${tenant.name}"`;
    },
  },

  'quarantine:policy': {
    summary: "Set how recipients may restore a tenant's held mail of a verdict (or show the policy)",
    usage:
      'quarantine:policy --tenant ID|DOMAIN [--verdict phishing|spam|suspicious --mode automatic|request|admin_approve|phish_request_restore|none] [--identification on|off]',
    options: {
      ...HELP,
      tenant: { type: 'string' },
      verdict: { type: 'string' },
      mode: { type: 'string' },
      identification: { type: 'string' },
    },
    async run({ values }, ctx) {
      const tenant = await createTenantsService({ db: ctx.db }).resolve(required(values, 'tenant'));
      const verdict = oneOf(values.verdict, VERDICTS, 'verdict');
      const mode = oneOf(values.mode, RESTORE_MODES, 'mode');
      if (Boolean(verdict) !== Boolean(mode)) throw new UsageError('give --verdict and --mode together');
      if (verdict === 'malware') throw new UsageError('malware is never restorable');
      if (verdict && mode) {
        const identification = onOff(values.identification, 'identification') ?? true;
        await setRestorePolicy(ctx.db, tenant.id, verdict, { mode, identificationRequired: identification });
        await createAuditRepo(ctx.db).record(cliActor, {
          tenantId: tenant.id,
          action: 'quarantine.policy_update',
          targetType: 'tenant',
          targetId: tenant.id,
          details: { verdict, mode, identification },
        });
      }
      const lines = await Promise.all(
        VERDICTS.map(async (v) => {
          const policy = await restorePolicyOf(ctx.db, tenant.id, v);
          return `${v.padEnd(11)} ${policy.mode.padEnd(22)} identification ${policy.identificationRequired ? 'on' : 'off'}`;
        }),
      );
      return `Restore policy of "${tenant.name}":\n${lines.join('\n')}`;
    },
  },

  'digest:run': {
    summary: 'Queue the quarantine digests that are due (the server does this every hour)',
    usage: 'digest:run',
    options: { ...HELP },
    async run(_args, ctx) {
      if (!ctx.mailer) throw new Error('digest:run needs a mailer');
      const count = await createDigestService({
        db: ctx.db,
        clock: ctx.clock,
        config: ctx.config,
        mailer: ctx.mailer,
      }).run();
      return count === 0
        ? 'No digest is due'
        : `Queued the digest of ${count} recipient(s) (each is sent once per period)`;
    },
  },

  'user:update': {
    summary: "Change a user's role, flags or sign-in policy",
    usage:
      'user:update --email EMAIL [--role admin|user] [--mfa-required on|off] [--hidden on|off] [--automation-customer on|off] [--view-policy on|off] [--view-edit-policy on|off] [--view-private-data on|off] [--locked on|off] [--onboarding-required on|off] [--disabled on|off]',
    options: {
      ...HELP,
      email: { type: 'string' },
      role: { type: 'string' },
      'mfa-required': { type: 'string' },
      hidden: { type: 'string' },
      'automation-customer': { type: 'string' },
      'view-policy': { type: 'string' },
      'view-edit-policy': { type: 'string' },
      'view-private-data': { type: 'string' },
      locked: { type: 'string' },
      'onboarding-required': { type: 'string' },
      disabled: { type: 'string' },
    },
    async run({ values }, ctx) {
      const email = required(values, 'email').trim().toLowerCase();
      const users = createUsersRepo(ctx.db);
      const user = await users.findByEmail(email);
      if (!user) throw new AppError('not_found', `No user has the email ${email}`);
      const disabled = onOff(values.disabled, 'disabled');
      const changes = Object.fromEntries(
        Object.entries({
          role: oneOf(values.role, ROLES, 'role'),
          mfaRequired: onOff(values['mfa-required'], 'mfa-required'),
          hidden: onOff(values.hidden, 'hidden'),
          automationCustomer: onOff(values['automation-customer'], 'automation-customer'),
          viewPolicy: onOff(values['view-policy'], 'view-policy'),
          viewEditPolicy: onOff(values['view-edit-policy'], 'view-edit-policy'),
          viewPrivateData: onOff(values['view-private-data'], 'view-private-data'),
          locked: onOff(values.locked, 'locked'),
          onBoardingRequired: onOff(values['onboarding-required'], 'onboarding-required'),
          status:
            disabled === undefined
              ? undefined
              : disabled
                ? 'disabled'
                : user.passwordHash
                  ? 'active'
                  : 'invited',
        }).filter(([, v]) => v !== undefined),
      );
      if (Object.keys(changes).length === 0) throw new UsageError('name at least one thing to change');
      await ctx.db.transaction(async (tx) => {
        await users.update(user.id, changes, tx);
        await createAuditRepo(ctx.db).record(
          cliActor,
          {
            tenantId: user.tenantId,
            action: 'user.update',
            targetType: 'user',
            targetId: user.id,
            details: changes,
          },
          tx,
        );
      });
      return `Updated ${email}: ${Object.entries(changes)
        .map(([k, v]) => `${k} = ${String(v)}`)
        .join(', ')}`;
    },
  },

  'user:reset-mfa': {
    summary: "Turn off a user's MFA (a lost authenticator); the next sign-in sets it up again if required",
    usage: 'user:reset-mfa --email EMAIL',
    options: { ...HELP, email: { type: 'string' } },
    async run({ values }, ctx) {
      const email = required(values, 'email').trim().toLowerCase();
      const users = createUsersRepo(ctx.db);
      const user = await users.findByEmail(email);
      if (!user) throw new AppError('not_found', `No user has the email ${email}`);
      await ctx.db.transaction(async (tx) => {
        await users.update(user.id, { mfaEnabled: false, mfaSecret: null, mfaPendingSecret: null }, tx);
        await createAuditRepo(ctx.db).record(
          cliActor,
          { tenantId: user.tenantId, action: 'mfa.reset', targetType: 'user', targetId: user.id },
          tx,
        );
      });
      return `MFA of ${email} is off`;
    },
  },

  'quarantine:import': {
    summary: 'Hold a raw .eml for a recipient (or deliver it without its attachments) and print their links',
    usage:
      'quarantine:import --file F.eml --recipient EMAIL [--type office365_emails] [--verdict phishing|malware|spam|suspicious] [--reason TEXT ...] [--strip-attachments]',
    options: {
      ...HELP,
      file: { type: 'string' },
      recipient: { type: 'string' },
      type: { type: 'string' },
      verdict: { type: 'string' },
      reason: { type: 'string', multiple: true },
      'strip-attachments': { type: 'boolean' },
    },
    async run({ values }, ctx) {
      if (!ctx.mailer) throw new Error('quarantine:import needs a mailer');
      const file = path.resolve(ctx.cwd, required(values, 'file'));
      const type = (values.type as string | undefined) ?? 'office365_emails';
      if (!/^[a-z0-9_]{1,50}$/.test(type))
        throw new UsageError(`--type must be a SaaS type such as office365_emails (got "${type}")`);
      const verdict = oneOf(values.verdict, VERDICTS, 'verdict') ?? 'suspicious';
      let raw: Buffer;
      try {
        raw = fs.readFileSync(file);
      } catch {
        throw new AppError('not_found', `Cannot read the file ${file}`);
      }
      if (raw.length > 50 * 1024 * 1024)
        throw new AppError('payload_too_large', 'The message is larger than 50 MiB');
      const result = await createQuarantineService({
        db: ctx.db,
        clock: ctx.clock,
        config: ctx.config,
        mailer: ctx.mailer,
      }).ingest(
        {
          raw,
          recipient: required(values, 'recipient'),
          saasType: type,
          verdict,
          reasons: (values.reason as string[] | undefined) ?? [],
          stripAttachments: values['strip-attachments'] === true,
          engine: 'import',
        },
        cliActor,
      );
      const m = result.message;
      const lines = [
        `${result.strip ? 'Delivered without its attachments' : 'Held'}: "${m.subject || '(no subject)'}" for ${m.recipient} (${m.verdict}, restore mode ${result.policy.mode}, ${m.size} bytes, sha256 ${m.rawSha256})`,
      ];
      if (!result.links) lines.push('Not restorable (malware): no links.');
      else if (result.strip) lines.push(`Restore original: ${result.links.restoreOriginal}`);
      else lines.push(`Restore email: ${result.links.restoreEmail}`);
      lines.push(`Links work until ${m.expiresAt.toISOString()}. The recipient was notified by email.`);
      return lines.join('\n');
    },
  },

  'features:set': {
    summary: "Turn a tenant's feature flags on or off",
    usage: 'features:set --tenant ID|DOMAIN FLAG=on|off [FLAG=on|off ...]',
    options: { ...HELP, tenant: { type: 'string' } },
    positionals: true,
    async run({ values, positionals }, ctx) {
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
      const { tenant } = await createTenantsService({ db: ctx.db }).setFeatures(
        required(values, 'tenant'),
        changes,
        cliActor,
      );
      return Object.entries(changes)
        .map(([name, on]) => `${tenant.name}: ${name} = ${on ? 'on' : 'off'}`)
        .join('\n');
    },
  },

  'features:list': {
    summary: "Show a tenant's feature flags",
    usage: 'features:list --tenant ID|DOMAIN',
    options: { ...HELP, tenant: { type: 'string' } },
    async run({ values }, ctx) {
      const service = createTenantsService({ db: ctx.db });
      const tenant = await service.resolve(required(values, 'tenant'));
      const flags = await service.flagsOf(tenant.id);
      return FEATURE_NAMES.map((name) => `${name} = ${flags[name] ? 'on' : 'off'}`).join('\n');
    },
  },
};

export function generalHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Run npm run cli -- <command> --help for the options of one command.',
  ].join('\n');
}

function commandHelp(command: Command): string {
  return `${command.summary}.\n\nUsage: npm run cli -- ${command.usage}`;
}

export type Parsed =
  | { kind: 'help'; text: string }
  | { kind: 'error'; text: string }
  | { kind: 'run'; name: string; command: Command; values: Record<string, unknown>; positionals: string[] };

/** Parse a command line without touching the database. */
export function parseCommandLine(argv: string[]): Parsed {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help')
    return { kind: 'help', text: generalHelp() };
  const command = COMMANDS[name];
  if (!command) return { kind: 'error', text: `Unknown command "${name}".\n\n${generalHelp()}` };
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: command.options,
      strict: true,
      allowPositionals: command.positionals === true,
    });
    if (values.help === true) return { kind: 'help', text: commandHelp(command) };
    return { kind: 'run', name, command, values, positionals };
  } catch (error) {
    return {
      kind: 'error',
      text: `Error: ${(error as Error).message}\nUsage: npm run cli -- ${command.usage}`,
    };
  }
}

/** Run a parsed command line against a database. Shared by the CLI and the server's loopback bridge. */
export async function runCommand(argv: string[], ctx: CliContext): Promise<CliResult> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === 'help') return { exitCode: 0, stdout: `${parsed.text}\n`, stderr: '' };
  if (parsed.kind === 'error') return { exitCode: 2, stdout: '', stderr: `${parsed.text}\n` };
  try {
    const out = await parsed.command.run({ values: parsed.values, positionals: parsed.positionals }, ctx);
    return { exitCode: 0, stdout: `${out}\n`, stderr: '' };
  } catch (error) {
    if (error instanceof UsageError) {
      return {
        exitCode: 2,
        stdout: '',
        stderr: `Error: ${error.message}\nUsage: npm run cli -- ${parsed.command.usage}\n`,
      };
    }
    if (error instanceof AppError) return { exitCode: 1, stdout: '', stderr: `Error: ${error.message}\n` };
    throw error;
  }
}
