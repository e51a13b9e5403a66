import type { DkimAlgorithm, DkimSigningDomain } from '@moat/contracts/dkim-signing';
import { AppError } from '../../errors.ts';
import { cliActor } from '../../lib/actor.ts';
import { type Command, HELP, oneOf, required, UsageError } from './command.ts';

const ALGORITHMS: Record<string, DkimAlgorithm> = { rsa: 'rsa-sha256', ed25519: 'ed25519-sha256' };
const PUBLISHED_WORD = {
  yes: 'published',
  other: 'DNS shows another key there',
  no: 'not in DNS yet',
  unknown: 'DNS did not answer',
} as const;

/** One domain as the admin reads it: signing on or off, each key with its record, then the warnings. */
function describe(d: DkimSigningDomain): string {
  const lines = [`${d.domain}: signing ${d.enabled ? 'on' : 'off'}`];
  for (const k of d.keys) {
    const kind = k.algorithm === 'ed25519-sha256' ? 'Ed25519' : `RSA ${k.bits}`;
    const state = k.state === 'active' ? 'signs' : k.state === 'pending' ? 'next key (rotation)' : 'retired';
    lines.push(`  ${k.selector} (${kind}, ${state}; ${PUBLISHED_WORD[k.published]})`);
    if (k.state !== 'retired' || k.published === 'yes') {
      lines.push(`    TXT name:  ${k.recordName}`, `    TXT value: ${k.recordValue}`);
    }
    if (k.removeAfter) lines.push(`    may be removed from DNS after ${k.removeAfter}`);
  }
  for (const w of d.warnings) lines.push(`  warning: ${w}`);
  return lines.join('\n');
}

/** Outbound mail (issue 38): DKIM signing and submission credentials, through the console's services and audit. */
export const outboundCommands: Record<string, Command> = {
  'tenant:dkim': {
    summary:
      "A tenant domain's DKIM signing key and the TXT record to publish (a key is made when it has none); signing on or off, rotation",
    usage:
      'tenant:dkim --tenant ID|DOMAIN [--domain DOMAIN] [--enable | --disable] [--add-key rsa|ed25519] [--rotate rsa|ed25519] [--finish-rotation rsa|ed25519]',
    options: {
      ...HELP,
      tenant: { type: 'string' },
      domain: { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      'add-key': { type: 'string' },
      rotate: { type: 'string' },
      'finish-rotation': { type: 'string' },
    },
    async run({ values }, _ctx, deps) {
      const service = deps.dkimSigning;
      if (!service) throw new AppError('internal_error', "The server's key is not available to this command");
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const actions = ['enable', 'disable', 'add-key', 'rotate', 'finish-rotation'].filter(
        (name) => values[name] !== undefined,
      );
      if (actions.length > 1) throw new UsageError(`give one of --${actions.join(', --')}, not several`);
      const algorithm = (name: string) =>
        ALGORITHMS[oneOf(values[name], Object.keys(ALGORITHMS), name) ?? 'rsa']!;
      // --tenant may name the domain itself; otherwise every domain of the tenant.
      const named = typeof values.domain === 'string' ? values.domain : null;
      const ref = required(values, 'tenant').trim().toLowerCase();
      const all = await deps.tenants.domainsOf(tenant.id);
      const domains = named ? [named] : actions.length > 0 && all.includes(ref) ? [ref] : all;
      if (actions.length > 0 && domains.length !== 1) {
        throw new UsageError(`the tenant has ${domains.length} domains: say which with --domain`);
      }
      const out: string[] = [];
      for (const domain of domains) {
        const action = actions[0];
        const done =
          action === 'enable' || action === 'disable'
            ? await service.setSigning(tenant.id, domain, action === 'enable', cliActor)
            : action === 'add-key'
              ? await service.createKey(tenant.id, domain, algorithm('add-key'), cliActor)
              : action === 'rotate'
                ? await service.rotate(tenant.id, domain, algorithm('rotate'), cliActor)
                : action === 'finish-rotation'
                  ? await service.finishRotation(tenant.id, domain, algorithm('finish-rotation'), cliActor)
                  : await service.ensureKey(tenant.id, domain, cliActor);
        out.push(describe(done));
      }
      if (actions.length > 0) out.push('A running server signs with the change within 30 s.');
      return out.join('\n\n');
    },
  },

  'tenant:smtp-credential': {
    summary:
      "Make a credential for the tenant's mail server to submit outbound mail (SMTP AUTH on SUBMISSION_PORT); the password is printed once",
    usage: 'tenant:smtp-credential --tenant ID|DOMAIN [--label TEXT] | --list | --revoke USERNAME',
    options: {
      ...HELP,
      tenant: { type: 'string' },
      label: { type: 'string' },
      list: { type: 'boolean' },
      revoke: { type: 'string' },
    },
    async run({ values }, ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const service = deps.smtpCredentials;
      if (values.list === true && values.revoke !== undefined) {
        throw new UsageError('give --list or --revoke, not both');
      }
      if (values.list === true) {
        const all = await service.list(tenant.id);
        if (all.length === 0) return `"${tenant.name}" has no submission credentials yet`;
        return all
          .map(
            (c) =>
              `${c.username}  ${c.revokedAt ? `revoked ${c.revokedAt.slice(0, 10)}` : 'active'}  made ${c.createdAt.slice(0, 10)}  last used ${c.lastUsedAt?.slice(0, 16).replace('T', ' ') ?? 'never'}${c.label ? `  (${c.label})` : ''}`,
          )
          .join('\n');
      }
      if (typeof values.revoke === 'string') {
        const name = values.revoke.trim().toLowerCase();
        const found = (await service.list(tenant.id)).find((c) => c.username === name && !c.revokedAt);
        if (!found) throw new AppError('not_found', `"${tenant.name}" has no active credential ${name}`);
        await service.revoke(tenant.id, found.id, cliActor);
        return `Revoked ${name}: a server that uses it is refused from now on`;
      }
      const label = typeof values.label === 'string' ? values.label.trim() : '';
      if (label.length > 100) throw new UsageError('--label is at most 100 characters');
      const { credential, password } = await service.create(tenant.id, label, cliActor);
      const port = ctx.config.submissionPort;
      return [
        `Made a submission credential for "${tenant.name}"${label ? ` (${label})` : ''}.`,
        `  user name: ${credential.username}`,
        `  password:  ${password}`,
        'The password is shown this once and stored only as a hash: keep it in your mail server now.',
        port === null || port === undefined
          ? 'Submission is off on this server (SUBMISSION_PORT=off).'
          : ctx.config.gateway && !ctx.config.gateway.tls
            ? `Submit on port ${port} with SMTP AUTH (PLAIN or LOGIN). No TLS certificate is set (SMTP_TLS_KEY, SMTP_TLS_CERT): logins are taken only from this host until one is.`
            : `Submit on port ${port} with STARTTLS and SMTP AUTH (PLAIN or LOGIN); only senders of the tenant's domains are taken.`,
      ].join('\n');
    },
  },
};
