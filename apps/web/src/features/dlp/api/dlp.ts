import { fillPath } from '@moat/contracts/api-paths';
import {
  DLP_API,
  type DlpCustomRuleInput,
  type DlpDataType,
  type DlpDataTypeUpdate,
  dlpCustomRuleSchema,
  dlpDataTypeSettingSchema,
  dlpSettingsSchema,
  dlpTestResultSchema,
} from '@moat/contracts/dlp';
import {
  OUTBOUND_API,
  type OutboundHeldStatus,
  outboundHeldListSchema,
  outboundHeldSchema,
} from '@moat/contracts/outbound';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { apiDelete, apiGet, apiPost, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/dlp/data-types: every data type's settings and the custom rules. */
export const dlpSettingsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.dlp.settings(),
    queryFn: ({ signal }) => apiGet(DLP_API.dataTypes, { signal, schema: dlpSettingsSchema }),
  });

function useSettingsMutation<V, R>(mutationFn: (vars: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.dlp.settings() }),
  });
}

/** PUT one data type's settings. */
export const useUpdateDataType = () =>
  useSettingsMutation(({ type, update }: { type: DlpDataType; update: DlpDataTypeUpdate }) =>
    apiPut(fillPath(DLP_API.dataType, { type }), update, { schema: dlpDataTypeSettingSchema }),
  );

/** POST a new custom rule, or PUT an existing one (`id`). */
export const useSaveRule = () =>
  useSettingsMutation(({ id, input }: { id: string | null; input: DlpCustomRuleInput }) =>
    id
      ? apiPut(fillPath(DLP_API.customRule, { id }), input, { schema: dlpCustomRuleSchema })
      : apiPost(DLP_API.customRules, input, { schema: dlpCustomRuleSchema }),
  );

export const useDeleteRule = () =>
  useSettingsMutation((id: string) =>
    apiDelete(fillPath(DLP_API.customRule, { id }), { schema: z.object({ id: z.string() }) }),
  );

/** POST a text: what the rules find, masked (nothing stored). */
export const useTestDlp = () =>
  useMutation({
    mutationFn: (text: string) => apiPost(DLP_API.test, { text }, { schema: dlpTestResultSchema }),
  });

/** GET held outbound mail (newest first). */
export const heldQueryOptions = (status: OutboundHeldStatus | 'all') =>
  queryOptions({
    queryKey: queryKeys.outbound.held(status),
    queryFn: ({ signal }) =>
      apiGet(OUTBOUND_API.held, {
        signal,
        query: { status: status === 'all' ? undefined : status, limit: 100 },
        schema: outboundHeldListSchema,
      }),
  });

/** POST release or decline of held outbound mail. */
export function useDecideHeld() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision }: { id: string; decision: 'release' | 'decline' }) =>
      apiPost(fillPath(OUTBOUND_API[decision], { id }), undefined, { schema: outboundHeldSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['outbound', 'held'] }),
  });
}
