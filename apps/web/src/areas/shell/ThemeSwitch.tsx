import { ActionIcon, Menu, useMantineColorScheme } from '@mantine/core';
import { THEMES, type ThemeMode } from '@moat/contracts/constants';
import type { CurrentUser } from '@moat/contracts/current-user';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNotify } from '../../components/ui/Notifications';
import { savePreferences } from '../../lib/console-data/save-preferences';
import { useTranslation } from '../../lib/i18n';
import { queryKeys } from '../../lib/query-keys';
import { colorSchemeOf, themeModeOf } from '../../lib/theme';
import { ShellIcon } from './ShellIcons';

const LABEL_KEY = { mixed: 'shell.theme.mixed', dark: 'shell.theme.dark' } as const;

/**
 * The theme selector of the top bar (SPEC §2.4, §9: a mixed theme and a dark theme). The choice
 * applies at once and is saved to the user's preferences, whose answer (the updated user) replaces
 * the cached current user.
 */
export function ThemeSwitch({ user }: { user: CurrentUser }) {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const queryClient = useQueryClient();
  const notify = useNotify();
  const current = themeModeOf(colorScheme);
  const save = useMutation({
    mutationFn: (mode: ThemeMode) => savePreferences({ ...user.user_preferences, applicationMode: mode }),
    onSuccess: (updated) => queryClient.setQueryData(queryKeys.currentUser(), updated),
    onError: () => notify({ tone: 'error', title: t('shell.theme.saveFailed') }),
  });

  const choose = (mode: ThemeMode) => {
    setColorScheme(colorSchemeOf(mode));
    if (mode !== user.user_preferences.applicationMode) save.mutate(mode);
  };

  return (
    <Menu position="bottom-end" withinPortal hideDetached={false}>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" size="lg" aria-label={t('shell.theme.label')}>
          <ShellIcon name={current === 'dark' ? 'moon' : 'sun'} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{t('shell.theme.label')}</Menu.Label>
        {THEMES.map((mode) => (
          <Menu.Item
            key={mode}
            aria-current={mode === current ? 'true' : undefined}
            leftSection={<ShellIcon name={mode === 'dark' ? 'moon' : 'sun'} size={16} />}
            rightSection={mode === current ? '✓' : undefined}
            onClick={() => choose(mode)}
          >
            {t(LABEL_KEY[mode])}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
