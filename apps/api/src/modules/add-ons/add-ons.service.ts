import {
  ADD_ON_IDS,
  ADD_ON_TOOL,
  type AddOn,
  type AddOnId,
  type AddOns,
  addOnInEdition,
  BUILT_IN_ADD_ONS,
} from '@moat/contracts/add-ons';
import type { SecurityTool } from '@moat/contracts/deployment';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { addOnRequestEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { AddOnsRepo } from './add-ons.repo.ts';

/** A tenant asks the provider for the same add-on at most once a day (the page says when it did). */
const REQUEST_INTERVAL_MS = 24 * 60 * 60 * 1000;

/**
 * The Add-ons Store (issue 33). An add-on whose module this edition ships (its security tool is
 * one of `available`) is turned on here, audited, like a switch of Security Engines. Any other is
 * said to be outside this edition and offers a request to the provider: stored, audited and
 * emailed to the provider's support address, as the licence banner's "Contact us" is.
 */
export function createAddOnsService(deps: {
  repo: AddOnsRepo;
  tenants: Pick<TenantsRepo, 'setAppState'>;
  audit: Pick<AuditRepo, 'record'>;
  mailer: Pick<Mailer, 'send' | 'deliverStored'>;
  clock: Clock;
  /** Where requests are mailed; null: they are only recorded (and the console says so). */
  supportEmail: string | null;
  /** The security tools this edition runs (AVAILABLE_SECURITY_TOOLS). */
  available: readonly SecurityTool[];
}) {
  const { repo } = deps;

  async function list(tenantId: string): Promise<AddOns> {
    const [requests, enabled] = await Promise.all([repo.lastRequests(tenantId), repo.enabledTools(tenantId)]);
    return {
      provider_reachable: deps.supportEmail !== null,
      items: ADD_ON_IDS.map((id): AddOn => {
        const inEdition = addOnInEdition(id, deps.available);
        const tool = ADD_ON_TOOL[id];
        const last = requests.get(id);
        return {
          id,
          in_edition: inEdition,
          active: BUILT_IN_ADD_ONS.includes(id) || (inEdition && tool !== null && enabled.has(tool)),
          last_request: last ? { at: last.at.toISOString(), by: last.by } : null,
        };
      }),
    };
  }

  return {
    list,

    async activate(tenantId: string, id: AddOnId, actor: Actor): Promise<AddOns> {
      // Built in and on for everyone: nothing to turn on.
      if (BUILT_IN_ADD_ONS.includes(id)) return list(tenantId);
      const tool = ADD_ON_TOOL[id];
      if (!addOnInEdition(id, deps.available) || tool === null) {
        throw new AppError('conflict', 'This add-on is not part of this edition: ask your provider for it');
      }
      await repo.transaction(async (tx) => {
        await deps.tenants.setAppState(tenantId, { kind: 'security_tool', name: tool, state: 'enabled' }, tx);
        await deps.audit.record(
          actor,
          { tenantId, action: 'add_on.activate', targetType: 'add_on', targetId: id, details: { tool } },
          tx,
        );
      });
      return list(tenantId);
    },

    async request(tenant: TenantRow, user: UserRow, id: AddOnId, message: string, actor: Actor) {
      if (BUILT_IN_ADD_ONS.includes(id))
        throw new AppError(
          'conflict',
          'This add-on is part of this edition and already on: there is nothing to ask for',
        );
      const now = deps.clock.now();
      const last = (await repo.lastRequests(tenant.id)).get(id);
      if (last && now.getTime() - last.at.getTime() < REQUEST_INTERVAL_MS) {
        throw new AppError('conflict', 'Your provider was asked for this add-on less than a day ago');
      }
      const outbox = await repo.transaction(async (tx) => {
        await repo.insertRequest(
          { tenantId: tenant.id, addOn: id, userId: user.id, email: user.email, message, at: now },
          tx,
        );
        await deps.audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: 'add_on.requested',
            targetType: 'add_on',
            targetId: id,
            details: { in_edition: addOnInEdition(id, deps.available), ...(message ? { message } : {}) },
          },
          tx,
        );
        if (!deps.supportEmail) return null;
        return deps.mailer.send(
          {
            tenantId: tenant.id,
            kind: 'add_on_request',
            to: deps.supportEmail,
            ...addOnRequestEmail(mailBrand(tenant), { tenantName: tenant.name, user, addOn: id, message }),
          },
          tx,
        );
      });
      if (outbox) deps.mailer.deliverStored(outbox);
      return list(tenant.id);
    },
  };
}
export type AddOnsService = ReturnType<typeof createAddOnsService>;
