import { ROLES } from '@moat/contracts/deployment';
import { AppError } from '../../errors.ts';
import { cliActor } from '../../lib/actor.ts';
import { type CliDeps, type Command, HELP, oneOf, onOff, required, UsageError } from './command.ts';

async function userByEmail(deps: CliDeps, values: Record<string, unknown>) {
  const email = required(values, 'email').trim().toLowerCase();
  const user = await deps.users.findByEmail(email);
  if (!user) throw new AppError('not_found', `No user has the email ${email}`);
  return { email, user };
}

/** Console users: create or invite, change, and reset a lost authenticator. */
export const userCommands: Record<string, Command> = {
  'user:create': {
    summary: 'Create a user with a password, or invite one by link',
    usage:
      'user:create --email EMAIL --role admin|user (--password PASSWORD | --password-stdin | --invite) [--first-name NAME] [--last-name NAME] [--tenant ID|DOMAIN]',
    options: {
      ...HELP,
      email: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      invite: { type: 'boolean' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      tenant: { type: 'string' },
    },
    readsStdin: (values) => values['password-stdin'] === true,
    async run({ values }, ctx, deps) {
      const email = required(values, 'email');
      const role = oneOf(values.role, ROLES, 'role');
      if (!role) throw new UsageError('--role is required (admin or user)');
      const ways = [values.password !== undefined, values['password-stdin'] === true, values.invite === true];
      if (ways.filter(Boolean).length !== 1) {
        throw new UsageError('give exactly one of --password, --password-stdin or --invite');
      }
      const password =
        values['password-stdin'] === true
          ? (ctx.stdin ?? '').replace(/\r?\n$/, '')
          : (values.password as string | undefined);
      const tenant =
        typeof values.tenant === 'string' ? await deps.tenantsService.resolve(values.tenant) : undefined;
      const created = await deps.usersService.create(
        {
          email,
          role,
          password,
          firstName: values['first-name'] as string | undefined,
          lastName: values['last-name'] as string | undefined,
          tenant,
        },
        cliActor,
      );
      const line = `Created ${created.user.role} ${created.user.email} in tenant "${created.tenant.name}" (user id ${created.user.id})`;
      if (!created.inviteToken) return line;
      const link = `${ctx.config.publicUrl}/#/auth/reset-password?token=${created.inviteToken}`;
      return `${line}\nInvite link (valid 7 days, shown once): ${link}`;
    },
  },

  'user:update': {
    summary: "Change a user's role, flags or sign-in policy",
    usage:
      'user:update --email EMAIL [--role admin|user] [--mfa-required on|off] [--hidden on|off] [--automation-customer on|off] [--view-policy on|off] [--view-edit-policy on|off] [--view-private-data on|off] [--locked on|off] [--onboarding-required on|off] [--disabled on|off]',
    options: {
      ...HELP,
      email: { type: 'string' },
      role: { type: 'string' },
      'mfa-required': { type: 'string' },
      hidden: { type: 'string' },
      'automation-customer': { type: 'string' },
      'view-policy': { type: 'string' },
      'view-edit-policy': { type: 'string' },
      'view-private-data': { type: 'string' },
      locked: { type: 'string' },
      'onboarding-required': { type: 'string' },
      disabled: { type: 'string' },
    },
    async run({ values }, ctx, deps) {
      const { email, user } = await userByEmail(deps, values);
      const disabled = onOff(values.disabled, 'disabled');
      const changes = Object.fromEntries(
        Object.entries({
          role: oneOf(values.role, ROLES, 'role'),
          mfaRequired: onOff(values['mfa-required'], 'mfa-required'),
          hidden: onOff(values.hidden, 'hidden'),
          automationCustomer: onOff(values['automation-customer'], 'automation-customer'),
          viewPolicy: onOff(values['view-policy'], 'view-policy'),
          viewEditPolicy: onOff(values['view-edit-policy'], 'view-edit-policy'),
          viewPrivateData: onOff(values['view-private-data'], 'view-private-data'),
          locked: onOff(values.locked, 'locked'),
          onBoardingRequired: onOff(values['onboarding-required'], 'onboarding-required'),
          status:
            disabled === undefined
              ? undefined
              : disabled
                ? 'disabled'
                : user.passwordHash
                  ? 'active'
                  : 'invited',
        }).filter(([, v]) => v !== undefined),
      );
      if (Object.keys(changes).length === 0) throw new UsageError('name at least one thing to change');
      await ctx.db.transaction(async (tx) => {
        await deps.users.update(user.id, changes, tx);
        await deps.audit.record(
          cliActor,
          {
            tenantId: user.tenantId,
            action: 'user.update',
            targetType: 'user',
            targetId: user.id,
            details: changes,
          },
          tx,
        );
      });
      return `Updated ${email}: ${Object.entries(changes)
        .map(([k, v]) => `${k} = ${String(v)}`)
        .join(', ')}`;
    },
  },

  'user:reset-mfa': {
    summary: "Turn off a user's MFA (a lost authenticator); the next sign-in sets it up again if required",
    usage: 'user:reset-mfa --email EMAIL',
    options: { ...HELP, email: { type: 'string' } },
    async run({ values }, ctx, deps) {
      const { email, user } = await userByEmail(deps, values);
      await ctx.db.transaction(async (tx) => {
        await deps.users.update(user.id, { mfaEnabled: false, mfaSecret: null, mfaPendingSecret: null }, tx);
        await deps.audit.record(
          cliActor,
          { tenantId: user.tenantId, action: 'mfa.reset', targetType: 'user', targetId: user.id },
          tx,
        );
      });
      return `MFA of ${email} is off`;
    },
  },
};
