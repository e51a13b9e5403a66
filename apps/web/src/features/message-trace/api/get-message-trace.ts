import { fillPath } from '@moat/contracts/api-paths';
import { MESSAGE_TRACE_API, messageTraceSchema } from '@moat/contracts/message-trace';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/mail_explorer/:id/trace: the timeline of a Mail Explorer row (admins). */
export function getMessageTrace(id: string, signal?: AbortSignal) {
  return apiGet(fillPath(MESSAGE_TRACE_API.byMailLog, { id }), { signal, schema: messageTraceSchema });
}

export function messageTraceQueryOptions(id: string) {
  return queryOptions({
    queryKey: queryKeys.trace.byMailLog(id),
    queryFn: ({ signal }) => getMessageTrace(id, signal),
  });
}

export function useMessageTrace(id: string | null) {
  return useQuery({ ...messageTraceQueryOptions(id ?? ''), enabled: id !== null });
}
