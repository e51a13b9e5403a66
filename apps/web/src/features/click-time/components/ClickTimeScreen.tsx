import { Stack } from '@mantine/core';
import { ExceptionsScreen } from '../../exceptions/components/ExceptionsScreen';
import { ClickTimeSettingsCard } from './ClickTimeSettingsCard';
import { WhoClickedSection } from './WhoClickedSection';

/**
 * Security Settings → Exceptions → Click-Time: which mail has its links rewritten, the hosts and
 * URLs never rewritten (allow) or always blocked at the click (block), and who clicked what.
 */
export function ClickTimeScreen() {
  return (
    <Stack gap="xl">
      <ClickTimeSettingsCard />
      <ExceptionsScreen />
      <WhoClickedSection />
    </Stack>
  );
}
