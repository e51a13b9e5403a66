import type { Verdict } from '@moat/contracts/quarantine';
import type { ListedMessageState } from '@moat/contracts/quarantine-admin';
import { messageListSchema, QUARANTINE_ADMIN_API } from '@moat/contracts/quarantine-admin';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

export interface QuarantineMessageFilters {
  /** Searched in subject, sender and recipient; already trimmed, undefined when empty. */
  q?: string;
  verdict?: Verdict;
  state?: ListedMessageState;
  limit: number;
  offset: number;
}

/** GET /api/v1/quarantine/messages?q&verdict&state&limit&offset: the tenant's held messages. */
export function getQuarantineMessages(filters: QuarantineMessageFilters, signal?: AbortSignal) {
  return apiGet(QUARANTINE_ADMIN_API.messages, { query: { ...filters }, signal, schema: messageListSchema });
}

export function quarantineMessagesQueryOptions(filters: QuarantineMessageFilters) {
  return queryOptions({
    queryKey: queryKeys.quarantine.messages({ ...filters }),
    queryFn: ({ signal }) => getQuarantineMessages(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useQuarantineMessages(filters: QuarantineMessageFilters) {
  return useQuery(quarantineMessagesQueryOptions(filters));
}
