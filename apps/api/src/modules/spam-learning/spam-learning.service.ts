import type { StoredMessageDetails } from '@moat/contracts/message-trace';
import type { LearnResult } from '@moat/contracts/spam-learning';
import type { Db, DbOrTx } from '../../db/client.ts';
import type { TokenTable } from '../../engines/spam/bayes.ts';
import { analyse } from '../../engines/spam/embedded.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Caches } from '../../lib/cache.ts';
import { linksOf } from '../../mail/gateway/links.ts';
import { parseMessage } from '../../mail/parse.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { MessageTraceRepo } from '../message-trace/message-trace.repo.ts';
import type { SpamLabel, SpamLearningRepo } from './spam-learning.repo.ts';

/**
 * What taught the engine: an admin's mark (Mail Explorer, or the quarantine's 'is spam' / 'not
 * spam'), an admin's release, a restore request approved or declined, a recipient's own release,
 * a confirmed phishing report.
 */
export type LearnSource =
  | 'admin'
  | 'quarantine_feedback'
  | 'release'
  | 'restore_approved'
  | 'restore_declined'
  | 'recipient_release'
  | 'phishing_report';

export type LearnOutcome = 'learned' | 'relearned' | 'already';

/** A remote engine's Bayes (rspamd's controller, spamd's TELL): taught the same message. */
export interface RemoteLearner {
  name: string;
  learn(raw: Buffer, label: SpamLabel): Promise<'learned' | 'already'>;
}

export interface LearnRequest {
  tenantId: string;
  /** The inbound message's id: one message, however many of the tenant's people got it. */
  messageKey: string;
  label: SpamLabel;
  source: LearnSource;
  /** The message's token keys (the embedded engine's, kept with its Mail Explorer row). */
  tokens: number[];
  /** The message itself when Moat still holds it: remote engines learn from it. */
  raw?: Buffer | null;
  actor: Actor;
  learnedBy: string | null;
}

/**
 * Teaching each tenant's anti-spam engine (issue 13). A message is learned once: learning it again
 * the same way changes nothing, the other way moves its tokens to the other side. The tenant's
 * counts are added to the shipped model's when its mail is scored. rspamd's and SpamAssassin's
 * Bayes, when configured, learn the same message (only while Moat still holds its bytes).
 */
export function createSpamLearningService(deps: {
  db: Pick<Db, 'transaction'>;
  repo: SpamLearningRepo;
  audit: Pick<AuditRepo, 'record'>;
  caches: Pick<Caches, 'create'>;
  /** The remote engines that learn too (those configured). */
  remote: () => RemoteLearner[];
  log: { warn(obj: object, msg: string): void };
  /** Mail Explorer's rows, by id or by held copy. */
  messages: Pick<MessageTraceRepo, 'logEntry'>;
}) {
  const { repo } = deps;
  const totals = deps.caches.create<{ nspam: number; nham: number }>('spam-learned-totals', {
    tables: ['spam_learned_messages'],
    ttlMs: 60_000,
  });

  async function teachRemote(raw: Buffer, label: SpamLabel): Promise<void> {
    for (const engine of deps.remote()) {
      // A remote engine that is down does not undo what Moat learned: it is logged.
      await engine.learn(raw, label).catch((error: Error) => {
        deps.log.warn({ err: error.message, engine: engine.name }, 'remote engine could not learn');
      });
    }
  }

  /** The token keys the gateway kept with the row (base64 of int32s). */
  const keptTokens = (details: StoredMessageDetails) =>
    details.spam_tokens
      ? [...new Int32Array(new Uint8Array(Buffer.from(details.spam_tokens, 'base64')).buffer)]
      : null;

  async function tokensOfRaw(raw: Buffer): Promise<number[]> {
    const parsed = await parseMessage(raw);
    return analyse({ parsed, links: linksOf(parsed.html, parsed.text), raw, auth: null }).keys;
  }

  const service = {
    /**
     * An admin's "spam" or "not spam" for a message of the tenant, by its Mail Explorer row or its
     * held copy. 404 for a message not the tenant's; 409 when Moat kept nothing of it to learn.
     */
    async mark(
      tenantId: string,
      by: { id: string } | { heldId: string },
      label: SpamLabel,
      actor: Actor,
      userId: string | null,
      source: LearnSource = 'admin',
      tx?: DbOrTx,
    ): Promise<LearnResult> {
      const row = await deps.messages.logEntry(tenantId, by);
      const heldId = row?.quarantineMessageId ?? ('heldId' in by ? by.heldId : null);
      const raw = heldId ? await repo.heldRaw(tenantId, heldId) : null;
      if (!row && !raw) throw new AppError('not_found', 'No such message');
      const tokens =
        (row && keptTokens(row.details as StoredMessageDetails)) ?? (raw ? await tokensOfRaw(raw) : null);
      if (!tokens) {
        throw new AppError(
          'conflict',
          'Moat kept neither this message nor its words, so the anti-spam engine cannot learn from it',
        );
      }
      const outcome = await service.learn(
        {
          tenantId,
          messageKey: row?.inboundId ?? `held:${heldId}`,
          label,
          source,
          tokens,
          raw,
          actor,
          learnedBy: userId,
        },
        tx,
      );
      return { label, outcome };
    },

    /**
     * What a release or an approved request (ham), a declined request or a confirmed report (spam)
     * teaches, as whoever did it. A message that cannot be learned (nothing kept) was still
     * released, decided or confirmed: it is only logged.
     */
    async learnHeld(tenantId: string, heldId: string, label: SpamLabel, actor: Actor, source: LearnSource) {
      await service
        .mark(tenantId, { heldId }, label, actor, actor.userId ?? null, source)
        .catch((error: Error) => deps.log.warn({ err: error.message, source }, 'a message was not learned'));
    },

    async learn(request: LearnRequest, outer?: DbOrTx): Promise<LearnOutcome> {
      const run = async (tx: DbOrTx): Promise<LearnOutcome> => {
        const before = await repo.learnedFor(request.tenantId, request.messageKey, tx);
        if (before?.label === request.label) return 'already';
        if (before) await repo.addTokens(request.tenantId, before.tokens, before.label, -1, tx);
        const tokens = [...new Set(request.tokens)];
        await repo.addTokens(request.tenantId, tokens, request.label, 1, tx);
        await repo.recordMessage(
          {
            tenantId: request.tenantId,
            messageKey: request.messageKey,
            label: request.label,
            source: request.source,
            learnedBy: request.learnedBy,
            tokens,
          },
          tx,
        );
        await deps.audit.record(
          request.actor,
          {
            tenantId: request.tenantId,
            action: request.label === 'spam' ? 'spam_learning.spam' : 'spam_learning.ham',
            targetType: 'message',
            targetId: request.messageKey,
            details: { source: request.source, ...(before ? { was: before.label } : {}) },
          },
          tx,
        );
        return before ? 'relearned' : 'learned';
      };
      const outcome = outer ? await run(outer) : await deps.db.transaction(run);
      if (outcome !== 'already' && request.raw) await teachRemote(request.raw, request.label);
      return outcome;
    },

    /** The tenant's own counts for these tokens, for scoring; null when it taught nothing. */
    async tableFor(tenantId: string, keys: number[]): Promise<TokenTable | null> {
      const { nspam, nham } = await totals.get(tenantId, () => repo.totalsOf(tenantId));
      if (nspam + nham === 0) return null;
      const counts = new Map(
        (await repo.countsOf(tenantId, keys)).map((r) => [r.token, [r.spam, r.ham] as const]),
      );
      return { nspam, nham, counts: (key) => counts.get(key) };
    },
  };
  return service;
}
export type SpamLearningService = ReturnType<typeof createSpamLearningService>;
