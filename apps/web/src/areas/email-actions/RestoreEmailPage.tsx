import { REQUIRED_ACTION_PARAMS } from '@moat/contracts/quarantine';
import { restoreEmailFlow } from '../../features/email-actions/adapters/restore-email';
import { PublicActionPage, type PublicActionPageConfig } from './PublicActionPage';

const config: PublicActionPageConfig = {
  requiredParams: REQUIRED_ACTION_PARAMS.restoreEmail,
  missingParamsKey: 'emailActions.restoreEmail.missingParams',
  flow: restoreEmailFlow,
};

/** email-actions/restore-email?type=…&msg=…[&mode=…]: restore a quarantined email. */
export function RestoreEmailPage() {
  return <PublicActionPage config={config} />;
}
