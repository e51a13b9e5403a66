import { CONSOLE_API, licenceSeatsResponseSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const licenceSeatsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.licenceSeats(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.licenceSeats, { schema: licenceSeatsResponseSchema, signal }),
    staleTime: 5 * 60_000,
  });
