import {
  type ModifiedAttachmentsQuery,
  modifiedAttachmentsListSchema,
  USER_INTERACTION_API,
} from '@moat/contracts/phishing-reports';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

export type AttachmentFilters = ModifiedAttachmentsQuery & { limit: number; offset: number };

/** GET /api/v1/modified_attachments?q&state&from&to&sort&dir&limit&offset (admins). */
export function useModifiedAttachments(filters: AttachmentFilters) {
  return useListQuery(
    queryKeys.userInteraction.attachments,
    USER_INTERACTION_API.modifiedAttachments,
    modifiedAttachmentsListSchema,
    filters,
  );
}
