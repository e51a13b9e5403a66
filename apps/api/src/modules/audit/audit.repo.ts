import type { DbOrTx } from '../../db/client.ts';
import { auditLog } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';

export interface AuditEvent {
  tenantId: string | null;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/** The audit log only grows: there is deliberately no update or delete here (and the database forbids them). */
export function createAuditRepo(db: DbOrTx) {
  return {
    async record(actor: Actor, event: AuditEvent, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(auditLog).values({
        tenantId: event.tenantId,
        actorType: actor.type,
        actorUserId: actor.userId ?? null,
        actorEmail: actor.email ?? null,
        ip: actor.ip ?? null,
        action: event.action,
        targetType: event.targetType ?? null,
        targetId: event.targetId ?? null,
        details: event.details ?? {},
      });
    },
  };
}
export type AuditRepo = ReturnType<typeof createAuditRepo>;
