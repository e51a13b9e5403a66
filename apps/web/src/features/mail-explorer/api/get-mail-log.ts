import {
  MAIL_EXPLORER_API,
  type MailExplorerQuery,
  mailExplorerListSchema,
} from '@moat/contracts/mail-explorer';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** The search (already trimmed, undefined when empty), the filters and the page of the list. */
export type MailLogFilters = MailExplorerQuery & { limit: number; offset: number };

/** GET /api/v1/mail_explorer?q&verdict&action&limit&offset: every message the gateway processed (admins). */
export function getMailLog(filters: MailLogFilters, signal?: AbortSignal) {
  return apiGet(MAIL_EXPLORER_API.messages, {
    query: { ...filters },
    signal,
    schema: mailExplorerListSchema,
  });
}

export function mailLogQueryOptions(filters: MailLogFilters) {
  return queryOptions({
    queryKey: queryKeys.mailExplorer.messages({ ...filters }),
    queryFn: ({ signal }) => getMailLog(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useMailLog(filters: MailLogFilters) {
  return useQuery(mailLogQueryOptions(filters));
}
