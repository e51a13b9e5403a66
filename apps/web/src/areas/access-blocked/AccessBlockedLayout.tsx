import { Outlet } from 'react-router';
import { CenteredPage } from '../../components/ui/CenteredPage';

export function AccessBlockedLayout() {
  return (
    <CenteredPage>
      <Outlet />
    </CenteredPage>
  );
}
