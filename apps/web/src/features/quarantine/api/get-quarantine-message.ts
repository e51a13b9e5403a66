import { messageDetailSchema, QUARANTINE_ADMIN_API } from '@moat/contracts/quarantine-admin';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/**
 * GET /api/v1/quarantine/messages/{id}: headers, the body as plain text (never HTML), links as
 * text, attachments with their SHA-256.
 */
export function getQuarantineMessage(id: string, signal?: AbortSignal) {
  return apiGet(QUARANTINE_ADMIN_API.message(id), { signal, schema: messageDetailSchema });
}

export function quarantineMessageQueryOptions(id: string) {
  return queryOptions({
    queryKey: queryKeys.quarantine.message(id),
    queryFn: ({ signal }) => getQuarantineMessage(id, signal),
  });
}

export function useQuarantineMessage(id: string) {
  return useQuery(quarantineMessageQueryOptions(id));
}
