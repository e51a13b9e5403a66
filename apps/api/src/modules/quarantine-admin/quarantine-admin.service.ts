import { GLOBAL_ERROR_TEXT } from '@moat/contracts/errors';
import type { RestoreMode, RestoreStatus, Verdict } from '@moat/contracts/quarantine';
import {
  type BulkSkipReason,
  MALWARE_CONFIRMATION_REQUIRED,
  type MessageBulkBody,
  type MessageFeedback,
  type MessageSummary,
  type ReleaseBody,
  type RestoreRequestItem,
} from '@moat/contracts/quarantine-admin';
import { AppError } from '../../errors.ts';
import { type Actor, systemActor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { isOwnDomain } from '../../lib/own-domain.ts';
import { linksOf } from '../../mail/gateway/links.ts';
import { textOfHtml } from '../../mail/html-text.ts';
import { restoreDeclinedEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailparser } from '../../mail/parse.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { PublicActionsService } from '../public-actions/public-actions.service.ts';
import type { TenantSettings } from '../tenants/tenant-settings.ts';
import { mayDecideRestoreRequests } from '../user-interaction-settings/approvers.ts';
import type { AttachmentRow, HeldMessage, QuarantineAdminRepo } from './quarantine-admin.repo.ts';

function summary(m: HeldMessage, attachments: AttachmentRow[]): MessageSummary {
  return {
    id: m.id,
    saas_type: m.saasType,
    recipient: m.recipient,
    sender: m.sender,
    sender_name: m.senderName,
    subject: m.subject,
    received_at: m.receivedAt.toISOString(),
    verdict: m.verdict as Verdict,
    reasons: m.reasons,
    state: m.state as MessageSummary['state'],
    processing_failed: m.failedInboundId !== null,
    size: m.size,
    feedback: m.feedback as MessageFeedback | null,
    feedback_by: m.feedbackBy,
    feedback_at: m.feedbackAt?.toISOString() ?? null,
    retracted_at: m.retractedAt?.toISOString() ?? null,
    attachments: attachments
      .filter((a) => a.messageId === m.id)
      .map((a) => ({
        id: a.id,
        filename: a.filename,
        content_type: a.contentType,
        size: a.size,
        sha256: a.sha256,
        state: a.state as 'removed',
      })),
  };
}

/**
 * Links of a body, shown as text: the gateway's reading (anchors with their text, bare URLs;
 * linear in the input), each address once, at most 100.
 */
function previewLinks(html: string | null, text: string): Array<{ text: string; href: string }> {
  const seen = new Set<string>();
  const links: Array<{ text: string; href: string }> = [];
  for (const link of linksOf(html, text)) {
    if (seen.has(link.href)) continue;
    seen.add(link.href);
    links.push({ href: link.href, text: link.text.trim() });
    if (links.length === 100) break;
  }
  return links;
}

/** A download name from the subject: letters, digits, spaces, dots and dashes only, never empty. */
function emlName(subject: string, id: string): string {
  const safe = subject
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9 ._-]+/g, '')
    .replace(/\s+/g, ' ')
    .replace(/^[ .]+|[ .]+$/g, '')
    .slice(0, 80);
  return `${safe || `message-${id.slice(0, 8)}`}.eml`;
}

/** The admin side of the loop (SPEC §2.4 User Interaction): review, approve (release), decline. */
export function createQuarantineAdminService(deps: {
  repo: Pick<
    QuarantineAdminRepo,
    | 'transaction'
    | 'listRequests'
    | 'listMessages'
    | 'attachmentsOf'
    | 'requestIn'
    | 'messageIn'
    | 'messageWithRawIn'
    | 'decide'
    | 'markDeleted'
    | 'messagesIn'
    | 'setFeedback'
    | 'domainsOf'
    | 'addBlockEntry'
    | 'retentionOf'
    | 'setRetention'
    | 'purgeExpired'
  >;
  audit: Pick<AuditRepo, 'record'>;
  /** The tenant's brand for the decline mail, cached. */
  settings: Pick<TenantSettings, 'tenantById'>;
  clock: Clock;
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  publicActions: Pick<PublicActionsService, 'releaseOnce'>;
  /** The gateway's retry of a parked message (GatewayProcessor.retryParked). */
  retryParked: (
    inboundId: string,
    tenantId: string,
  ) => Promise<'requeued' | 'not_failed' | 'acted_on' | 'shared'>;
  /** The Events screen's record of a release (SecurityEventsRepo.recordRelease; once per message and kind). */
  recordRelease: (m: HeldMessage, kind: 'email' | 'original', to?: string) => Promise<void>;
  /** A released spam or suspicious message teaches the anti-spam engine it is wanted mail (issue 13). */
  learnReleased?: (tenantId: string, heldId: string, actor: Actor) => Promise<void>;
  /**
   * An admin's other judgements teach it too (issue 35): 'is spam' / 'not spam' on a held message,
   * and a restore request approved (wanted) or declined (unwanted).
   */
  learnDecision?: (
    tenantId: string,
    heldId: string,
    label: 'spam' | 'ham',
    actor: Actor,
    source: 'quarantine_feedback' | 'restore_approved' | 'restore_declined',
  ) => Promise<void>;
}) {
  const { repo, audit } = deps;

  async function requestIn(tenantId: string, id: string) {
    const row = await repo.requestIn(tenantId, id);
    if (!row) throw new AppError('not_found', 'No such restore request');
    return row;
  }

  /**
   * Only the approvers decide restore requests (Settings → User Interaction → Quarantine): every
   * admin, or the admins named there. Anyone else is refused as the console refuses a right it
   * does not give ('Insufficient privileges'), and nothing changes.
   */
  async function requireApprover(tenantId: string, actor: Actor): Promise<void> {
    const tenant = await deps.settings.tenantById(tenantId);
    if (!tenant || !mayDecideRestoreRequests(tenant, actor.userId ?? null)) {
      throw new AppError('insufficient_privileges', GLOBAL_ERROR_TEXT.insufficientPrivileges);
    }
  }

  /** The address an admin chose to release to: it must be in one of the tenant's own domains. */
  async function chosenRecipient(tenantId: string, to: string | undefined): Promise<string | undefined> {
    if (to === undefined) return undefined;
    const address = to.trim().toLowerCase();
    const domain = address.slice(address.lastIndexOf('@') + 1);
    if (!(await repo.domainsOf(tenantId)).includes(domain)) {
      throw new AppError('bad_request', "Release only to an address in one of your organisation's domains", [
        { field: 'body.to', message: 'not_own_domain' },
      ]);
    }
    return address;
  }

  /** Release one held message, or say why not. */
  async function releaseHeld(
    tenantId: string,
    m: HeldMessage,
    actor: Actor,
    to: string | undefined,
    confirmMalware: boolean,
  ): Promise<BulkSkipReason | null> {
    if (m.state === 'deleted') return 'already_deleted';
    if (m.state === 'restored') return 'already_released';
    if (m.verdict === 'malware' && !confirmMalware) return 'malware_confirmation_required';
    try {
      await deps.publicActions.releaseOnce(
        m,
        m.state === 'attachments_removed' ? 'original' : 'email',
        actor.userId ?? 'admin',
        undefined,
        to,
      );
    } catch (error) {
      // Deleted since it was read (another admin, a confirmed report, the purge): nothing was sent.
      if (error instanceof AppError && error.code === 'conflict') return 'already_deleted';
      throw error;
    }
    await audit.record(actor, {
      tenantId,
      // Malware released after the explicit second confirmation is its own action in the log.
      action: m.verdict === 'malware' ? 'quarantine.admin_release_malware' : 'quarantine.admin_release',
      targetType: 'quarantine_message',
      targetId: m.id,
      details: { to: to ?? m.recipient, chosen: to !== undefined, verdict: m.verdict },
    });
    await deps.recordRelease(m, m.state === 'attachments_removed' ? 'original' : 'email', to);
    // Phishing and malware stay what they are even when released: only spam judgements are taught.
    if (m.verdict === 'spam' || m.verdict === 'suspicious') await deps.learnReleased?.(tenantId, m.id, actor);
    return null;
  }

  /** Delete one held message (its raw bytes go), or say why not. */
  async function deleteHeld(tenantId: string, m: HeldMessage, actor: Actor): Promise<BulkSkipReason | null> {
    if (m.state === 'deleted') return 'already_deleted';
    await repo.transaction(async (tx) => {
      await repo.markDeleted(tenantId, m.id, tx);
      await audit.record(
        actor,
        {
          tenantId,
          action: 'quarantine.admin_delete',
          targetType: 'quarantine_message',
          targetId: m.id,
        },
        tx,
      );
    });
    return null;
  }

  return {
    async listRequests(
      tenantId: string,
      query: { q?: string; status?: RestoreStatus; limit: number; offset: number },
    ) {
      const { rows, total } = await repo.listRequests(tenantId, query);
      const attachments = await repo.attachmentsOf(rows.map((r) => r.message.id));
      const items: RestoreRequestItem[] = rows.map(({ request: r, message }) => ({
        id: r.id,
        kind: r.kind as 'email',
        requested_by: r.requestedBy,
        commentary: r.commentary,
        mode: r.mode as RestoreMode,
        status: r.status as RestoreStatus,
        created_at: r.createdAt.toISOString(),
        decided_at: r.decidedAt?.toISOString() ?? null,
        decline_reason: r.declineReason,
        message: summary(message, attachments),
      }));
      return { items, total };
    },

    async listMessages(
      tenantId: string,
      query: {
        q?: string;
        verdict?: Verdict;
        state?: string;
        recipient?: string;
        limit: number;
        offset: number;
      },
    ) {
      const { rows, total } = await repo.listMessages(tenantId, query);
      const attachments = await repo.attachmentsOf(rows.map((r) => r.id));
      return { items: rows.map((m) => summary(m, attachments)), total };
    },

    /** Headers and a safe text rendering of the body: nothing remote, links as inert text. */
    async message(tenantId: string, id: string) {
      const m = await repo.messageWithRawIn(tenantId, id);
      if (!m) throw new AppError('not_found', 'No such message');
      // A parked message is one the parser could not take: show what can be read, never a 500.
      const { simpleParser } = await mailparser();
      const parsed = await simpleParser(Buffer.from(m.raw), {
        skipImageLinks: true,
        skipHtmlToText: true,
      }).catch(() => null);
      if (!parsed) {
        return {
          ...summary(m, await repo.attachmentsOf([m.id])),
          headers: [],
          body_text: null,
          links: [],
          raw_sha256: m.rawSha256,
        };
      }
      const headers = parsed.headerLines.slice(0, 200).map((h) => {
        const colon = h.line.indexOf(':');
        return {
          name: h.line.slice(0, colon),
          value: h.line
            .slice(colon + 1)
            .replace(/\r?\n[ \t]+/g, ' ')
            .trim(),
        };
      });
      const html = typeof parsed.html === 'string' ? parsed.html : null;
      const text = parsed.text || (html ? textOfHtml(html) : '');
      return {
        ...summary(m, await repo.attachmentsOf([m.id])),
        headers,
        body_text: text ? text.slice(0, 200_000) : null,
        links: previewLinks(html, text),
        raw_sha256: m.rawSha256,
      };
    },

    /** Approve: release the message to its recipient (once), and mark the request restored. */
    async approve(tenantId: string, id: string, actor: Actor): Promise<RestoreStatus> {
      await requireApprover(tenantId, actor);
      const { request, message } = await requestIn(tenantId, id);
      if (message.state === 'deleted') {
        throw new AppError('conflict', 'This message was deleted, so it can no longer be released.');
      }
      const now = deps.clock.now();
      // Only a request still open moves on: a decline racing this approve wins or loses whole.
      const taken = await repo.decide(id, { status: 'approved', decidedBy: actor.userId ?? null, at: now });
      if (!taken) {
        const { request: current } = await requestIn(tenantId, id);
        if (current.status === 'declined') throw new AppError('conflict', 'This request was declined');
        if (current.status === 'restored') return 'restored';
      } else {
        await audit.record(actor, {
          tenantId,
          action: 'restore_request.approve',
          targetType: 'restore_request',
          targetId: id,
        });
      }
      await deps.publicActions.releaseOnce(
        message,
        request.kind as 'email' | 'original',
        actor.userId ?? 'admin',
        id,
      );
      await deps.recordRelease(message, request.kind as 'email' | 'original');
      // As a release: only spam judgements are taught, phishing and malware stay what they are.
      if (taken && (message.verdict === 'spam' || message.verdict === 'suspicious')) {
        await deps.learnDecision?.(tenantId, message.id, 'ham', actor, 'restore_approved');
      }
      return 'restored';
    },

    /** Decline with a reason: the recipient is told by email. */
    async decline(tenantId: string, id: string, reason: string, actor: Actor): Promise<RestoreStatus> {
      await requireApprover(tenantId, actor);
      const { request, message } = await requestIn(tenantId, id);
      if (request.status !== 'requested')
        throw new AppError('conflict', `This request is already ${request.status}`);
      const brand = mailBrand(await deps.settings.tenantById(tenantId));
      let outboxId = '';
      await repo.transaction(async (tx) => {
        const taken = await repo.decide(
          id,
          {
            status: 'declined',
            declineReason: reason,
            decidedBy: actor.userId ?? null,
            at: deps.clock.now(),
          },
          tx,
        );
        if (!taken) throw new AppError('conflict', 'This request is no longer open');
        outboxId = await deps.mailer.send(
          {
            tenantId,
            kind: 'restore_declined',
            to: message.recipient,
            ...restoreDeclinedEmail(brand, { subject: message.subject, sender: message.sender, reason }),
          },
          tx,
        );
        await audit.record(
          actor,
          {
            tenantId,
            action: 'restore_request.decline',
            targetType: 'restore_request',
            targetId: id,
            details: { reason },
          },
          tx,
        );
      });
      deps.mailer.deliverStored(outboxId);
      // Kept held although its recipient asked for it: the admin judged it unwanted.
      if (message.verdict === 'spam' || message.verdict === 'suspicious') {
        await deps.learnDecision?.(tenantId, message.id, 'spam', actor, 'restore_declined');
      }
      return 'declined';
    },

    /**
     * Release a held message directly from the quarantine list: to its recipient, or to `to`, an
     * address in one of the tenant's own domains. Malware only with `confirm_malware: true`.
     */
    async release(tenantId: string, id: string, actor: Actor, body: ReleaseBody = {}): Promise<void> {
      const to = await chosenRecipient(tenantId, body.to);
      const m = await repo.messageIn(tenantId, id);
      if (!m) throw new AppError('not_found', 'No such message');
      const skipped = await releaseHeld(tenantId, m, actor, to, body.confirm_malware === true);
      if (skipped === 'malware_confirmation_required') {
        throw new AppError('conflict', 'This message contains malware: confirm explicitly to release it', [
          { field: 'body.confirm_malware', message: MALWARE_CONFIRMATION_REQUIRED },
        ]);
      }
      if (skipped === 'already_deleted') throw new AppError('conflict', 'This message was deleted');
      if (skipped === 'already_released') throw new AppError('conflict', 'This message was released already');
    },

    /**
     * Release or delete several of the tenant's messages: each one is acted on or reported
     * (skipped with a reason, or not found: another tenant's id is not found); audited per message.
     */
    async bulk(tenantId: string, body: MessageBulkBody, actor: Actor) {
      const to = body.action === 'release' ? await chosenRecipient(tenantId, body.to) : undefined;
      const ids = [...new Set(body.ids)];
      const found = new Map((await repo.messagesIn(tenantId, ids)).map((m) => [m.id, m]));
      const results: Array<{
        id: string;
        outcome: 'released' | 'deleted' | 'skipped' | 'not_found';
        reason: BulkSkipReason | null;
      }> = [];
      for (const id of ids) {
        const m = found.get(id);
        if (!m) {
          results.push({ id, outcome: 'not_found', reason: null });
          continue;
        }
        const skipped =
          body.action === 'release'
            ? await releaseHeld(tenantId, m, actor, to, body.confirm_malware === true)
            : await deleteHeld(tenantId, m, actor);
        results.push(
          skipped
            ? { id, outcome: 'skipped', reason: skipped }
            : { id, outcome: body.action === 'release' ? 'released' : 'deleted', reason: null },
        );
      }
      return { results };
    },

    /** The raw original of a held message, for an admin to download (audited). */
    async eml(tenantId: string, id: string, actor: Actor) {
      const m = await repo.messageWithRawIn(tenantId, id);
      if (!m) throw new AppError('not_found', 'No such message');
      if (m.state === 'deleted') throw new AppError('not_found', 'This message was deleted');
      await audit.record(actor, {
        tenantId,
        action: 'quarantine.admin_download',
        targetType: 'quarantine_message',
        targetId: id,
        details: { sha256: m.rawSha256, size: m.raw.length },
      });
      return { raw: Buffer.from(m.raw), filename: emlName(m.subject, m.id) };
    },

    /**
     * Block the message's sender (its address) or its domain in the tenant's sender list: the
     * gateway then holds its mail silently. Idempotent; never the tenant's own domains.
     */
    async blockSender(tenantId: string, id: string, scope: 'sender' | 'domain', actor: Actor) {
      const m = await repo.messageIn(tenantId, id);
      if (!m) throw new AppError('not_found', 'No such message');
      const address = m.sender.trim().toLowerCase();
      const at = address.lastIndexOf('@');
      const domain = at > 0 ? address.slice(at + 1) : '';
      if (!domain || at === address.length - 1) {
        throw new AppError('bad_request', 'This message has no sender address to block');
      }
      if (isOwnDomain(domain, await repo.domainsOf(tenantId))) {
        throw new AppError('bad_request', "A sender of your organisation's own domains cannot be blocked");
      }
      const value = scope === 'domain' ? domain : address;
      const added = await repo.transaction(async (tx) => {
        const isNew = await repo.addBlockEntry(tenantId, value, actor.email ?? actor.type, tx);
        if (isNew) {
          await audit.record(
            actor,
            {
              tenantId,
              action: 'sender_list.block',
              targetType: 'quarantine_message',
              targetId: id,
              details: { list: 'block', scope, value },
            },
            tx,
          );
        }
        return isNew;
      });
      return { list: 'block' as const, value, added };
    },

    /** Record an admin's 'is spam' / 'not spam' on the message (the latest one counts). */
    async feedback(tenantId: string, id: string, feedback: MessageFeedback, actor: Actor) {
      const at = deps.clock.now();
      const by = actor.email ?? actor.userId ?? 'admin';
      const done = await repo.transaction(async (tx) => {
        if (!(await repo.setFeedback(tenantId, id, { value: feedback, by, at }, tx))) return false;
        await audit.record(
          actor,
          {
            tenantId,
            action: 'quarantine.feedback',
            targetType: 'quarantine_message',
            targetId: id,
            details: { feedback },
          },
          tx,
        );
        return true;
      });
      if (!done) {
        const [m] = await repo.messagesIn(tenantId, [id]);
        if (m)
          throw new AppError('conflict', 'This message was deleted; feedback is no longer taken for it.');
        throw new AppError('not_found', 'No such message');
      }
      await deps.learnDecision?.(
        tenantId,
        id,
        feedback === 'spam' ? 'spam' : 'ham',
        actor,
        'quarantine_feedback',
      );
      return { feedback, feedback_by: by, feedback_at: at.toISOString() };
    },

    async retention(tenantId: string) {
      const days = await repo.retentionOf(tenantId);
      if (days === null) throw new AppError('not_found', 'No such tenant');
      return { days };
    },

    /** Set how long the tenant keeps held mail; the expiry of what it holds moves with it. */
    async setRetention(tenantId: string, days: number, actor: Actor) {
      const before = await repo.retentionOf(tenantId);
      if (before === null) throw new AppError('not_found', 'No such tenant');
      await repo.transaction(async (tx) => {
        await repo.setRetention(tenantId, days, tx);
        await audit.record(
          actor,
          {
            tenantId,
            action: 'quarantine.retention',
            targetType: 'tenant',
            targetId: tenantId,
            details: { from: before, to: days },
          },
          tx,
        );
      });
      return { days };
    },

    /**
     * The purge job: delete every held message past its tenant's retention (the row, its raw
     * bytes and attachments), with one audit entry per tenant. Run by the cluster sweeper.
     */
    async purgeExpired(): Promise<number> {
      const now = deps.clock.now();
      const perTenant = await repo.purgeExpired(now);
      let total = 0;
      for (const [tenantId, deleted] of perTenant) {
        total += deleted;
        await audit.record(systemActor, {
          tenantId,
          action: 'quarantine.purge',
          targetType: 'tenant',
          targetId: tenantId,
          details: { deleted, expired_before: now.toISOString() },
        });
      }
      return total;
    },

    /**
     * Retry a message the gateway parked as failed: its held copies are withdrawn and it is
     * processed again from the start (it may then be delivered, held for a verdict, or parked again).
     */
    async retry(tenantId: string, id: string, actor: Actor): Promise<void> {
      const m = await repo.messageIn(tenantId, id);
      if (!m) throw new AppError('not_found', 'No such message');
      if (!m.failedInboundId) {
        throw new AppError('conflict', 'Only a message that could not be processed can be retried');
      }
      const result = await deps.retryParked(m.failedInboundId, tenantId);
      if (result === 'shared') {
        throw new AppError(
          'conflict',
          'This message was also sent to another organisation: release or delete it here instead',
        );
      }
      if (result === 'acted_on') {
        throw new AppError(
          'conflict',
          'A copy of this message was already released or deleted: it cannot be processed again',
        );
      }
      if (result === 'not_failed')
        throw new AppError('conflict', 'This message is being processed again already');
      await audit.record(actor, {
        tenantId,
        action: 'quarantine.admin_retry',
        targetType: 'quarantine_message',
        targetId: id,
      });
    },

    /** Delete a held message: it can no longer be read or restored by anyone; the record stays. */
    async remove(tenantId: string, id: string, actor: Actor): Promise<void> {
      const m = await repo.messageIn(tenantId, id);
      if (!m) throw new AppError('not_found', 'No such message');
      await deleteHeld(tenantId, m, actor);
    },
  };
}
export type QuarantineAdminService = ReturnType<typeof createQuarantineAdminService>;
