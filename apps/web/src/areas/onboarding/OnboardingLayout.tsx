import { Outlet } from 'react-router';
import { CenteredPage } from '../../components/ui/CenteredPage';

export function OnboardingLayout() {
  return (
    <CenteredPage wide>
      <Outlet />
    </CenteredPage>
  );
}
