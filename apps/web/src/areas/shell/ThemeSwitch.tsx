import { Switch, useMantineColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Switches between the mixed (light) and the dark theme; the choice is kept in localStorage. */
export function ThemeSwitch() {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <Switch
      label={t('shell.darkTheme')}
      checked={colorScheme === 'dark'}
      onChange={(event) => setColorScheme(event.currentTarget.checked ? 'dark' : 'light')}
    />
  );
}
