import { AUDIT_API, type AuditQuery, auditListSchema } from '@moat/contracts/audit';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

export type AuditFilters = AuditQuery & { limit: number; offset: number };

/** GET /api/v1/audit_log?actor&actor_type&action&target&q&from&to&sort&dir&limit&offset (admins). */
export function useAuditLog(filters: AuditFilters) {
  return useListQuery(queryKeys.auditLog.list, AUDIT_API.entries, auditListSchema, filters);
}
