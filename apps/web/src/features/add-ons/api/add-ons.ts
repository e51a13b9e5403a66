import { ADD_ONS_API, type AddOnId, addOnsSchema } from '@moat/contracts/add-ons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/add_ons (admins; a demo deployment's users look). */
export const useAddOns = () =>
  useQuery({
    queryKey: queryKeys.addOns(),
    queryFn: ({ signal }) => apiGet(ADD_ONS_API.list, { schema: addOnsSchema, signal }),
  });

/** POST /api/v1/add_ons/{id}/activate: an add-on this edition ships, turned on (audited). */
export function useActivateAddOn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: AddOnId) => apiPost(ADD_ONS_API.activate(id), {}, { schema: addOnsSchema }),
    onSuccess: (list) => {
      queryClient.setQueryData(queryKeys.addOns(), list);
      // The navigation and the engines list follow the tenant's tools.
      void queryClient.invalidateQueries({ queryKey: queryKeys.console.apps() });
    },
  });
}

/** POST /api/v1/add_ons/{id}/request: the provider is asked (once a day), with an optional note. */
export function useRequestAddOn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, message }: { id: AddOnId; message: string }) =>
      apiPost(ADD_ONS_API.request(id), { message }, { schema: addOnsSchema }),
    onSuccess: (list) => queryClient.setQueryData(queryKeys.addOns(), list),
  });
}
