import {
  type AddMySenderBody,
  MY_SENDERS_MAX,
  type MySender,
  type MySenderListResponse,
  normalizeMySender,
  SHARED_MAIL_DOMAINS,
} from '@moat/contracts/my-senders';
import type { Db } from '../../db/client.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { isOwnDomain } from '../../lib/own-domain.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { MySenderRow, MySendersRepo } from './my-senders.repo.ts';

const entryOf = (r: MySenderRow): MySender => ({
  id: r.id,
  list: r.list,
  kind: r.kind,
  value: r.value,
  created_at: r.createdAt.toISOString(),
});

/**
 * Every signed-in user's own allow and block list of senders (issue 12, SPEC §6): each person
 * reads and changes only their own. The gateway applies it to their copy of the next message
 * (its per-node cache forgets the lists at every write: the table's change notice, migration 0024).
 * Every change is audited as the user's.
 */
export function createMySendersService(deps: {
  db: Pick<Db, 'transaction'>;
  repo: MySendersRepo;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  /** The organisation's own mail domains: not blocked as a sender (a spoofed From would hide a colleague). */
  ownDomains: (tenantId: string) => Promise<string[]>;
}) {
  const { repo, audit } = deps;

  return {
    async list(user: UserRow): Promise<MySenderListResponse> {
      const rows = await repo.listOf(user.id);
      return { items: rows.map(entryOf), total: rows.length, max: MY_SENDERS_MAX };
    },

    /**
     * Adds an address or domain to the user's allow or block list; a value already there moves
     * to the list asked for. 400 for anything but an address or a domain, 409 past MY_SENDERS_MAX.
     */
    async add(user: UserRow, body: AddMySenderBody, actor: Actor): Promise<MySender> {
      const checked = normalizeMySender(body.value);
      if (!checked.ok) {
        throw badRequest(checked.message, [{ field: 'body.value', message: checked.message }]);
      }
      if (
        body.list === 'allow' &&
        checked.kind === 'domain' &&
        (SHARED_MAIL_DOMAINS as readonly string[]).includes(checked.value)
      ) {
        const message = `Anyone can have an address at ${checked.value}: allow the person's address instead`;
        throw badRequest(message, [{ field: 'body.value', message }]);
      }
      if (body.list === 'block' && isOwnDomain(checked.value, await deps.ownDomains(user.tenantId))) {
        const message = "Your organisation's own addresses can not be blocked here";
        throw badRequest(message, [{ field: 'body.value', message }]);
      }
      return deps.db.transaction(async (tx) => {
        // One change per person at a time: two adds at once cannot pass the limit together.
        await repo.lockOwner(user.id, tx);
        const existing = await repo.find(user.id, checked.value, tx);
        if (existing?.list === body.list) return entryOf(existing);
        if (!existing && (await repo.countOf(user.id, tx)) >= MY_SENDERS_MAX) {
          throw new AppError(
            'conflict',
            `You have ${MY_SENDERS_MAX} senders on your lists, the most there can be. Remove some first.`,
          );
        }
        const row = await repo.put(
          {
            tenantId: user.tenantId,
            userId: user.id,
            list: body.list,
            kind: checked.kind,
            value: checked.value,
            createdAt: deps.clock.now(),
          },
          tx,
        );
        await audit.record(
          actor,
          {
            tenantId: user.tenantId,
            action: existing ? 'my_sender.move' : 'my_sender.add',
            targetType: 'my_sender',
            targetId: row.id,
            details: {
              list: row.list,
              kind: row.kind,
              value: row.value,
              ...(existing ? { from_list: existing.list } : {}),
            },
          },
          tx,
        );
        return entryOf(row);
      });
    },

    /** Removes one of the user's own entries; anyone else's id is answered as unknown (404). */
    async remove(user: UserRow, id: string, actor: Actor): Promise<void> {
      await deps.db.transaction(async (tx) => {
        const row = await repo.remove(user.id, id, tx);
        if (!row) throw notFound('No such sender on your lists');
        await audit.record(
          actor,
          {
            tenantId: user.tenantId,
            action: 'my_sender.delete',
            targetType: 'my_sender',
            targetId: id,
            details: { list: row.list, kind: row.kind, value: row.value },
          },
          tx,
        );
      });
    },
  };
}
export type MySendersService = ReturnType<typeof createMySendersService>;
