import { Stack } from '@mantine/core';
import { ExceptionsScreen } from '../../features/exceptions/components/ExceptionsScreen';
import { VipsSection } from '../../features/vips/components/VipsSection';

/**
 * Security Settings → Exceptions → Anti-Phishing: the engine's allow and block entries, then the
 * people it protects from impersonation (VIPs) — both are what an admin tunes the engine with.
 */
export function AntiPhishingExceptionsScreen() {
  return (
    <Stack gap="xl">
      <ExceptionsScreen />
      <VipsSection />
    </Stack>
  );
}
