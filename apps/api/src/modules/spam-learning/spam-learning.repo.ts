import { and, eq, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { quarantineMessages, spamLearnedMessages, spamThresholds } from '../../db/schema.ts';
import { DEFAULT_SPAM_THRESHOLDS, type SpamThresholds } from '../../engines/types.ts';

export type SpamLabel = 'spam' | 'ham';

/** What a tenant taught its anti-spam engine (issue 13), and its spam score thresholds. */
export function createSpamLearningRepo(db: DbOrTx) {
  return {
    async thresholdsOf(tenantId: string, tx?: DbOrTx): Promise<SpamThresholds> {
      const [row] = await (tx ?? db)
        .select({ suspicious: spamThresholds.suspicious, spam: spamThresholds.spam })
        .from(spamThresholds)
        .where(eq(spamThresholds.tenantId, tenantId));
      return row ?? DEFAULT_SPAM_THRESHOLDS;
    },

    async setThresholds(tenantId: string, value: SpamThresholds, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .insert(spamThresholds)
        .values({ tenantId, ...value })
        .onConflictDoUpdate({ target: spamThresholds.tenantId, set: { ...value, updatedAt: new Date() } });
    },

    /** How many messages the tenant taught as spam and as ham. */
    async totalsOf(tenantId: string, tx?: DbOrTx): Promise<{ nspam: number; nham: number }> {
      const rows = rowsOf<{ label: SpamLabel; n: number }>(
        await (tx ?? db).execute(
          sql`select label, count(*)::int as n from spam_learned_messages where tenant_id = ${tenantId}::uuid group by label`,
        ),
      );
      return {
        nspam: rows.find((r) => r.label === 'spam')?.n ?? 0,
        nham: rows.find((r) => r.label === 'ham')?.n ?? 0,
      };
    },

    /** The tenant's counts of these tokens (those it has seen). */
    async countsOf(tenantId: string, keys: number[], tx?: DbOrTx) {
      if (keys.length === 0) return [];
      return rowsOf<{ token: number; spam: number; ham: number }>(
        await (tx ?? db).execute(
          sql`select token, spam, ham from spam_learned_tokens
              where tenant_id = ${tenantId}::uuid and token = any(${`{${keys.join(',')}}`}::int[])`,
        ),
      );
    },

    /** The bytes of a message the tenant holds, null when it holds none by that id. */
    async heldRaw(tenantId: string, heldId: string): Promise<Buffer | null> {
      const [row] = await db
        .select({ raw: quarantineMessages.raw })
        .from(quarantineMessages)
        .where(and(eq(quarantineMessages.tenantId, tenantId), eq(quarantineMessages.id, heldId)));
      return row ? Buffer.from(row.raw) : null;
    },

    async labelOf(tenantId: string, messageKey: string): Promise<SpamLabel | null> {
      const [row] = await db
        .select({ label: spamLearnedMessages.label })
        .from(spamLearnedMessages)
        .where(
          and(eq(spamLearnedMessages.tenantId, tenantId), eq(spamLearnedMessages.messageKey, messageKey)),
        );
      return row?.label ?? null;
    },

    /** The message as it was learned, locked until the transaction ends; null: never learned. */
    async learnedFor(tenantId: string, messageKey: string, tx: DbOrTx) {
      const [row] = await tx
        .select({ label: spamLearnedMessages.label, tokens: spamLearnedMessages.tokens })
        .from(spamLearnedMessages)
        .where(
          and(eq(spamLearnedMessages.tenantId, tenantId), eq(spamLearnedMessages.messageKey, messageKey)),
        )
        .for('update');
      return row ?? null;
    },

    async recordMessage(
      row: {
        tenantId: string;
        messageKey: string;
        label: SpamLabel;
        source: string;
        learnedBy: string | null;
        tokens: number[];
      },
      tx: DbOrTx,
    ): Promise<void> {
      await tx
        .insert(spamLearnedMessages)
        .values(row)
        .onConflictDoUpdate({
          target: [spamLearnedMessages.tenantId, spamLearnedMessages.messageKey],
          set: {
            label: row.label,
            source: row.source,
            learnedBy: row.learnedBy,
            learnedAt: new Date(),
            tokens: row.tokens,
          },
        });
    },

    /** Add one message's tokens to a side (delta 1), or take them back (delta -1). */
    async addTokens(
      tenantId: string,
      keys: number[],
      label: SpamLabel,
      delta: 1 | -1,
      tx: DbOrTx,
    ): Promise<void> {
      if (keys.length === 0) return;
      const list = `{${[...new Set(keys)].join(',')}}`;
      const spam = label === 'spam' ? delta : 0;
      const ham = label === 'ham' ? delta : 0;
      await tx.execute(
        sql`insert into spam_learned_tokens (tenant_id, token, spam, ham)
            select ${tenantId}::uuid, t, greatest(${spam}::int, 0), greatest(${ham}::int, 0)
            from unnest(${list}::int[]) as t
            on conflict (tenant_id, token) do update
            set spam = greatest(spam_learned_tokens.spam + ${spam}::int, 0),
                ham = greatest(spam_learned_tokens.ham + ${ham}::int, 0)`,
      );
      if (delta < 0) {
        await tx.execute(
          sql`delete from spam_learned_tokens where tenant_id = ${tenantId}::uuid and spam = 0 and ham = 0
              and token = any(${list}::int[])`,
        );
      }
    },
  };
}
export type SpamLearningRepo = ReturnType<typeof createSpamLearningRepo>;
