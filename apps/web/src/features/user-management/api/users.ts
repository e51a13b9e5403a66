import {
  type InviteUserBody,
  type ManagedUser,
  managedUserSchema,
  type UpdateUserBody,
  USERS_API,
  type UserQuery,
  userListSchema,
} from '@moat/contracts/users';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPatch, apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

export type UserFilters = UserQuery & { limit: number; offset: number };

/** GET /api/v1/users?q&role&status&sort&dir&limit&offset (admins). */
export function useUsers(filters: UserFilters) {
  return useListQuery(queryKeys.users.list, USERS_API.users, userListSchema, filters);
}

const at = (path: string, id: string) => path.replace(':id', encodeURIComponent(id));

/** Every change answers the user as stored; the list is read again. */
function useUserMutation<I>(call: (input: I) => Promise<ManagedUser>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.users.all() }),
  });
}

export const useInviteUser = () =>
  useUserMutation((body: InviteUserBody) => apiPost(USERS_API.users, body, { schema: managedUserSchema }));

export const useUpdateUser = () =>
  useUserMutation(({ id, body }: { id: string; body: UpdateUserBody }) =>
    apiPatch(at(USERS_API.user, id), body, { schema: managedUserSchema }),
  );

export const useResendInvite = () =>
  useUserMutation((id: string) => apiPost(at(USERS_API.resendInvite, id), {}, { schema: managedUserSchema }));

export const useResetMfa = () =>
  useUserMutation((id: string) => apiPost(at(USERS_API.resetMfa, id), {}, { schema: managedUserSchema }));
