import { Stack } from '@mantine/core';
import { RestoreRequestsScreen } from '../../features/quarantine/components/RestoreRequestsScreen';
import { ApproverNotice } from '../../features/user-interaction-settings/components/ApproverNotice';
import { UserInteractionFrame } from './UserInteractionFrame';

/** user-interaction/restore-request-and-clean-attachments: Restore Requests (SPEC §2.4). */
export function RestoreRequestsPage() {
  return (
    <UserInteractionFrame titleKey="shell.sections.restoreRequests">
      <Stack gap="md">
        <ApproverNotice />
        <RestoreRequestsScreen />
      </Stack>
    </UserInteractionFrame>
  );
}
