import { Badge, Button, Menu, Text } from '@mantine/core';
import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useLogout } from '../../features/auth/api/logout';

const MfaDialog = lazy(() =>
  import('../../features/mfa/components/MfaDialog').then((module) => ({ default: module.MfaDialog })),
);

/**
 * The top bar's user menu (SPEC §2.4): the user's email (with the admin label), multi-factor
 * authentication, and Logout, which ends the session on the server, then clears every cached
 * answer (the current-user polling stops with it) and goes to sign-in.
 */
export function UserMenu({ user }: { user: CurrentUser }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const logout = useLogout();
  const [mfaOpened, setMfaOpened] = useState(false);

  const signOut = () => {
    logout.mutate(undefined, {
      onSettled: async () => {
        await navigate(ROUTES.auth.login, { replace: true });
        queryClient.clear();
      },
    });
  };

  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button
            variant="subtle"
            color="gray"
            aria-label={t('shell.userMenu.label', { email: user.email })}
            rightSection={
              user.role === 'admin' ? (
                <Badge variant="light" size="sm">
                  {t('shell.adminLabel')}
                </Badge>
              ) : undefined
            }
            maw="100%"
          >
            <Text size="sm" truncate="end" visibleFrom="xs" component="span">
              {user.email}
            </Text>
            <Text size="sm" hiddenFrom="xs" component="span">
              {t('shell.userMenu.short')}
            </Text>
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{user.email}</Menu.Label>
          <Menu.Item onClick={() => setMfaOpened(true)}>{t('shell.userMenu.mfa')}</Menu.Item>
          <Menu.Divider />
          <Menu.Item onClick={signOut} disabled={logout.isPending}>
            {t('shell.userMenu.logout')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {mfaOpened && (
        <Suspense fallback={null}>
          <MfaDialog email={user.email} opened onClose={() => setMfaOpened(false)} />
        </Suspense>
      )}
    </>
  );
}
