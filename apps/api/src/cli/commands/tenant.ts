import path from 'node:path';
import type { LogoMime } from '@moat/contracts/customization';
import {
  BRANDS,
  DEPLOYMENT_MODES,
  DIGEST_SCHEDULES,
  SAAS_APPS,
  SECURITY_TOOLS,
} from '@moat/contracts/deployment';
import { AppError } from '../../errors.ts';
import { cliActor } from '../../lib/actor.ts';
import { checkLogo } from '../../lib/logo.ts';
import {
  RECIPIENT_VERIFICATION_MODES,
  type RecipientVerificationMode,
} from '../../mail/gateway/recipient-verify.ts';
import { nextHopUrl, parseNextHop } from '../../mail/next-hop.ts';
import {
  type Command,
  dateOrOff,
  HELP,
  listOf,
  oneOf,
  onOff,
  readFileOrNotFound,
  required,
  UsageError,
} from './command.ts';

/** What each recipient verification mode does, said back after `tenant:domain-verify`. */
const RECIPIENT_VERIFICATION_HELP: Record<RecipientVerificationMode, string> = {
  auto: 'ask the next hop when SMTP_RELAY_URL is set, else accept every address',
  callout: 'ask the next hop (SMTP_RELAY_URL) whether each address exists',
  known: "accept only the tenant's users who are not disabled",
  off: 'accept every address',
};

const LOGO_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

/** Tenants: their domains, settings, logo and the apps the console shows. */
export const tenantCommands: Record<string, Command> = {
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
    async run({ values }, _ctx, deps) {
      const domains = (values.domain as string[] | undefined) ?? [];
      if (domains.length === 0) throw new UsageError('--domain is required (repeat it for more domains)');
      const tenant = await deps.tenantsService.create(
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
    async run({ values }, _ctx, deps) {
      const { tenant, domain } = await deps.tenantsService.addDomain(
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
    async run({ values }, ctx, deps) {
      const domain = required(values, 'domain').trim().toLowerCase();
      const mode = oneOf(required(values, 'mode'), RECIPIENT_VERIFICATION_MODES, 'mode')!;
      await ctx.db.transaction(async (tx) => {
        const tenantId = await deps.tenants.setRecipientVerification(domain, mode, tx);
        if (!tenantId) throw new AppError('not_found', `No tenant has the domain "${domain}"`);
        await deps.audit.record(
          cliActor,
          {
            tenantId,
            action: 'tenant.recipient_verification_set',
            targetType: 'tenant',
            targetId: tenantId,
            details: { domain, mode },
          },
          tx,
        );
      });
      return `Recipient verification of ${domain}: ${mode} (${RECIPIENT_VERIFICATION_HELP[mode]}); a running gateway applies it within 30 s`;
    },
  },

  'tenant:list': {
    summary: 'List tenants with their domains',
    usage: 'tenant:list',
    options: { ...HELP },
    async run(_args, _ctx, deps) {
      const service = deps.tenantsService;
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
      'tenant:update --tenant ID|DOMAIN [--name NAME] [--brand moat|checkpoint|sonicwall] [--brand-name TEXT] [--mode poc|paid|demo] [--mfa-required on|off] [--support-access on|off] [--password-max-age DAYS|off] [--msp on|off] [--managed-service on|off] [--portal-locked on|off] [--paid-start YYYY-MM-DD|off] [--paid-expires YYYY-MM-DD|off] [--trial-start YYYY-MM-DD] [--trial-days DAYS] [--digest off|daily|weekly] [--onboarded on|off] [--next-hop HOST[:PORT]|off]',
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
      onboarded: { type: 'string' },
      'next-hop': { type: 'string' },
    },
    async run({ values }, ctx, deps) {
      const service = deps.tenantsService;
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
      const onboarded = onOff(values.onboarded, 'onboarded');
      const hopText = values['next-hop'];
      const hop = typeof hopText === 'string' && hopText !== 'off' ? parseNextHop(hopText) : null;
      if (typeof hopText === 'string' && hopText !== 'off' && !hop) {
        throw new UsageError(`--next-hop must be HOST or HOST:PORT, or off (got "${hopText}")`);
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
          // Off: its admins are led to onboarding again at their next page.
          onboardedAt: onboarded === undefined ? undefined : onboarded ? ctx.clock.now() : null,
          nextHopUrl: hopText === undefined ? undefined : hop ? nextHopUrl(hop) : null,
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
    async run({ values }, ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      if (values.clear === true) {
        if (values.file !== undefined) throw new UsageError('give either --file or --clear, not both');
        await deps.tenants.setLogo(tenant.id, null, null);
        return `Cleared the logo of "${tenant.name}"; the brand's default is shown`;
      }
      const file = path.resolve(ctx.cwd, required(values, 'file'));
      const mime = LOGO_TYPES[path.extname(file).toLowerCase()];
      if (!mime) throw new UsageError(`--file must end in ${Object.keys(LOGO_TYPES).join(', ')}`);
      const body = readFileOrNotFound(file);
      // The same check as the console's upload: the type the bytes claim, the size, a plain SVG.
      checkLogo(body, mime as LogoMime);
      await deps.tenants.setLogo(tenant.id, body, mime);
      return `Set the logo of "${tenant.name}" (${mime}, ${body.length} bytes)`;
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
    async run({ values }, _ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const changes = [
        ...listOf(values.enable, SAAS_APPS, 'enable').map((name) => ({
          kind: 'saas_app' as const,
          name,
          state: 'enabled' as const,
        })),
        ...listOf(values.disable, SAAS_APPS, 'disable').map((name) => ({
          kind: 'saas_app' as const,
          name,
          state: 'disabled' as const,
        })),
        ...listOf(values['enable-tools'], SECURITY_TOOLS, 'enable-tools').map((name) => ({
          kind: 'security_tool' as const,
          name,
          state: 'enabled' as const,
        })),
        ...listOf(values['disable-tools'], SECURITY_TOOLS, 'disable-tools').map((name) => ({
          kind: 'security_tool' as const,
          name,
          state: 'disabled' as const,
        })),
      ];
      if (changes.length === 0) throw new UsageError('name at least one app or tool to change');
      await deps.tenantsService.setApps(tenant.id, changes, cliActor);
      return `Updated "${tenant.name}": ${changes.map((c) => `${c.name} ${c.state}`).join(', ')}`;
    },
  },
};
