import {
  DMARC_API,
  type DmarcAlertSettings,
  type DnsChangesQuery,
  dmarcAlertSettingsSchema,
  dmarcAlertsResponseSchema,
  dnsChangesResponseSchema,
  dnsCheckResultSchema,
} from '@moat/contracts/dmarc';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost, apiPut } from '../../../lib/http';
import { queryKeys, setFilters } from '../../../lib/query-keys';

/** GET /api/v1/dmarc/dns-changes: the domains' records as last polled and their change log (admins). */
export function dnsChangesQueryOptions(query: DnsChangesQuery) {
  const filters = setFilters(query);
  return queryOptions({
    queryKey: queryKeys.dmarc.dnsChanges(filters),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.dnsChanges, { query: filters, signal, schema: dnsChangesResponseSchema }),
    placeholderData: keepPreviousData,
  });
}

export function useDnsChanges(query: DnsChangesQuery) {
  return useQuery(dnsChangesQueryOptions(query));
}

/** The same answer's change log, as the list component reads a page. */
export function useDnsChangeLog(query: DnsChangesQuery) {
  return useQuery({ ...dnsChangesQueryOptions(query), select: (d) => d.changes });
}

/** GET /api/v1/dmarc/alerts: the recent DMARC alerts, and whether the admins get them by email. */
export function useDmarcAlerts() {
  return useQuery({
    queryKey: queryKeys.dmarc.alerts(),
    queryFn: ({ signal }) => apiGet(DMARC_API.alerts, { signal, schema: dmarcAlertsResponseSchema }),
  });
}

/** POST /api/v1/dmarc/dns-changes/check: poll every domain's records now ("Check now"). */
export function useCheckDns() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => apiPost(DMARC_API.dnsCheck, undefined, { schema: dnsCheckResultSchema }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['dmarc', 'dns-changes'] }),
        client.invalidateQueries({ queryKey: queryKeys.dmarc.alerts() }),
      ]),
  });
}

/** PUT /api/v1/dmarc/alerts/settings: whether the DMARC alerts are emailed. */
export function useSaveDmarcAlertSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: DmarcAlertSettings) =>
      apiPut(DMARC_API.alertSettings, settings, { schema: dmarcAlertSettingsSchema }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.dmarc.alerts() }),
  });
}
