import type { Verdict } from '@moat/contracts/quarantine';
import type { ListedMessageState } from '@moat/contracts/quarantine-admin';
import { messageListSchema, QUARANTINE_ADMIN_API } from '@moat/contracts/quarantine-admin';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

export interface QuarantineMessageFilters {
  /** Searched in subject, sender and recipient; already trimmed, undefined when empty. */
  q?: string;
  verdict?: Verdict;
  state?: ListedMessageState;
  limit: number;
  offset: number;
}

/** GET /api/v1/quarantine/messages?q&verdict&state&limit&offset: the tenant's held messages. */
export function useQuarantineMessages(filters: QuarantineMessageFilters) {
  return useListQuery(
    queryKeys.quarantine.messages,
    QUARANTINE_ADMIN_API.messages,
    messageListSchema,
    filters,
  );
}
