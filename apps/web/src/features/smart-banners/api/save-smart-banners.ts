import { SMART_BANNERS_API, type SmartBannersInput, smartBannersSchema } from '@moat/contracts/smart-banners';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** PUT /api/v1/smart_banners: every banner at once; a delivered verdict's switch is the policy's action. */
export function useSaveSmartBanners() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SmartBannersInput) =>
      apiPut(SMART_BANNERS_API.settings, input, { schema: smartBannersSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.smartBanners.settings(), saved);
      // The switch of a delivered verdict is the Policy screen's action too.
      void queryClient.invalidateQueries({ queryKey: queryKeys.policy.current() });
    },
  });
}
