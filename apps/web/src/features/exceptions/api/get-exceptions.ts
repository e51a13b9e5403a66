import { EXCEPTIONS_API, type ExceptionQuery, exceptionListSchema } from '@moat/contracts/exceptions';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

export type ExceptionFilters = ExceptionQuery & { limit: number; offset: number };

/** GET /api/v1/exceptions?list&kind&scope&include_expired&q&sort&dir&limit&offset (admins). */
export function useExceptions(filters: ExceptionFilters) {
  return useListQuery(queryKeys.exceptions.list, EXCEPTIONS_API.entries, exceptionListSchema, filters);
}
