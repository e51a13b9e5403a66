import { errorResponseSchema } from '@moat/contracts/errors';
import {
  MAIL_EXPLORER_API,
  type MailExplorerList,
  mailExplorerListSchema,
  mailExplorerQuerySchema,
} from '@moat/contracts/mail-explorer';
import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { mailLog } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { signedIn } from '../../plugins/app/session.ts';
import { containsPattern } from '../search/search.service.ts';

/** Mail Explorer: every message the gateway processed for the tenant, newest first (admins). */
export const mailExplorerRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;
  app.get(
    MAIL_EXPLORER_API.messages,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['mail-explorer'],
        summary: 'Every message the gateway processed for the tenant: verdict, action, authentication',
        querystring: mailExplorerQuerySchema,
        response: { 200: mailExplorerListSchema, 400: errorResponseSchema, 403: errorResponseSchema },
      },
    },
    async (request): Promise<MailExplorerList> => {
      const { user } = signedIn(request);
      if (user.role !== 'admin') throw new AppError('insufficient_privileges', 'Insufficient privileges');
      const query = request.query;
      const where: SQL[] = [eq(mailLog.tenantId, user.tenantId)];
      if (query.verdict) where.push(eq(mailLog.verdict, query.verdict));
      if (query.action) where.push(eq(mailLog.action, query.action));
      if (query.q) {
        where.push(
          sql`(${mailLog.subject} || ' ' || ${mailLog.senderName} || ' ' || ${mailLog.sender} || ' ' || ${mailLog.recipient}) ilike ${containsPattern(query.q)}`,
        );
      }
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(mailLog)
          .where(and(...where))
          .orderBy(desc(mailLog.receivedAt), desc(mailLog.id))
          .limit(query.limit ?? 50)
          .offset(query.offset ?? 0),
        db
          .select({ n: count() })
          .from(mailLog)
          .where(and(...where)),
      ]);
      return {
        total: Number(total?.n ?? 0),
        items: rows.map((r) => ({
          id: r.id,
          received_at: r.receivedAt.toISOString(),
          sender: r.sender,
          sender_name: r.senderName,
          recipient: r.recipient,
          subject: r.subject,
          verdict: r.verdict as MailExplorerList['items'][number]['verdict'],
          action: r.action as MailExplorerList['items'][number]['action'],
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
  );
};
