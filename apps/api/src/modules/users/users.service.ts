import type { Role } from '@moat/contracts/deployment';
import { domainOfEmail, emailSchema, passwordSchema } from '@moat/contracts/validation';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UserRow, UsersRepo } from './users.repo.ts';

export const INVITE_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000;

export interface CreateUserInput {
  email: string;
  role: Role;
  /** Set a password now, or leave it out to invite the user (a link to choose one). */
  password?: string;
  /** The password is a one-time one (generated and shown once): the first sign-in must replace it. */
  oneTimePassword?: boolean;
  firstName?: string;
  lastName?: string;
  /** The tenant; by default the one owning the email's domain. */
  tenant?: TenantRow;
}

export interface CreatedUser {
  user: UserRow;
  tenant: TenantRow;
  /** Only for invitations: the secret for the invite link. Shown once, stored hashed. */
  inviteToken: string | null;
}

export function createUsersService({
  db,
  clock,
  users,
  tenants,
  audit,
}: {
  db: Pick<Db, 'transaction'>;
  clock: Clock;
  users: Pick<UsersRepo, 'findByEmail' | 'insert'>;
  tenants: Pick<TenantsRepo, 'findByDomain'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  return {
    async create(input: CreateUserInput, actor: Actor): Promise<CreatedUser> {
      const email = emailSchema.safeParse(input.email);
      if (!email.success) {
        throw new AppError('validation_error', `"${input.email}" is not a valid email address`, [
          { field: 'email', message: 'invalid_email' },
        ]);
      }
      if (input.password !== undefined && !passwordSchema.safeParse(input.password).success) {
        throw new AppError('validation_error', 'The password must be at least 8 characters long', [
          { field: 'password', message: 'password_too_short' },
        ]);
      }
      const domain = domainOfEmail(email.data);
      const tenant = input.tenant ?? (await tenants.findByDomain(domain));
      if (!tenant) {
        throw new AppError(
          'not_found',
          `No tenant has the domain ${domain}; name the tenant or add the domain to one first`,
        );
      }
      if (await users.findByEmail(email.data)) {
        throw new AppError('conflict', `A user with the email ${email.data} already exists`);
      }
      const now = clock.now();
      const inviteToken = input.password === undefined ? newToken() : null;
      const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
      const user = await db.transaction(async (tx) => {
        const row = await users.insert(
          {
            tenantId: tenant.id,
            email: email.data,
            role: input.role,
            firstName: input.firstName?.trim() ?? '',
            lastName: input.lastName?.trim() ?? '',
            status: inviteToken ? 'invited' : 'active',
            passwordHash,
            passwordChangedAt: passwordHash ? now : null,
            mustChangePassword: Boolean(passwordHash && input.oneTimePassword),
            inviteTokenHash: inviteToken ? hashToken(inviteToken) : null,
            inviteExpiresAt: inviteToken ? new Date(now.getTime() + INVITE_VALIDITY_MS) : null,
          },
          tx,
        );
        await audit.record(
          actor,
          {
            tenantId: tenant.id,
            action: inviteToken ? 'user.invite' : 'user.create',
            targetType: 'user',
            targetId: row.id,
            details: { email: row.email, role: row.role },
          },
          tx,
        );
        return row;
      });
      return { user, tenant, inviteToken };
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
