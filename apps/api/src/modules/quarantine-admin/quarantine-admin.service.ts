import type { RestoreMode, RestoreStatus, Verdict } from '@moat/contracts/quarantine';
import type { MessageSummary, RestoreRequestItem } from '@moat/contracts/quarantine-admin';
import { simpleParser } from 'mailparser';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { textOfHtml } from '../../mail/html-text.ts';
import { restoreDeclinedEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { PublicActionsService } from '../public-actions/public-actions.service.ts';
import type { TenantSettings } from '../tenants/tenant-settings.ts';
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

/** Links of a body, shown as text: [text, href] pairs from anchors and bare URLs. */
function linksOf(html: string | null, text: string): Array<{ text: string; href: string }> {
  const links: Array<{ text: string; href: string }> = [];
  if (html) {
    for (const match of html.matchAll(/<a\b[^>]*href\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi)) {
      links.push({ href: match[1]!, text: match[2]!.replace(/<[^>]*>/g, '').trim() });
    }
  }
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"')]+/gi)) {
    if (!links.some((l) => l.href === match[0])) links.push({ href: match[0], text: match[0] });
  }
  return links.slice(0, 100);
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
  recordRelease: (m: HeldMessage, kind: 'email' | 'original') => Promise<void>;
}) {
  const { repo, audit } = deps;

  async function requestIn(tenantId: string, id: string) {
    const row = await repo.requestIn(tenantId, id);
    if (!row) throw new AppError('not_found', 'No such restore request');
    return row;
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
      query: { q?: string; verdict?: Verdict; state?: string; limit: number; offset: number },
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
        links: linksOf(html, text),
        raw_sha256: m.rawSha256,
      };
    },

    /** Approve: release the message to its recipient (once), and mark the request restored. */
    async approve(tenantId: string, id: string, actor: Actor): Promise<RestoreStatus> {
      const { request, message } = await requestIn(tenantId, id);
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
      return 'restored';
    },

    /** Decline with a reason: the recipient is told by email. */
    async decline(tenantId: string, id: string, reason: string, actor: Actor): Promise<RestoreStatus> {
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
      return 'declined';
    },

    /** Release a held message directly from the quarantine list. */
    async release(tenantId: string, id: string, actor: Actor): Promise<void> {
      const m = await repo.messageIn(tenantId, id);
      if (!m) throw new AppError('not_found', 'No such message');
      if (m.verdict === 'malware') throw new AppError('method_not_allowed', 'Malware is never released');
      await audit.record(actor, {
        tenantId,
        action: 'quarantine.admin_release',
        targetType: 'quarantine_message',
        targetId: id,
      });
      await deps.publicActions.releaseOnce(
        m,
        m.state === 'attachments_removed' ? 'original' : 'email',
        actor.userId ?? 'admin',
      );
      await deps.recordRelease(m, m.state === 'attachments_removed' ? 'original' : 'email');
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

    /** Delete a held message: it can no longer be restored by anyone; the record stays. */
    async remove(tenantId: string, id: string, actor: Actor): Promise<void> {
      if (!(await repo.markDeleted(tenantId, id))) throw new AppError('not_found', 'No such message');
      await audit.record(actor, {
        tenantId,
        action: 'quarantine.admin_delete',
        targetType: 'quarantine_message',
        targetId: id,
      });
    },
  };
}
export type QuarantineAdminService = ReturnType<typeof createQuarantineAdminService>;
