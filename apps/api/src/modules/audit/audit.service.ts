import {
  AUDIT_ACTOR_TYPES,
  AUDIT_CSV_HEADER,
  type AuditActorType,
  type AuditEntry,
  type AuditListResponse,
  type auditQuerySchema,
} from '@moat/contracts/audit';
import { CSV_EXPORT_MAX_ROWS } from '@moat/contracts/list';
import type { z } from 'zod';
import { type CsvColumn, toCsv } from '../../lib/csv.ts';
import type { AuditFilter, AuditRepo, AuditRow } from './audit.repo.ts';

type Query = z.output<typeof auditQuerySchema>;

const CSV_COLUMNS: CsvColumn<AuditEntry>[] = AUDIT_CSV_HEADER.map((header) => ({
  header,
  value: (e: AuditEntry) => (header === 'details' ? JSON.stringify(e.details) : e[header]),
}));

/** Whose log is read: an admin reads the whole tenant's, anyone else only their own actions. */
export interface AuditReader {
  tenantId: string;
  userId: string;
  role: string;
}

function filterOf(reader: AuditReader, query: Query): AuditFilter {
  return {
    actorUserId: reader.role === 'admin' ? undefined : reader.userId,
    q: query.q,
    actor: query.actor,
    actorType: query.actor_type,
    action: query.action,
    target: query.target,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
  };
}

function entryOf(r: AuditRow): AuditEntry {
  const actorType = (AUDIT_ACTOR_TYPES as readonly string[]).includes(r.actorType)
    ? (r.actorType as AuditActorType)
    : 'system';
  return {
    id: String(r.id),
    created_at: r.createdAt.toISOString(),
    actor_type: actorType,
    actor: r.actorEmail ?? actorType,
    action: r.action,
    target_type: r.targetType,
    target_id: r.targetId,
    ip: r.ip,
    details: r.details,
  };
}

/** System Logs: the tenant's audit log (an admin's) or one's own actions (anyone else's), read-only. */
export function createAuditService(deps: { repo: Pick<AuditRepo, 'page'> }) {
  return {
    async list(reader: AuditReader, query: Query): Promise<AuditListResponse> {
      const { total, rows } = await deps.repo.page(reader.tenantId, filterOf(reader, query), query);
      return { total, items: rows.map(entryOf) };
    },

    async exportCsv(reader: AuditReader, query: Query): Promise<string> {
      const { rows } = await deps.repo.page(reader.tenantId, filterOf(reader, query), {
        ...query,
        limit: CSV_EXPORT_MAX_ROWS,
        offset: 0,
      });
      return toCsv(CSV_COLUMNS, rows.map(entryOf));
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
