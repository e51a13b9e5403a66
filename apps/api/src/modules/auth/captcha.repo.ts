import { lt } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { captchaUsed } from '../../db/schema.ts';

/** The nonces of solved captcha challenges, so each counts once (captcha.ts). */
export function createCaptchaRepo(db: DbOrTx) {
  return {
    /** Record a nonce as used until `expiresAt`: false when it was used already. */
    async markUsed(nonce: string, expiresAt: Date, tx?: DbOrTx): Promise<boolean> {
      const inserted = await (tx ?? db)
        .insert(captchaUsed)
        .values({ nonce, expiresAt })
        .onConflictDoNothing()
        .returning({ nonce: captchaUsed.nonce });
      return inserted.length === 1;
    },

    /** Forget the nonces whose challenges expired before `now` (they can no longer be replayed). */
    async forgetExpired(now: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).delete(captchaUsed).where(lt(captchaUsed.expiresAt, now));
    },
  };
}
export type CaptchaRepo = ReturnType<typeof createCaptchaRepo>;
