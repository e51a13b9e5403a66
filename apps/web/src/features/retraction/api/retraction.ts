import {
  type ConnectionBody,
  connectionSchema,
  connectionTestResultSchema,
  type DeliveredSearch,
  previewSchema,
  RETRACTION_API,
  type RetractionVerdict,
  retractionListSchema,
  retractionStartedSchema,
} from '@moat/contracts/retraction';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost, apiPut } from '../../../lib/http';

/** Retraction's query keys (one feature, one prefix). */
const keys = {
  connection: () => ['retraction', 'connection'] as const,
  list: () => ['retraction', 'list'] as const,
};

/** GET /api/v1/retraction/connection: the organisation's mailbox connection (never its password). */
export function connectionQueryOptions() {
  return queryOptions({
    queryKey: keys.connection(),
    queryFn: ({ signal }) => apiGet(RETRACTION_API.connection, { signal, schema: connectionSchema }),
  });
}

export function useSaveConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ConnectionBody) =>
      apiPut(RETRACTION_API.connection, body, { schema: connectionSchema }),
    onSuccess: (saved) => queryClient.setQueryData(keys.connection(), saved),
  });
}

export function useTestConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (mailbox: string) =>
      apiPost(RETRACTION_API.connectionTest, mailbox ? { mailbox } : {}, {
        schema: connectionTestResultSchema,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.connection() }),
  });
}

/** GET /api/v1/retractions: the latest retractions; refreshed while one is under way. */
export function useRetractions() {
  return useQuery({
    queryKey: keys.list(),
    queryFn: ({ signal }) => apiGet(RETRACTION_API.retractions, { signal, schema: retractionListSchema }),
    refetchInterval: (query) =>
      query.state.data?.items.some((r) => r.status === 'queued' || r.status === 'running') ? 2_000 : false,
  });
}

export function usePreview() {
  return useMutation({
    mutationFn: (search: DeliveredSearch) =>
      apiPost(RETRACTION_API.preview, search, { schema: previewSchema }),
  });
}

export function useBulkRetract() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { search: DeliveredSearch; expected: number; verdict: RetractionVerdict }) =>
      apiPost(RETRACTION_API.bulk, body, { schema: retractionStartedSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.list() }),
  });
}

/** POST /api/v1/retractions: every delivered copy of one Mail Explorer row's message. */
export function useRetractMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { mail_log_id: string; verdict: RetractionVerdict }) =>
      apiPost(RETRACTION_API.retractions, body, { schema: retractionStartedSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.list() }),
  });
}
