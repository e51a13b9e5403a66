import { CONSOLE_API, serviceStatusSchema, systemTasksSchema } from '@moat/contracts/console';
import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** Both pages show live state: read again every 30 s while open. */
const REFRESH_MS = 30_000;

export const useServiceStatus = () =>
  useQuery({
    queryKey: queryKeys.serviceStatus(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.serviceStatus, { schema: serviceStatusSchema, signal }),
    refetchInterval: REFRESH_MS,
  });

export const useSystemTasks = () =>
  useQuery({
    queryKey: queryKeys.systemTasks(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.systemTasks, { schema: systemTasksSchema, signal }),
    refetchInterval: REFRESH_MS,
  });
