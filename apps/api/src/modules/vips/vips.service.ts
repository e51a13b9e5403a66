import { checkVip, VIPS_MAX, type Vip, type VipListResponse, type vipBodySchema } from '@moat/contracts/vips';
import type { z } from 'zod';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { VipRow, VipsRepo } from './vips.repo.ts';

type Body = z.output<typeof vipBodySchema>;

function vipOf(r: VipRow): Vip {
  return {
    id: r.id,
    name: r.name,
    emails: r.emails,
    created_by: r.createdBy,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** The body checked and normalised, or a 400 naming every bad field (`body.name`, `body.emails.1`). */
function checked(body: Body): { name: string; emails: string[] } {
  const result = checkVip(body);
  if (!result.ok) {
    throw badRequest(
      result.errors.map((e) => e.message).join('; '),
      result.errors.map((e) => ({ ...e, field: `body.${e.field}` })),
    );
  }
  return { name: result.name, emails: result.emails };
}

const taken = (name: string) => new AppError('conflict', `${name} is on the list already`);

/**
 * Protected people (VIPs): the names of a tenant the anti-phishing engine watches for in the
 * display name of mail from outside. Every write is audited; the gateway's per-node caches forget
 * the VIPs at every write (this node at once, the others by the table's change notice, 0031).
 */
export function createVipsService(deps: {
  repo: Pick<VipsRepo, 'list' | 'countOf' | 'nameTaken' | 'insert' | 'update' | 'remove'>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  /** Tell this node's caches at once (the database's notice reaches the other nodes). */
  forget: () => void;
}) {
  const { repo, audit, clock, forget } = deps;
  const createdByOf = (actor: Actor) => (actor.type === 'cli' ? 'cli' : (actor.email ?? actor.type));

  return {
    async list(tenantId: string): Promise<VipListResponse> {
      const rows = await repo.list(tenantId);
      return { items: rows.map(vipOf), total: rows.length, max: VIPS_MAX };
    },

    async create(tenantId: string, body: Body, actor: Actor): Promise<Vip> {
      const vip = checked(body);
      if ((await repo.countOf(tenantId)) >= VIPS_MAX) {
        throw new AppError(
          'conflict',
          `At most ${VIPS_MAX} protected people per organisation: remove someone first`,
        );
      }
      if (await repo.nameTaken(tenantId, vip.name)) throw taken(vip.name);
      const row = await repo.insert(tenantId, { ...vip, createdBy: createdByOf(actor) });
      if (!row) throw taken(vip.name);
      forget();
      await audit.record(actor, {
        tenantId,
        action: 'vip.create',
        targetType: 'vip',
        targetId: row.id,
        details: { name: row.name, emails: row.emails },
      });
      return vipOf(row);
    },

    async update(tenantId: string, id: string, body: Body, actor: Actor): Promise<Vip> {
      const vip = checked(body);
      const result = await repo.update(tenantId, id, vip, clock.now());
      if (result === null) throw notFound('No such protected person');
      if (result === 'taken') throw taken(vip.name);
      const { before, after } = result;
      forget();
      await audit.record(actor, {
        tenantId,
        action: 'vip.update',
        targetType: 'vip',
        targetId: id,
        details: {
          before: { name: before.name, emails: before.emails },
          after: { name: after.name, emails: after.emails },
        },
      });
      return vipOf(after);
    },

    async remove(tenantId: string, id: string, actor: Actor): Promise<void> {
      const row = await repo.remove(tenantId, id);
      if (!row) throw notFound('No such protected person');
      forget();
      await audit.record(actor, {
        tenantId,
        action: 'vip.delete',
        targetType: 'vip',
        targetId: id,
        details: { name: row.name, emails: row.emails },
      });
    },
  };
}
export type VipsService = ReturnType<typeof createVipsService>;
