import { z } from 'zod';
import { RESTORE_STATUSES } from './quarantine.ts';

/**
 * What the web needs of the quarantine admin API beyond `quarantine-admin.ts`: the answers the
 * API declares inline (approve, decline, release) and the page size of its lists. Added by the web.
 */

/** POST /api/v1/restore_requests/{id}/approve|decline */
export const restoreDecisionResponseSchema = z.object({ status: z.enum(RESTORE_STATUSES) });

/** POST /api/v1/quarantine/messages/{id}/release */
export const releaseResponseSchema = z.object({ status: z.literal('restored') });
export const retryResponseSchema = z.object({ status: z.literal('requeued') });
export const deleteResponseSchema = z.object({ status: z.literal('deleted') });

/** Rows per page of the admin lists (the API allows up to 200). */
export const QUARANTINE_PAGE_SIZE = 25;

/** States a held message can be listed in (the `state` filter of GET /api/v1/quarantine/messages). */
export const LISTED_MESSAGE_STATES = ['quarantined', 'attachments_removed', 'restored'] as const;
export type ListedMessageState = (typeof LISTED_MESSAGE_STATES)[number];
