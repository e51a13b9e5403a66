import { Button, Group, Modal, NativeSelect, Stack, TextInput } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import { ROLES, type Role } from '@moat/contracts/deployment';
import { type FormEvent, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useInviteUser } from '../api/users';
import { ROLE_LABEL } from '../labels';

const LOOKS_LIKE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Invite a user of the organisation: an email with a link to choose a password. */
export function InviteUserDialog({
  opened,
  onClose,
  onInvited,
}: {
  opened: boolean;
  onClose: () => void;
  onInvited: (email: string) => void;
}) {
  const { t } = useTranslation();
  const invite = useInviteUser();
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [role, setRole] = useState<Role>('user');
  const [checked, setChecked] = useState(false);
  const emailError =
    checked && !LOOKS_LIKE_EMAIL.test(email.trim())
      ? t('users.invite.emailInvalid')
      : isApiError(invite.error) && invite.error.status !== 403
        ? invite.error.message
        : undefined;

  const close = () => {
    invite.reset();
    setChecked(false);
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (!LOOKS_LIKE_EMAIL.test(email.trim())) return;
    invite.mutate(
      { email: email.trim(), role, first_name: firstName.trim(), last_name: lastName.trim() },
      {
        onSuccess: (user) => {
          setEmail('');
          setFirstName('');
          setLastName('');
          setRole('user');
          setChecked(false);
          onInvited(user.email);
        },
      },
    );
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('users.invite.title')}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <TextInput
            label={t('users.invite.email')}
            description={t('users.invite.emailHint')}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={emailError}
            required
            data-autofocus
          />
          <Group grow align="flex-start">
            <TextInput
              label={t('users.fields.firstName')}
              value={firstName}
              maxLength={100}
              onChange={(event) => setFirstName(event.currentTarget.value)}
            />
            <TextInput
              label={t('users.fields.lastName')}
              value={lastName}
              maxLength={100}
              onChange={(event) => setLastName(event.currentTarget.value)}
            />
          </Group>
          <NativeSelect
            label={t('users.fields.role')}
            value={role}
            data={ROLES.map((value) => ({ value, label: t(ROLE_LABEL[value]) }))}
            onChange={(event) => setRole(event.currentTarget.value as Role)}
          />
          {invite.isError && !isApiError(invite.error) && <ApiErrorAlert error={invite.error} />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={invite.isPending}>
              {t('users.invite.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
