import path from 'node:path';
import { RESTORE_MODES, VERDICTS } from '@moat/contracts/quarantine';
import { AppError } from '../../errors.ts';
import { cliActor } from '../../lib/actor.ts';
import { createDigestRepo } from '../../modules/digest/digest.repo.ts';
import { createDigestService } from '../../modules/digest/digest.service.ts';
import { restorePolicyFrom } from '../../modules/quarantine/policy.ts';
import { createQuarantineService } from '../../modules/quarantine/quarantine.service.ts';
import { type Command, HELP, oneOf, onOff, readFileOrNotFound, required, UsageError } from './command.ts';

/** Held mail: the restore policy, importing a message to hold, and the recipients' digests. */
export const quarantineCommands: Record<string, Command> = {
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
    async run({ values }, _ctx, deps) {
      const tenant = await deps.tenantsService.resolve(required(values, 'tenant'));
      const verdict = oneOf(values.verdict, VERDICTS, 'verdict');
      const mode = oneOf(values.mode, RESTORE_MODES, 'mode');
      if (Boolean(verdict) !== Boolean(mode)) throw new UsageError('give --verdict and --mode together');
      if (verdict === 'malware') throw new UsageError('malware is never restorable');
      if (verdict && mode) {
        const identification = onOff(values.identification, 'identification') ?? true;
        await deps.quarantine.setRestorePolicy(tenant.id, verdict, {
          mode,
          identificationRequired: identification,
        });
        await deps.audit.record(cliActor, {
          tenantId: tenant.id,
          action: 'quarantine.policy_update',
          targetType: 'tenant',
          targetId: tenant.id,
          details: { verdict, mode, identification },
        });
      }
      const stored = await deps.quarantine.restorePoliciesOf(tenant.id);
      const lines = VERDICTS.map((v) => {
        const policy = restorePolicyFrom(stored, v);
        return `${v.padEnd(11)} ${policy.mode.padEnd(22)} identification ${policy.identificationRequired ? 'on' : 'off'}`;
      });
      return `Restore policy of "${tenant.name}":\n${lines.join('\n')}`;
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
    async run({ values }, ctx, deps) {
      if (!ctx.mailer) throw new Error('quarantine:import needs a mailer');
      const file = path.resolve(ctx.cwd, required(values, 'file'));
      const type = (values.type as string | undefined) ?? 'office365_emails';
      if (!/^[a-z0-9_]{1,50}$/.test(type))
        throw new UsageError(`--type must be a SaaS type such as office365_emails (got "${type}")`);
      const verdict = oneOf(values.verdict, VERDICTS, 'verdict') ?? 'suspicious';
      const raw = readFileOrNotFound(file);
      if (raw.length > 50 * 1024 * 1024)
        throw new AppError('payload_too_large', 'The message is larger than 50 MiB');
      const result = await createQuarantineService({
        db: ctx.db,
        clock: ctx.clock,
        config: ctx.config,
        mailer: ctx.mailer,
        repo: deps.quarantine,
        tenants: deps.tenants,
        audit: deps.audit,
        restorePolicy: deps.restorePolicy,
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

  'digest:run': {
    summary: 'Queue the quarantine digests that are due (the server does this every hour)',
    usage: 'digest:run',
    options: { ...HELP },
    async run(_args, ctx, deps) {
      if (!ctx.mailer) throw new Error('digest:run needs a mailer');
      const count = await createDigestService({
        repo: createDigestRepo(ctx.db),
        restorePolicyOf: deps.restorePolicy,
        clock: ctx.clock,
        config: ctx.config,
        mailer: ctx.mailer,
      }).run();
      return count === 0
        ? 'No digest is due'
        : `Queued the digest of ${count} recipient(s) (each is sent once per period)`;
    },
  },
};
