import {
  type ModifiedAttachmentsQuery,
  modifiedAttachmentsListSchema,
  USER_INTERACTION_API,
} from '@moat/contracts/phishing-reports';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

export type AttachmentFilters = ModifiedAttachmentsQuery & { limit: number; offset: number };

/** GET /api/v1/modified_attachments?q&state&from&to&sort&dir&limit&offset (admins). */
export function getModifiedAttachments(filters: AttachmentFilters, signal?: AbortSignal) {
  return apiGet(USER_INTERACTION_API.modifiedAttachments, {
    query: { ...filters },
    signal,
    schema: modifiedAttachmentsListSchema,
  });
}

export function modifiedAttachmentsQueryOptions(filters: AttachmentFilters) {
  return queryOptions({
    queryKey: queryKeys.userInteraction.attachments({ ...filters }),
    queryFn: ({ signal }) => getModifiedAttachments(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useModifiedAttachments(filters: AttachmentFilters) {
  return useQuery(modifiedAttachmentsQueryOptions(filters));
}
