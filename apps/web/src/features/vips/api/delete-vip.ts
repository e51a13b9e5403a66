import { fillPath } from '@moat/contracts/api-paths';
import { deleteVipResultSchema, VIPS_API } from '@moat/contracts/vips';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiDelete } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** DELETE /api/v1/vips/{id}. */
export function deleteVip(id: string) {
  return apiDelete(fillPath(VIPS_API.entry, { id }), { schema: deleteVipResultSchema });
}

export function useDeleteVip() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteVip,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.vips.list() }),
  });
}
