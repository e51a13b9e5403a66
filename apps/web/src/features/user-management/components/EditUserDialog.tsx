import {
  Alert,
  Button,
  Checkbox,
  Divider,
  Group,
  Modal,
  NativeSelect,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { ROLES, type Role } from '@moat/contracts/deployment';
import type { ManagedUser, UpdateUserBody } from '@moat/contracts/users';
import { type FormEvent, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { formatDateTime } from '../../../lib/format';
import { useTranslation } from '../../../lib/i18n';
import { useResendInvite, useResetMfa, useUpdateUser } from '../api/users';
import { FLAGS, ROLE_LABEL } from '../labels';

type Flags = Pick<ManagedUser, (typeof FLAGS)[number]['key']>;
type Confirming = 'disable' | 'enable' | 'resetMfa' | null;

/** What changed between the user as stored and the form. */
function changesOf(user: ManagedUser, draft: Omit<ManagedUser, 'id'>): UpdateUserBody {
  const body: Record<string, unknown> = {};
  for (const key of [
    'first_name',
    'last_name',
    'role',
    'mfa_required',
    ...FLAGS.map((f) => f.key),
  ] as const) {
    if (draft[key] !== user[key]) body[key] = draft[key];
  }
  return body as UpdateUserBody;
}

/**
 * One user: names, role, permission flags and MFA requirement, saved together; disable or enable,
 * reset MFA and resend an invitation, each confirmed. Your own role and state are not offered.
 */
export function EditUserDialog({
  user,
  onClose,
  onDone,
}: {
  user: ManagedUser;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const update = useUpdateUser();
  const resetMfa = useResetMfa();
  const resend = useResendInvite();
  const [draft, setDraft] = useState<Omit<ManagedUser, 'id'>>(user);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const changes = changesOf(user, draft);
  const dirty = Object.keys(changes).length > 0;
  const set = <K extends keyof ManagedUser>(key: K, value: ManagedUser[K]) =>
    setDraft((current) => ({ ...current, [key]: value }));

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    update.mutate(
      { id: user.id, body: changes },
      { onSuccess: () => onDone(t('users.edit.saved', { email: user.email })) },
    );
  };
  const confirm = () => {
    if (confirming === 'resetMfa') {
      resetMfa.mutate(user.id, {
        onSuccess: () => {
          setConfirming(null);
          onDone(t('users.edit.mfaResetDone', { email: user.email }));
        },
        onError: () => setConfirming(null),
      });
    } else if (confirming) {
      update.mutate(
        { id: user.id, body: { disabled: confirming === 'disable' } },
        {
          onSuccess: () => {
            setConfirming(null);
            onDone(
              t(confirming === 'disable' ? 'users.edit.disabledDone' : 'users.edit.enabledDone', {
                email: user.email,
              }),
            );
          },
          onError: () => setConfirming(null),
        },
      );
    }
  };
  const error = update.error ?? resetMfa.error ?? resend.error;

  return (
    <>
      <Modal
        opened={confirming === null}
        onClose={onClose}
        title={user.email}
        size={DIALOG_WIDTH.medium}
        centered
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <form onSubmit={save} noValidate>
          <Stack gap="sm">
            {user.is_you && (
              <Alert variant="light" color="blue">
                {t('users.edit.yourself')}
              </Alert>
            )}
            <Group grow align="flex-start">
              <TextInput
                label={t('users.fields.firstName')}
                value={draft.first_name}
                maxLength={100}
                onChange={(event) => set('first_name', event.currentTarget.value)}
              />
              <TextInput
                label={t('users.fields.lastName')}
                value={draft.last_name}
                maxLength={100}
                onChange={(event) => set('last_name', event.currentTarget.value)}
              />
            </Group>
            <NativeSelect
              label={t('users.fields.role')}
              value={draft.role}
              disabled={user.is_you}
              data={ROLES.map((value) => ({ value, label: t(ROLE_LABEL[value]) }))}
              onChange={(event) => set('role', event.currentTarget.value as Role)}
            />
            <Stack gap="xs" role="group" aria-label={t('users.fields.permissions')}>
              <Text size="sm" fw={500}>
                {t('users.fields.permissions')}
              </Text>
              {FLAGS.map((flag) => (
                <Checkbox
                  key={flag.key}
                  label={t(flag.label)}
                  description={t(flag.hint)}
                  checked={draft[flag.key]}
                  onChange={(event) => set(flag.key, event.currentTarget.checked as Flags[typeof flag.key])}
                />
              ))}
            </Stack>
            <Switch
              label={t('users.fields.mfaRequired')}
              description={t(draft.mfa_enabled ? 'users.edit.mfaOn' : 'users.edit.mfaOff')}
              checked={draft.mfa_required}
              onChange={(event) => set('mfa_required', event.currentTarget.checked)}
            />
            {error && <ApiErrorAlert error={error} showServerMessage />}
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" disabled={!dirty} loading={update.isPending}>
                {t('users.edit.save')}
              </Button>
            </Group>
            <Divider />
            <Group gap="sm" wrap="wrap">
              {user.status === 'invited' && (
                <Button
                  variant="default"
                  size="xs"
                  loading={resend.isPending}
                  onClick={() =>
                    resend.mutate(user.id, {
                      onSuccess: () => onDone(t('users.edit.resent', { email: user.email })),
                    })
                  }
                >
                  {t('users.edit.resend')}
                </Button>
              )}
              {user.status === 'invited' && user.invite_expires_at && (
                <Text size="xs" c="dimmed">
                  {t('users.edit.inviteUntil', {
                    date: formatDateTime(user.invite_expires_at, i18n.language),
                  })}
                </Text>
              )}
              {user.mfa_enabled && (
                <Button variant="default" size="xs" onClick={() => setConfirming('resetMfa')}>
                  {t('users.edit.resetMfa')}
                </Button>
              )}
              {!user.is_you &&
                (user.status === 'disabled' ? (
                  <Button variant="default" size="xs" onClick={() => setConfirming('enable')}>
                    {t('users.edit.enable')}
                  </Button>
                ) : (
                  <Button variant="outline" color="red.9" size="xs" onClick={() => setConfirming('disable')}>
                    {t('users.edit.disable')}
                  </Button>
                ))}
            </Group>
          </Stack>
        </form>
      </Modal>
      <ConfirmDialog
        opened={confirming !== null}
        title={t(
          confirming === 'resetMfa'
            ? 'users.confirm.resetMfaTitle'
            : confirming === 'enable'
              ? 'users.confirm.enableTitle'
              : 'users.confirm.disableTitle',
          { email: user.email },
        )}
        confirmLabel={t(
          confirming === 'resetMfa'
            ? 'users.edit.resetMfa'
            : confirming === 'enable'
              ? 'users.edit.enable'
              : 'users.edit.disable',
        )}
        confirmColor={confirming === 'disable' ? 'red.9' : undefined}
        pending={update.isPending || resetMfa.isPending}
        onConfirm={confirm}
        onClose={() => setConfirming(null)}
      >
        {t(
          confirming === 'resetMfa'
            ? 'users.confirm.resetMfaText'
            : confirming === 'enable'
              ? 'users.confirm.enableText'
              : 'users.confirm.disableText',
        )}
      </ConfirmDialog>
    </>
  );
}
