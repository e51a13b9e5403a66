import { Badge, Button, Menu, Text } from '@mantine/core';
import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useNavigate } from 'react-router';
import { useLogout } from '../../features/auth/api/logout';
import { mfaSettingsQueryOptions } from '../../features/mfa/api/get-mfa-settings';
import { useTranslation, withAreaTexts } from '../../lib/i18n';

const AccountDialog = lazy(() =>
  withAreaTexts(() => import('../../features/account/components/AccountDialog')).then((module) => ({
    default: module.AccountDialog,
  })),
);
const MfaDialog = lazy(() =>
  withAreaTexts(() => import('../../features/mfa/components/MfaDialog')).then((module) => ({
    default: module.MfaDialog,
  })),
);

/**
 * SPEC §2.4, §6: MFA setup is offered when feature enableMFA is on and the portal is MSP, and
 * (the "further client condition") the user's MFA is not one an admin requires: a required MFA
 * is set up at sign-in and cannot be turned off by the user.
 */
export function mfaSetupOffered(input: {
  enableMFA: boolean;
  isMsp: boolean;
  mfaRequired: boolean | undefined;
}) {
  return input.enableMFA && input.isMsp && input.mfaRequired === false;
}

export interface UserMenuProps {
  user: CurrentUser;
  enableMFA: boolean;
  isMsp: boolean;
  /** Where Contact support writes to; the entry is left out without one. */
  /** Null: no support address is set, and the entry says so. */
  supportEmail: string | null;
  onVersionInfo: () => void;
}

/**
 * The top bar's user menu (SPEC §2.4): the user's email (with the admin label); My account
 * (password, MFA, sessions); Version info;
 * MFA setup (see `mfaSetupOffered`); Contact support; Logout, which ends the session on the
 * server, then clears every cached answer (the current-user polling stops with it) and goes to
 * sign-in.
 */
export function UserMenu({ user, enableMFA, isMsp, supportEmail, onVersionInfo }: UserMenuProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const logout = useLogout();
  const [mfaOpened, setMfaOpened] = useState(false);
  const [accountOpened, setAccountOpened] = useState(false);
  const mfaSettings = useQuery({ ...mfaSettingsQueryOptions(user.email), enabled: enableMFA && isMsp });
  const offerMfa = mfaSetupOffered({ enableMFA, isMsp, mfaRequired: mfaSettings.data?.mfaRequired });

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
      <Menu position="bottom-end" withinPortal hideDetached={false}>
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
            px="xs"
          >
            <Text size="sm" truncate="end" visibleFrom="md" component="span">
              {user.email}
            </Text>
            <Text size="sm" hiddenFrom="md" component="span">
              {t('shell.userMenu.short')}
            </Text>
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{user.email}</Menu.Label>
          <Menu.Item onClick={() => setAccountOpened(true)}>{t('shell.userMenu.account')}</Menu.Item>
          <Menu.Item onClick={onVersionInfo}>{t('shell.userMenu.versionInfo')}</Menu.Item>
          {offerMfa && <Menu.Item onClick={() => setMfaOpened(true)}>{t('shell.userMenu.mfa')}</Menu.Item>}
          {supportEmail ? (
            <Menu.Item component="a" href={`mailto:${supportEmail}`}>
              {t('shell.userMenu.contactSupport')}
            </Menu.Item>
          ) : (
            <Menu.Item disabled>{t('shell.userMenu.noSupportAddress')}</Menu.Item>
          )}
          <Menu.Divider />
          <Menu.Item onClick={signOut} disabled={logout.isPending}>
            {t('shell.userMenu.logout')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {accountOpened && (
        <Suspense fallback={null}>
          <AccountDialog
            email={user.email}
            mfaOffered={enableMFA}
            opened
            onClose={() => setAccountOpened(false)}
            onManageMfa={() => {
              setAccountOpened(false);
              setMfaOpened(true);
            }}
          />
        </Suspense>
      )}
      {mfaOpened && (
        <Suspense fallback={null}>
          <MfaDialog email={user.email} opened onClose={() => setMfaOpened(false)} />
        </Suspense>
      )}
    </>
  );
}
