import { Outlet } from 'react-router';
import { CenteredPage } from '../../components/ui/CenteredPage';

export function ErrorsLayout() {
  return (
    <CenteredPage>
      <Outlet />
    </CenteredPage>
  );
}
