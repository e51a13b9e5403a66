import { useQuery } from '@tanstack/react-query';
import { isAdminOnlyPath } from '../navigation/admin-only';
import { currentUserQueryOptions } from './api/get-current-user';

/**
 * Whether the signed-in user may open a console page (a path, query allowed): a link to an
 * admin-only page is not offered to anyone else, who would land on the no-access page.
 */
export function useCanOpen(): (to: string) => boolean {
  const role = useQuery(currentUserQueryOptions()).data?.role;
  return (to) => role === 'admin' || !isAdminOnlyPath(to.split(/[?#]/, 1)[0] ?? '');
}
