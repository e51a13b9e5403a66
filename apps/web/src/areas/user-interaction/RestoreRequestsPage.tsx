import { RestoreRequestsScreen } from '../../features/quarantine/components/RestoreRequestsScreen';
import { UserInteractionFrame } from './UserInteractionFrame';

/** user-interaction/restore-request-and-clean-attachments: Restore Requests (SPEC §2.4). */
export function RestoreRequestsPage() {
  return (
    <UserInteractionFrame titleKey="shell.sections.restoreRequests">
      <RestoreRequestsScreen />
    </UserInteractionFrame>
  );
}
