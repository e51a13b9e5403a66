import { z } from 'zod/mini';

/**
 * Teaching the anti-spam engine (issue 13): an admin marks a message as spam or not spam from
 * Mail Explorer, the quarantine or the message trace.
 */
export const SPAM_LEARNING_API = {
  byMailLog: '/api/v1/mail_explorer/:id/learn',
  byHeld: '/api/v1/quarantine/messages/:id/learn',
} as const;

export const SPAM_LABELS = ['spam', 'ham'] as const;
export type SpamLabel = (typeof SPAM_LABELS)[number];

export const learnParamsSchema = z.object({ id: z.uuid() });
export const learnBodySchema = z.object({ label: z.enum(SPAM_LABELS) });
export type LearnBody = z.infer<typeof learnBodySchema>;

export const learnResultSchema = z
  .object({
    label: z.enum(SPAM_LABELS),
    /** learned: new; relearned: it had been learned the other way; already: nothing changed. */
    outcome: z.enum(['learned', 'relearned', 'already']),
  })
  .register(z.globalRegistry, { id: 'LearnResult' });
export type LearnResult = z.infer<typeof learnResultSchema>;
