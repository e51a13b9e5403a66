import type {
  inviteUserBodySchema,
  ManagedUser,
  UserListResponse,
  updateUserBodySchema,
  userQuerySchema,
} from '@moat/contracts/users';
import { domainOfEmail } from '@moat/contracts/validation';
import type { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db, DbOrTx } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import { mfaResetEmail, userInviteEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UserRow, UsersRepo } from '../users/users.repo.ts';
import { INVITE_VALIDITY_MS, type UsersService } from '../users/users.service.ts';
import type { ListedUser, UserManagementRepo } from './user-management.repo.ts';

type Query = z.output<typeof userQuerySchema>;
type InviteBody = z.output<typeof inviteUserBodySchema>;
type UpdateBody = z.output<typeof updateUserBodySchema>;

/** The admin making a change: their user id (whose own role and state are not changed here). */
export interface Admin {
  tenantId: string;
  userId: string;
  email: string;
  actor: Actor;
}

const INVITE_DAYS = Math.round(INVITE_VALIDITY_MS / 86_400_000);

function managedOf(row: ListedUser, adminId: string): ManagedUser {
  return {
    id: row.id,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    role: row.role,
    status: row.status,
    hidden: row.hidden,
    view_policy: row.viewPolicy,
    view_edit_policy: row.viewEditPolicy,
    view_private_data: row.viewPrivateData,
    mfa_enabled: row.mfaEnabled,
    mfa_required: row.mfaRequired,
    last_sign_in_at: row.lastSignInAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    invite_expires_at: row.status === 'invited' ? (row.inviteExpiresAt?.toISOString() ?? null) : null,
    is_you: row.id === adminId,
  };
}

/**
 * User Management (issue 12): the tenant's users for its admins. Every change is audited; an
 * admin cannot change their own role or state here, and the tenant always keeps an active admin.
 */
export function createUserManagementService(deps: {
  db: Pick<Db, 'transaction'>;
  clock: Clock;
  config: Pick<Config, 'publicUrl'>;
  repo: Pick<UserManagementRepo, 'page' | 'one' | 'lockUser' | 'lockActiveAdmins'>;
  users: Pick<UsersRepo, 'update'>;
  usersService: Pick<UsersService, 'create'>;
  tenants: Pick<TenantsRepo, 'findById' | 'domainsOf'>;
  sessions: Pick<SessionsService, 'revokeAllOf'>;
  audit: Pick<AuditRepo, 'record'>;
  mailer: Pick<Mailer, 'send'>;
}) {
  const { repo, clock } = deps;

  async function tenantOf(tenantId: string): Promise<TenantRow> {
    const tenant = await deps.tenants.findById(tenantId);
    if (!tenant) throw new AppError('forbidden', 'not authenticated');
    return tenant;
  }

  async function sendInvite(tenant: TenantRow, user: Pick<UserRow, 'email'>, token: string, admin: Admin) {
    await deps.mailer.send({
      tenantId: tenant.id,
      kind: 'user_invite',
      to: user.email,
      ...userInviteEmail(mailBrand(tenant), {
        email: user.email,
        invitedBy: admin.email,
        organisation: tenant.name,
        url: `${deps.config.publicUrl}/#/auth/reset-password?token=${encodeURIComponent(token)}`,
        validDays: INVITE_DAYS,
      }),
    });
  }

  /** The user, of this tenant, locked in `tx`; 404 otherwise (another tenant's user is not found). */
  async function locked(admin: Admin, id: string, tx: DbOrTx): Promise<UserRow> {
    const user = await repo.lockUser(admin.tenantId, id, tx);
    if (!user) throw new AppError('not_found', 'No such user in your organisation');
    return user;
  }

  async function listed(admin: Admin, id: string): Promise<ManagedUser> {
    const row = await repo.one(admin.tenantId, id);
    if (!row) throw new AppError('not_found', 'No such user in your organisation');
    return managedOf(row, admin.userId);
  }

  return {
    async list(admin: Admin, query: Query): Promise<UserListResponse> {
      const { total, rows } = await repo.page(
        admin.tenantId,
        {
          q: query.q,
          role: query.role,
          status: query.status,
          from: query.from ? new Date(query.from) : undefined,
          to: query.to ? new Date(query.to) : undefined,
        },
        query,
      );
      return { total, items: rows.map((r) => managedOf(r, admin.userId)) };
    },

    /** Invite a user of one of the tenant's domains: an email with a link to choose a password. */
    async invite(admin: Admin, body: InviteBody): Promise<ManagedUser> {
      const tenant = await tenantOf(admin.tenantId);
      const domains = await deps.tenants.domainsOf(tenant.id);
      if (!domains.includes(domainOfEmail(body.email))) {
        throw new AppError(
          'validation_error',
          `Invite addresses of your organisation's domains only: ${domains.join(', ')}`,
          [{ field: 'body.email', message: 'domain_not_yours' }],
        );
      }
      const created = await deps.usersService.create(
        { email: body.email, role: body.role, firstName: body.first_name, lastName: body.last_name, tenant },
        admin.actor,
      );
      if (created.inviteToken) await sendInvite(tenant, created.user, created.inviteToken, admin);
      return listed(admin, created.user.id);
    },

    /** A new invitation link for a user who has not accepted yet; the old link stops working. */
    async resendInvite(admin: Admin, id: string): Promise<ManagedUser> {
      const tenant = await tenantOf(admin.tenantId);
      const token = newToken();
      const user = await deps.db.transaction(async (tx) => {
        const user = await locked(admin, id, tx);
        if (user.status !== 'invited') {
          throw new AppError('conflict', 'This user has already chosen a password, or is disabled');
        }
        await deps.users.update(
          user.id,
          {
            inviteTokenHash: hashToken(token),
            inviteExpiresAt: new Date(clock.now().getTime() + INVITE_VALIDITY_MS),
          },
          tx,
        );
        await deps.audit.record(
          admin.actor,
          {
            tenantId: admin.tenantId,
            action: 'user.invite_resend',
            targetType: 'user',
            targetId: user.id,
            details: { email: user.email },
          },
          tx,
        );
        return user;
      });
      await sendInvite(tenant, user, token, admin);
      return listed(admin, id);
    },

    /**
     * Role, names, flags, MFA requirement, disabled. Disabling ends the user's sessions at once.
     * Refused: a change of one's own role or state, and leaving the tenant without an active admin.
     */
    async update(admin: Admin, id: string, body: UpdateBody): Promise<ManagedUser> {
      await deps.db.transaction(async (tx) => {
        const admins = await repo.lockActiveAdmins(admin.tenantId, tx);
        const user = await locked(admin, id, tx);
        const demoted = body.role === 'user' && user.role === 'admin';
        const disabling = body.disabled === true && user.status !== 'disabled';
        if (user.id === admin.userId && (demoted || disabling)) {
          throw new AppError(
            'conflict',
            'You cannot remove your own admin role or disable yourself: ask another admin',
          );
        }
        if ((demoted || disabling) && admins.includes(user.id) && admins.length <= 1) {
          throw new AppError('conflict', 'Your organisation must keep at least one active admin');
        }
        const changes: Partial<UserRow> = {};
        if (body.role !== undefined) changes.role = body.role;
        if (body.first_name !== undefined) changes.firstName = body.first_name;
        if (body.last_name !== undefined) changes.lastName = body.last_name;
        if (body.hidden !== undefined) changes.hidden = body.hidden;
        if (body.view_policy !== undefined) changes.viewPolicy = body.view_policy;
        if (body.view_edit_policy !== undefined) changes.viewEditPolicy = body.view_edit_policy;
        if (body.view_private_data !== undefined) changes.viewPrivateData = body.view_private_data;
        if (body.mfa_required !== undefined) changes.mfaRequired = body.mfa_required;
        if (body.disabled !== undefined) {
          changes.status = body.disabled ? 'disabled' : user.passwordHash ? 'active' : 'invited';
        }
        await deps.users.update(user.id, changes, tx);
        if (disabling) await deps.sessions.revokeAllOf(user.id, undefined, tx);
        await deps.audit.record(
          admin.actor,
          {
            tenantId: admin.tenantId,
            action: disabling ? 'user.disable' : body.disabled === false ? 'user.enable' : 'user.update',
            targetType: 'user',
            targetId: user.id,
            details: { email: user.email, ...body },
          },
          tx,
        );
      });
      return listed(admin, id);
    },

    /** Turn a user's MFA off (a lost authenticator): their sessions end and they are told by email. */
    async resetMfa(admin: Admin, id: string): Promise<ManagedUser> {
      const tenant = await tenantOf(admin.tenantId);
      const user = await deps.db.transaction(async (tx) => {
        const user = await locked(admin, id, tx);
        if (!user.mfaEnabled && !user.mfaPendingSecret) {
          throw new AppError('conflict', 'This user has no MFA to reset');
        }
        await deps.users.update(user.id, { mfaEnabled: false, mfaSecret: null, mfaPendingSecret: null }, tx);
        await deps.sessions.revokeAllOf(user.id, undefined, tx);
        await deps.audit.record(
          admin.actor,
          {
            tenantId: admin.tenantId,
            action: 'mfa.reset',
            targetType: 'user',
            targetId: user.id,
            details: { email: user.email },
          },
          tx,
        );
        return user;
      });
      await deps.mailer.send({
        tenantId: tenant.id,
        kind: 'mfa_reset',
        to: user.email,
        ...mfaResetEmail(mailBrand(tenant), {
          email: user.email,
          resetBy: admin.email,
          stillRequired: user.mfaRequired || tenant.mfaRequired,
        }),
      });
      return listed(admin, id);
    },
  };
}
export type UserManagementService = ReturnType<typeof createUserManagementService>;
