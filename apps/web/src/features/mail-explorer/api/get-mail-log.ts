import {
  MAIL_EXPLORER_API,
  type MailExplorerQuery,
  mailExplorerListSchema,
} from '@moat/contracts/mail-explorer';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

/** The search (already trimmed, undefined when empty), the filters and the page of the list. */
export type MailLogFilters = MailExplorerQuery & { limit: number; offset: number };

/** GET /api/v1/mail_explorer?q&verdict&action&…&limit&offset: every message the gateway processed (admins). */
export function useMailLog(filters: MailLogFilters) {
  return useListQuery(
    queryKeys.mailExplorer.messages,
    MAIL_EXPLORER_API.messages,
    mailExplorerListSchema,
    filters,
  );
}
