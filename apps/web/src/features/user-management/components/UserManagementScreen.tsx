import { Alert, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { ROLES, USER_STATUSES } from '@moat/contracts/deployment';
import { type ManagedUser, USER_SORTS } from '@moat/contracts/users';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { DateText } from '../../../components/list/ListParts';
import { ListTable } from '../../../components/list/ListTable';
import { enumFilter, ListToolbar } from '../../../components/list/ListToolbar';
import { useListState } from '../../../components/list/use-list-state';
import { Breakable } from '../../../components/ui/Breakable';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { useUsers } from '../api/users';
import { ROLE_LABEL, STATUS_COLOR, STATUS_LABEL } from '../labels';
import { EditUserDialog } from './EditUserDialog';
import { InviteUserDialog } from './InviteUserDialog';

function NameCell({ user }: { user: ManagedUser }) {
  const { t } = useTranslation();
  const name = `${user.first_name} ${user.last_name}`.trim();
  return (
    <>
      <Group gap={6} wrap="nowrap" align="flex-start">
        <Text size="sm" fw={600} lineClamp={2} className="list-text-anywhere">
          {name || <Breakable text={user.email} />}
        </Text>
        {user.is_you && (
          <Badge size="sm" variant="light" className="quarantine-badge">
            {t('users.you')}
          </Badge>
        )}
      </Group>
      {name && (
        <Text size="xs" c="dimmed">
          <Breakable text={user.email} />
        </Text>
      )}
    </>
  );
}

/**
 * System Settings → User Management (SPEC §2.4, admins): the organisation's users with role,
 * state, MFA and last sign-in; invite, and open a user to change role, flags and MFA requirement,
 * disable or enable, reset MFA or resend an invitation.
 */
export function UserManagementScreen() {
  const { t } = useTranslation();
  const state = useListState({
    sorts: USER_SORTS,
    defaultSort: 'email',
    defaultDir: 'asc',
    filters: { role: ROLES, status: USER_STATUSES },
  });
  const list = useUsers(state.query);
  const [inviting, setInviting] = useState(false);
  const [editing, setEditing] = useState<ManagedUser | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const { sortable } = state;
  // A demo deployment's users look at the page; only an admin changes anything (SPEC §6).
  const canChange = useQuery(currentUserQueryOptions()).data?.role === 'admin';

  return (
    <Stack gap="md">
      <Text size="sm">{t('users.intro')}</Text>
      {!canChange && (
        <Alert variant="light" color="blue">
          {t('users.readOnly')}
        </Alert>
      )}
      <StatusNotice message={status} onClose={() => setStatus(null)} />
      <ListToolbar
        search={state.search}
        onSearchChange={state.setSearch}
        searchPlaceholder={t('users.searchPlaceholder')}
        filters={[
          enumFilter({
            name: 'role',
            label: t('users.fields.role'),
            allLabel: t('users.allRoles'),
            values: ROLES,
            labelOf: (value) => t(ROLE_LABEL[value]),
            value: state.filters.role,
            onChange: (value) => state.setFilter('role', value),
          }),
          enumFilter({
            name: 'status',
            label: t('users.fields.status'),
            allLabel: t('users.allStatuses'),
            values: USER_STATUSES,
            labelOf: (value) => t(STATUS_LABEL[value]),
            value: state.filters.status,
            onChange: (value) => state.setFilter('status', value),
          }),
        ]}
        actions={
          canChange && (
            <Button size="sm" onClick={() => setInviting(true)}>
              {t('users.invite.open')}
            </Button>
          )
        }
      />
      <ListTable
        list={list}
        {...state.paging}
        caption={t('users.caption')}
        emptyTitle={t('users.emptyTitle')}
        emptyDescription={t('users.emptyDescription')}
        minWidth={760}
        sortable={sortable}
        rowKey={(user) => user.id}
        columns={[
          {
            key: 'user',
            label: t('users.fields.user'),
            sort: 'email',
            firstDir: 'asc',
            card: 'title',
            cell: (user) => <NameCell user={user} />,
          },
          {
            key: 'role',
            label: t('users.fields.role'),
            sort: 'role',
            firstDir: 'asc',
            width: '9rem',
            cell: (user) => (
              <>
                <Text size="sm">{t(ROLE_LABEL[user.role])}</Text>
                {user.hidden && (
                  <Text size="xs" c="dimmed">
                    {t('users.flags.hidden')}
                  </Text>
                )}
              </>
            ),
          },
          {
            key: 'status',
            label: t('users.fields.status'),
            width: '8rem',
            card: 'badge',
            cell: (user) => (
              <Badge color={STATUS_COLOR[user.status]} variant="light" className="quarantine-badge">
                {t(STATUS_LABEL[user.status])}
              </Badge>
            ),
          },
          {
            key: 'mfa',
            label: t('users.fields.mfa'),
            width: '7rem',
            cell: (user) => (
              <>
                <Text size="sm">{t(user.mfa_enabled ? 'users.mfa.on' : 'users.mfa.off')}</Text>
                {user.mfa_required && (
                  <Text size="xs" c="dimmed">
                    {t('users.mfa.required')}
                  </Text>
                )}
              </>
            ),
          },
          {
            key: 'last',
            label: t('users.fields.lastSignIn'),
            sort: 'last_sign_in_at',
            firstDir: 'desc',
            width: '8rem',
            cell: (user) =>
              user.last_sign_in_at ? (
                <DateText iso={user.last_sign_in_at} />
              ) : (
                <Text size="sm" c="dimmed">
                  {t('users.never')}
                </Text>
              ),
          },
        ]}
        actionsWidth="5rem"
        rowActions={
          canChange
            ? (user) => (
                <Button
                  size="xs"
                  variant="subtle"
                  onClick={() => setEditing(user)}
                  aria-label={t('users.editOf', { email: user.email })}
                >
                  {t('users.edit.open')}
                </Button>
              )
            : undefined
        }
      />
      <InviteUserDialog
        opened={inviting}
        onClose={() => setInviting(false)}
        onInvited={(email) => {
          setInviting(false);
          setStatus(t('users.invite.done', { email }));
        }}
      />
      {editing && (
        <EditUserDialog
          key={editing.id}
          user={editing}
          onClose={() => setEditing(null)}
          onDone={(message) => {
            setEditing(null);
            setStatus(message);
          }}
        />
      )}
    </Stack>
  );
}
