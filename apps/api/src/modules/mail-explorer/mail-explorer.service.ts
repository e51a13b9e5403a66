import type { MailExplorerList, mailExplorerQuerySchema } from '@moat/contracts/mail-explorer';
import type { z } from 'zod';
import type { MailExplorerRepo } from './mail-explorer.repo.ts';

/** Mail Explorer: every message the gateway processed for the tenant, newest first. */
export function createMailExplorerService(deps: { repo: Pick<MailExplorerRepo, 'page'> }) {
  return {
    async list(tenantId: string, query: z.output<typeof mailExplorerQuerySchema>): Promise<MailExplorerList> {
      const { total, rows } = await deps.repo.page(
        tenantId,
        { verdict: query.verdict, action: query.action, q: query.q },
        { limit: query.limit, offset: query.offset },
      );
      return {
        total,
        items: rows.map((r) => ({
          id: r.id,
          received_at: r.receivedAt.toISOString(),
          sender: r.sender,
          sender_name: r.senderName,
          recipient: r.recipient,
          subject: r.subject,
          verdict: r.verdict,
          action: r.action,
          reasons: r.reasons,
          spf: r.spf,
          dkim: r.dkim,
          dmarc: r.dmarc,
          size: r.size,
          attachments: r.attachments,
          quarantine_message_id: r.quarantineMessageId,
        })),
      };
    },
  };
}
export type MailExplorerService = ReturnType<typeof createMailExplorerService>;
