import type { MyMessage, MyMessageDetail } from '@moat/contracts/my-quarantine';
import type { RestoreStatus, Verdict } from '@moat/contracts/quarantine';
import type { MessageSummary } from '@moat/contracts/quarantine-admin';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { PublicActionsService } from '../public-actions/public-actions.service.ts';
import type { QuarantineAdminService } from '../quarantine-admin/quarantine-admin.service.ts';
import type { TenantSettings } from '../tenants/tenant-settings.ts';
import type { UserRow } from '../users/users.repo.ts';

/**
 * A signed-in user's own quarantine (issue 12, SPEC §6): only messages held for their own
 * address; their session proves they are the recipient, so no code is asked. A restore does
 * what the recipient's link would: release at once, or a request the admins decide.
 */
export function createMyQuarantineService(deps: {
  quarantine: Pick<QuarantineAdminService, 'listMessages' | 'message'>;
  publicActions: Pick<PublicActionsService, 'live' | 'statusOf' | 'policyOf' | 'restoreFor'>;
  settings: Pick<TenantSettings, 'restorePolicy'>;
  /** Whose a message is, and its link id (by which the recipients' restore finds it). */
  ownerOf: (
    tenantId: string,
    id: string,
  ) => Promise<{ publicId: string; recipient: string; state: string } | null>;
}) {
  async function withRestore<M extends MessageSummary>(user: UserRow, m: M) {
    const policy = await deps.settings.restorePolicy(user.tenantId, m.verdict as Verdict);
    const status: RestoreStatus = await deps.publicActions.statusOf(m, 'email');
    return { ...m, restore: { mode: policy.mode, status } };
  }

  /** One of the user's messages (the tenant's and addressed to them), else 404: no one else's is found. */
  async function own(user: UserRow, id: string) {
    // Whose it is first: nobody else's message is even read.
    const owner = await deps.ownerOf(user.tenantId, id);
    if (!owner || owner.recipient !== user.email || owner.state === 'deleted') {
      throw new AppError('not_found', 'No such message of yours');
    }
    const m = await deps.quarantine.message(user.tenantId, id);
    return { ...(await withRestore(user, m)), publicId: owner.publicId };
  }

  const trim = <M extends MyMessage>(m: M): MyMessage => ({
    id: m.id,
    sender: m.sender,
    sender_name: m.sender_name,
    subject: m.subject,
    received_at: m.received_at,
    verdict: m.verdict,
    reasons: m.reasons,
    state: m.state,
    attachments: m.attachments,
    restore: m.restore,
  });

  return {
    async list(user: UserRow, query: { q?: string; limit: number; offset: number }) {
      const { items, total } = await deps.quarantine.listMessages(user.tenantId, {
        ...query,
        recipient: user.email,
      });
      return { total, items: await Promise.all(items.map(async (m) => trim(await withRestore(user, m)))) };
    },

    async message(user: UserRow, id: string): Promise<MyMessageDetail> {
      const m = await own(user, id);
      return { ...trim(m), headers: m.headers, body_text: m.body_text, links: m.links };
    },

    async restore(user: UserRow, id: string, commentary: string, actor: Actor) {
      const held = await own(user, id);
      const m = await deps.publicActions.live(held.saas_type, held.publicId);
      if (!m) throw new AppError('not_found', 'No such message of yours');
      const policy = await deps.publicActions.policyOf(m);
      if (policy.mode === 'none') {
        throw new AppError('method_not_allowed', 'This message can not be restored. Please contact support');
      }
      return deps.publicActions.restoreFor(m, policy, 'email', commentary, { by: user.id, actor });
    },
  };
}
export type MyQuarantineService = ReturnType<typeof createMyQuarantineService>;
