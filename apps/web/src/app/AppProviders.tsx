import { MantineProvider } from '@mantine/core';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { appTheme, cssVariablesResolver, themeModeStorageManager } from '../lib/theme';

const colorSchemeManager = themeModeStorageManager();

export function AppProviders({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  return (
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
  );
}
