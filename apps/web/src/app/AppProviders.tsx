import { MantineProvider } from '@mantine/core';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { appTheme, cssVariablesResolver, themeModeStorageManager } from '../lib/theme';

const colorSchemeManager = themeModeStorageManager();

export function AppProviders({
  queryClient,
  i18n,
  children,
}: {
  queryClient: QueryClient;
  i18n: I18n;
  children: ReactNode;
}) {
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        <MantineProvider
          theme={appTheme}
          colorSchemeManager={colorSchemeManager}
          defaultColorScheme="light"
          cssVariablesResolver={cssVariablesResolver}
        >
          {children}
        </MantineProvider>
      </QueryClientProvider>
    </I18nextProvider>
  );
}
