import { fillPath } from '@moat/contracts/api-paths';
import { VIPS_API, type VipBody, vipSchema } from '@moat/contracts/vips';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/vips (a new protected person) or PUT /api/v1/vips/{id} (one changed). */
export function saveVip({ id, body }: { id: string | null; body: VipBody }) {
  return id === null
    ? apiPost(VIPS_API.entries, body, { schema: vipSchema })
    : apiPut(fillPath(VIPS_API.entry, { id }), body, { schema: vipSchema });
}

export function useSaveVip() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveVip,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.vips.list() }),
  });
}
