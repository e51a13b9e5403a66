import { randomBytes } from 'node:crypto';
import type { Verdict } from '@moat/contracts/quarantine';
import { ROUTES } from '@moat/contracts/routes';
import type { EventDetails } from '@moat/contracts/security-events';
import { quarantineSettingsFrom, reportSettingsFrom } from '@moat/contracts/user-interaction-settings';
import { domainOfEmail, emailSchema } from '@moat/contracts/validation';
import type { Config } from '../../config.ts';
import type { Db, DbOrTx } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { mailComposer } from '../../mail/compose.ts';
import { type RewriteUrl, rewriteLinks } from '../../mail/gateway/rewrite-links.ts';
import { quarantineNoticeEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { parseMessage, sha256 } from '../../mail/parse.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { Alerts } from '../alerts/alerts.service.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import { restoreLinks } from './links.ts';
import type { RestorePolicy } from './policy.ts';
import type { QuarantineRepo } from './quarantine.repo.ts';

export interface IngestInput {
  raw: Buffer;
  recipient: string;
  saasType: string;
  verdict: Verdict;
  reasons: string[];
  /** Deliver the message without its attachments (kept here for restore-original) instead of holding it. */
  stripAttachments: boolean;
  engine: string;
  /** Tell the recipient (the default); false holds the message silently (policy quarantine_silent). */
  notify?: boolean;
  /** Stripped copies: the envelope sender and the idempotency key of the delivery (the gateway's). */
  delivery?: { envelopeFrom: string; idempotencyKey: string };
  /** How the stripped copy's links go through click-time protection (the gateway's), if they do. */
  rewrite?: RewriteUrl;
  /** The recipient's tenant, when the caller has resolved it already (the gateway). */
  tenant?: TenantRow;
  /** The findings and policy decision behind the hold, for its event (the gateway's); else read from `reasons`. */
  evidence?: EventDetails;
}

/** Held mail's collaborators: app.ts builds them once; the CLI's one-off service lets them default. */
export interface QuarantineDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'publicUrl'>;
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  repo: Pick<QuarantineRepo, 'insertMessage' | 'insertAttachments' | 'insertAction' | 'insertSecurityEvent'>;
  tenants: Pick<TenantsRepo, 'findByDomain'>;
  audit: Pick<AuditRepo, 'record'>;
  /**
   * A verdict's restore policy, read on the caller's transaction when it is not cached (the
   * server's is `TenantSettings.restorePolicy`; a one-off CLI run reads it each time).
   */
  restorePolicy: (tenantId: string, verdict: Verdict, tx?: DbOrTx) => Promise<RestorePolicy>;
  /** The admins' alerts (the server's; a one-off CLI run has none): the outbox ids it queued. */
  alerts?: Pick<Alerts, 'raise'>;
}

/** Holding mail: the one path for the CLI import and the SMTP gateway. */
export function createQuarantineService(deps: QuarantineDeps) {
  const { tenants, repo, audit } = deps;

  /** The message without its attachments, with a note where to get them back. */
  async function strippedCopy(
    parsed: Awaited<ReturnType<typeof parseMessage>>,
    recipient: string,
    note: string,
    rewrite: RewriteUrl | undefined,
  ) {
    const MailComposer = await mailComposer();
    const composer = new MailComposer({
      from: parsed.fromName ? { name: parsed.fromName, address: parsed.fromAddress } : parsed.fromAddress,
      to: recipient,
      subject: parsed.subject,
      date: parsed.date ?? undefined,
      text: `${note}\n\n${parsed.text}`,
      ...(parsed.html
        ? {
            html: `<p style="padding:8px;border:1px solid #d9480f">${note.replace(/[<>&]/g, '')}</p>${parsed.html}`,
          }
        : {}),
      headers: { 'X-Moat-Attachments-Removed': String(parsed.attachments.length) },
    });
    const built = await composer.compile().build();
    if (!rewrite) return built;
    // The sender's links go through click-time protection; Moat's own restore link is left as is.
    const own = `${deps.config.publicUrl.replace(/\/+$/, '')}/`;
    return rewriteLinks(built, (url, index) => (url.startsWith(own) ? null : rewrite(url, index))).raw;
  }

  return {
    /**
     * Hold (or strip) a message for one recipient. Inside the caller's transaction `tx` (the
     * gateway's per-message one), the mail it queues is returned in `outboxIds` for the caller to
     * deliver after its commit; without, it commits its own and starts delivering.
     */
    async ingest(input: IngestInput, actor: Actor, tx?: DbOrTx) {
      const recipient = emailSchema.safeParse(input.recipient);
      if (!recipient.success)
        throw new AppError('validation_error', `"${input.recipient}" is not a valid email address`);
      const tenant = input.tenant ?? (await tenants.findByDomain(domainOfEmail(recipient.data), tx));
      if (!tenant) throw new AppError('not_found', `No tenant has the domain of ${recipient.data}`);
      if (input.raw.length === 0) throw new AppError('validation_error', 'The message is empty');
      const parsed = await parseMessage(input.raw);
      const policy = await deps.restorePolicy(tenant.id, input.verdict, tx);
      const now = deps.clock.now();
      const publicId = randomBytes(24).toString('base64url');
      // The report buttons the organisation offers (Settings → User Interaction → Phishing Reports).
      const buttons = reportSettingsFrom(tenant.reportSettings);
      const actionUrl = (id: string) =>
        `${deps.config.publicUrl}/#${ROUTES.emailActions.action}?${new URLSearchParams({ type: input.saasType, id })}`;
      const actionId = buttons.button_safe ? randomBytes(24).toString('base64url') : null;
      const phishingActionId = buttons.button_phishing ? randomBytes(24).toString('base64url') : null;
      // How recipients are told (Settings → User Interaction → Quarantine): a notice each time, or not.
      const told = quarantineSettingsFrom(tenant.quarantineSettings);
      const notify = input.notify !== false && told.per_message;
      const strip = input.stripAttachments && parsed.attachments.length > 0;
      const links = restoreLinks(deps.config.publicUrl, { saasType: input.saasType, publicId }, policy.mode);
      const brand = mailBrand(tenant);
      const reasons = input.reasons.length ? input.reasons : [`Detected as ${input.verdict}`];
      const restorable = policy.mode !== 'none';

      const outboxIds: string[] = [];
      const hold = async (tx: DbOrTx) => {
        const message = await repo.insertMessage(
          {
            tenantId: tenant.id,
            publicId,
            saasType: input.saasType,
            recipient: recipient.data,
            sender: parsed.fromAddress,
            senderName: parsed.fromName,
            subject: parsed.subject,
            messageIdHeader: parsed.messageId,
            receivedAt: now,
            verdict: input.verdict,
            reasons,
            state: strip ? 'attachments_removed' : 'quarantined',
            silent: input.notify === false,
            raw: input.raw,
            rawSha256: sha256(input.raw),
            size: input.raw.length,
            expiresAt: new Date(now.getTime() + tenant.retentionDays * 86_400_000),
          },
          tx,
        );
        await repo.insertAttachments(
          parsed.attachments.map((a) => ({
            messageId: message.id,
            filename: a.filename,
            contentType: a.contentType,
            size: a.size,
            sha256: a.sha256,
            state: 'removed',
          })),
          tx,
        );
        if (actionId) await repo.insertAction(actionId, message.id, 'report_safe', tx);
        if (phishingActionId) await repo.insertAction(phishingActionId, message.id, 'report_phishing', tx);
        await repo.insertSecurityEvent(
          {
            tenantId: tenant.id,
            messageId: message.id,
            // Held because of the sender block list rather than a verdict: a block.
            type: strip ? 'strip' : input.evidence?.decision?.source === 'block_list' ? 'block' : 'hold',
            recipient: recipient.data,
            sender: parsed.fromAddress,
            subject: parsed.subject,
            details: input.evidence ?? {
              findings: reasons.map((reason) => ({ engine: input.engine, verdict: input.verdict, reason })),
              decision: { verdict: input.verdict, action: strip ? 'strip' : 'quarantine', source: 'import' },
            },
            engine: input.engine,
            verdict: input.verdict,
            description: reasons.join('; '),
            severity: input.verdict === 'malware' || input.verdict === 'phishing' ? 'high' : 'medium',
          },
          tx,
        );
        if (strip) {
          const names = parsed.attachments.map((a) => a.filename).join(', ');
          const note = restorable
            ? `${brand.name} removed ${parsed.attachments.length} attachment(s) from this message (${names}). Restore the original: ${links.restoreOriginal}`
            : `${brand.name} removed ${parsed.attachments.length} attachment(s) from this message (${names}) because they are dangerous.`;
          outboxIds.push(
            await deps.mailer.send(
              {
                tenantId: tenant.id,
                kind: 'stripped_delivery',
                to: recipient.data,
                fromName: brand.name,
                subject: parsed.subject,
                text: note,
                html: '',
                raw: await strippedCopy(parsed, recipient.data, note, input.rewrite),
                ...input.delivery,
              },
              tx,
            ),
          );
        }
        if (notify)
          outboxIds.push(
            await deps.mailer.send(
              {
                tenantId: tenant.id,
                kind: strip ? 'attachment_removed_notice' : 'quarantine_notice',
                to: recipient.data,
                ...quarantineNoticeEmail(brand, {
                  verdict: input.verdict,
                  from: { name: parsed.fromName, address: parsed.fromAddress },
                  subject: parsed.subject,
                  receivedAt: parsed.date ?? now,
                  reasons,
                  strippedAttachments: strip ? parsed.attachments.map((a) => a.filename) : null,
                  mode: policy.mode,
                  links,
                  reportSafeUrl: actionId ? actionUrl(actionId) : undefined,
                  reportPhishingUrl: phishingActionId ? actionUrl(phishingActionId) : undefined,
                  expiresAt: message.expiresAt,
                  wording: { subject: told.notice_subject, intro: told.notice_intro },
                }),
              },
              tx,
            ),
          );
        // A malware hold tells the tenant's admins (throttled: one alert per window, with a count).
        if (input.verdict === 'malware' && deps.alerts)
          outboxIds.push(...(await deps.alerts.raise(tenant.id, 'malware_hold', tx)));
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: strip ? 'quarantine.strip' : 'quarantine.hold',
            targetType: 'quarantine_message',
            targetId: message.id,
            details: {
              recipient: recipient.data,
              verdict: input.verdict,
              mode: policy.mode,
              // Not told now: the organisation tells by digest only, or not at all.
              ...(input.notify !== false && !notify ? { notice_sent: false } : {}),
            },
          },
          tx,
        );
        return message;
      };
      const message = tx ? await hold(tx) : await deps.db.transaction((own) => hold(own));
      // Inside the caller's transaction the mail is not committed yet: the caller delivers it.
      if (!tx) for (const id of outboxIds) deps.mailer.deliverStored(id);
      return { message, policy, links: restorable ? links : null, strip, outboxIds };
    },
  };
}
export type QuarantineService = ReturnType<typeof createQuarantineService>;
