import { ROUTES } from '@moat/contracts/routes';
import { CenteredPage } from '../../components/ui/CenteredPage';
import { KeyedMessagePanel } from '../../components/ui/MessagePanel';

/** sonicwall/login (SPEC §2.3) only forwards to the vendor's cloud login, not configured yet. */
export function SonicwallLoginPage() {
  return (
    <CenteredPage>
      <KeyedMessagePanel
        titleKey="auth.sonicwall.title"
        descriptionKey="auth.sonicwall.description"
        link={{ to: ROUTES.auth.login, labelKey: 'common.goToLogin' }}
      />
    </CenteredPage>
  );
}
