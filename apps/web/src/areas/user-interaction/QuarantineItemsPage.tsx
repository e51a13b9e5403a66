import { useQuery } from '@tanstack/react-query';
import { MyQuarantineScreen } from '../../features/my-quarantine/components/MyQuarantineScreen';
import { QuarantineItemsScreen } from '../../features/quarantine/components/QuarantineItemsScreen';
import { currentUserQueryOptions } from '../../features/session/api/get-current-user';
import { UserInteractionFrame } from './UserInteractionFrame';

/**
 * user-interaction/quarantine-item: Quarantined Items (SPEC §2.4). An admin sees every held
 * message of the organisation; anyone else their own (issue 12, SPEC §6).
 */
export function QuarantineItemsPage() {
  const isAdmin = useQuery(currentUserQueryOptions()).data?.role === 'admin';
  return (
    <UserInteractionFrame titleKey="shell.sections.quarantineItems">
      {isAdmin ? <QuarantineItemsScreen /> : <MyQuarantineScreen />}
    </UserInteractionFrame>
  );
}
