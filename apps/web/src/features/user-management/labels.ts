import type { Role, UserStatus } from '@moat/contracts/deployment';
import type { TranslationKey } from '../../lib/i18n';

export const ROLE_LABEL: Record<Role, TranslationKey> = {
  admin: 'users.roles.admin',
  user: 'users.roles.user',
};

export const STATUS_LABEL: Record<UserStatus, TranslationKey> = {
  active: 'users.statuses.active',
  invited: 'users.statuses.invited',
  disabled: 'users.statuses.disabled',
};

/** Shade 9 keeps the badge's text above 4.5:1 in both schemes. */
export const STATUS_COLOR: Record<UserStatus, string> = {
  active: 'green',
  invited: 'yellow',
  disabled: 'gray',
};

/** The permission flags of SPEC §6, each with its label and what it grants. */
export const FLAGS = [
  { key: 'view_policy', label: 'users.flags.viewPolicy', hint: 'users.flags.viewPolicyHint' },
  { key: 'view_edit_policy', label: 'users.flags.viewEditPolicy', hint: 'users.flags.viewEditPolicyHint' },
  { key: 'view_private_data', label: 'users.flags.viewPrivateData', hint: 'users.flags.viewPrivateDataHint' },
  { key: 'hidden', label: 'users.flags.hidden', hint: 'users.flags.hiddenHint' },
] as const satisfies ReadonlyArray<{ key: string; label: TranslationKey; hint: TranslationKey }>;
