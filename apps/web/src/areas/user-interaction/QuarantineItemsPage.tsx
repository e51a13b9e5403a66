import { QuarantineItemsScreen } from '../../features/quarantine/components/QuarantineItemsScreen';
import { UserInteractionFrame } from './UserInteractionFrame';

/** user-interaction/quarantine-item: Quarantined Items (SPEC §2.4). */
export function QuarantineItemsPage() {
  return (
    <UserInteractionFrame titleKey="shell.sections.quarantineItems">
      <QuarantineItemsScreen />
    </UserInteractionFrame>
  );
}
