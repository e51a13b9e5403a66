import { useMantineColorScheme } from '@mantine/core';
import type { ThemeMode } from '@moat/contracts/constants';
import type { CurrentUser } from '@moat/contracts/current-user';
import { useEffect } from 'react';
import { colorSchemeOf } from './theme';

/**
 * Applies the user's saved theme (user_preferences.applicationMode) when it is loaded or changes;
 * a user who never chose one gets the organisation's default (Customization).
 */
export function useSavedTheme(user: CurrentUser, organisationDefault: ThemeMode | undefined): void {
  const { setColorScheme } = useMantineColorScheme();
  const mode = user.user_preferences.applicationMode ?? organisationDefault;
  useEffect(() => {
    if (mode) setColorScheme(colorSchemeOf(mode));
  }, [mode, setColorScheme]);
}
