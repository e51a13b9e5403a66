import { z } from 'zod/mini';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder, textFilterParam } from './list.ts';

/**
 * System Settings → System Logs (issue 12): the tenant's audit log — who did what to what, when
 * and from where — for admins. The log only grows; nothing here changes it.
 */
export const AUDIT_API = {
  entries: '/api/v1/audit_log',
  /** The list as CSV (its filters and sort). */
  export: '/api/v1/audit_log/export',
} as const;

export const AUDIT_SORTS = ['created_at', 'action', 'actor'] as const;
export type AuditSort = (typeof AUDIT_SORTS)[number];

/** Who acted: a signed-in user, Moat itself, an operator's command, or someone not signed in. */
export const AUDIT_ACTOR_TYPES = ['user', 'system', 'cli', 'anonymous'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export const auditQuerySchema = z
  .extend(listQuerySchema(AUDIT_SORTS, 'created_at'), {
    /** Part of the actor's address (or `cli`, `system`). */
    actor: textFilterParam,
    actor_type: z.optional(z.enum(AUDIT_ACTOR_TYPES)),
    /** An action or the start of one: `user.` lists every change to users. */
    action: textFilterParam,
    /** Part of the target's kind or id. */
    target: textFilterParam,
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type AuditQuery = z.input<typeof auditQuerySchema>;

export const auditEntrySchema = z.object({
  id: z.string(),
  created_at: z.string(),
  actor_type: z.enum(AUDIT_ACTOR_TYPES),
  /** The actor's address, or `cli`, `system`, `anonymous`. */
  actor: z.string(),
  action: z.string(),
  target_type: z.nullable(z.string()),
  target_id: z.nullable(z.string()),
  ip: z.nullable(z.string()),
  /** What changed, as recorded (no secrets are ever recorded). */
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditListSchema = z
  .object({ items: z.array(auditEntrySchema), total: z.int() })
  .register(z.globalRegistry, { id: 'AuditList' });
export type AuditListResponse = z.infer<typeof auditListSchema>;

/** The CSV columns of the export, in this order. */
export const AUDIT_CSV_HEADER = [
  'created_at',
  'actor_type',
  'actor',
  'action',
  'target_type',
  'target_id',
  'ip',
  'details',
] as const;
