import { z } from 'zod/mini';
import { ROLES, USER_STATUSES } from './deployment.ts';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder } from './list.ts';
import { emailSchema, noNul } from './validation.ts';

/**
 * System Settings → User Management (SPEC §2.4, §6; issue 12), admins only: the tenant's users,
 * invitations, roles and flags, sign-in state and MFA.
 */
export const USERS_API = {
  /** GET the list; POST invites a user (an email with a link to choose a password). */
  users: '/api/v1/users',
  /** PATCH: role, flags, MFA requirement, disabled. */
  user: '/api/v1/users/:id',
  /** POST: a new invitation link (the old one stops working). */
  resendInvite: '/api/v1/users/:id/resend_invite',
  /** POST: turn the user's MFA off (a lost authenticator); the user is told by email. */
  resetMfa: '/api/v1/users/:id/reset_mfa',
} as const;

export const USER_SORTS = ['email', 'last_sign_in_at', 'created_at', 'role'] as const;
export type UserSort = (typeof USER_SORTS)[number];

const name = z.string().check(
  z.trim(),
  z.maxLength(100),
  z.refine(noNul, 'must not contain a NUL character'),
  z.refine((v) => !/[<>\r\n]/.test(v), 'must not contain < > or line breaks'),
);

export const userQuerySchema = z
  .extend(listQuerySchema(USER_SORTS, 'email'), {
    role: z.optional(z.enum(ROLES)),
    status: z.optional(z.enum(USER_STATUSES)),
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type UserQuery = z.input<typeof userQuerySchema>;

export const managedUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: z.enum(ROLES),
  status: z.enum(USER_STATUSES),
  hidden: z.boolean(),
  view_policy: z.boolean(),
  view_edit_policy: z.boolean(),
  view_private_data: z.boolean(),
  mfa_enabled: z.boolean(),
  mfa_required: z.boolean(),
  /** The latest sign-in (session opened); null if never. */
  last_sign_in_at: z.nullable(z.string()),
  created_at: z.string(),
  /** An invitation's end; null once accepted. */
  invite_expires_at: z.nullable(z.string()),
  /** The signed-in admin themself (whose own role and state cannot be changed here). */
  is_you: z.boolean(),
});
export type ManagedUser = z.infer<typeof managedUserSchema>;

export const userListSchema = z
  .object({ items: z.array(managedUserSchema), total: z.int() })
  .register(z.globalRegistry, { id: 'UserList' });
export type UserListResponse = z.infer<typeof userListSchema>;

export const inviteUserBodySchema = z
  .strictObject({
    email: emailSchema,
    role: z.enum(ROLES),
    first_name: z._default(name, ''),
    last_name: z._default(name, ''),
  })
  .register(z.globalRegistry, { id: 'InviteUser' });
export type InviteUserBody = z.input<typeof inviteUserBodySchema>;

export const updateUserBodySchema = z
  .partial(
    z.strictObject({
      role: z.enum(ROLES),
      first_name: name,
      last_name: name,
      hidden: z.boolean(),
      view_policy: z.boolean(),
      view_edit_policy: z.boolean(),
      view_private_data: z.boolean(),
      mfa_required: z.boolean(),
      /** Disable (their sessions end at once) or enable again. */
      disabled: z.boolean(),
    }),
  )
  .check(z.refine((body) => Object.keys(body).length > 0, { message: 'name at least one thing to change' }))
  .register(z.globalRegistry, { id: 'UpdateUser' });
export type UpdateUserBody = z.input<typeof updateUserBodySchema>;

export const userIdParamsSchema = z.object({ id: z.uuid() });
