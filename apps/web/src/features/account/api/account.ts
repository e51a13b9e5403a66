import { successSchema } from '@moat/contracts/auth';
import {
  ACCOUNT_API,
  type ChangePasswordRequest,
  endedSessionsSchema,
  ownSessionsSchema,
} from '@moat/contracts/current-user';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiDelete, apiGet, apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/current_user/sessions: the signed-in user's open sessions. */
export const ownSessionsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.account.sessions(),
    queryFn: ({ signal }) => apiGet(ACCOUNT_API.sessions, { schema: ownSessionsSchema, signal }),
  });

/** The mutations of My account; each refreshes the list of sessions (a password change ends the others). */
function useAccountMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.account.sessions() }),
  });
}

/** POST /api/v1/current_user/password. */
export const useChangePassword = () =>
  useAccountMutation((body: ChangePasswordRequest) =>
    apiPost(ACCOUNT_API.password, body, { schema: successSchema }),
  );

/** DELETE /api/v1/current_user/sessions/{id}. */
export const useEndSession = () =>
  useAccountMutation((id: string) =>
    apiDelete(ACCOUNT_API.session.replace(':id', encodeURIComponent(id)), { schema: endedSessionsSchema }),
  );

/** POST /api/v1/current_user/sessions/end_others. */
export const useEndOtherSessions = () =>
  useAccountMutation(() => apiPost(ACCOUNT_API.endOtherSessions, {}, { schema: endedSessionsSchema }));
