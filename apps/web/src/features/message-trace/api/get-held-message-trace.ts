import { fillPath } from '@moat/contracts/api-paths';
import { MESSAGE_TRACE_API, messageTraceSchema } from '@moat/contracts/message-trace';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/quarantine/messages/:id/trace: the timeline of a held message (admins). */
export function getHeldMessageTrace(id: string, signal?: AbortSignal) {
  return apiGet(fillPath(MESSAGE_TRACE_API.byHeld, { id }), { signal, schema: messageTraceSchema });
}

export function heldMessageTraceQueryOptions(id: string) {
  return queryOptions({
    queryKey: queryKeys.trace.byHeld(id),
    queryFn: ({ signal }) => getHeldMessageTrace(id, signal),
  });
}

export function useHeldMessageTrace(id: string | null) {
  return useQuery({ ...heldMessageTraceQueryOptions(id ?? ''), enabled: id !== null });
}
