import { useQuery } from '@tanstack/react-query';
import { isAdminViewPath } from '../navigation/admin-only';
import { currentUserQueryOptions } from './api/get-current-user';

/**
 * Whether a link to a console page (a path, query allowed) is offered to the signed-in user: not
 * to an admin-only page (anyone else would land on the no-access page), nor to an admin's view of
 * Quarantined Items (anyone else sees only their own mail there).
 */
export function useCanOpen(): (to: string) => boolean {
  const role = useQuery(currentUserQueryOptions()).data?.role;
  return (to) => role === 'admin' || !isAdminViewPath(to.split(/[?#]/, 1)[0] ?? '');
}
