import { REQUIRED_ACTION_PARAMS } from '@moat/contracts/quarantine';
import { mailActionFlow } from '../../features/email-actions/adapters/mail-action';
import { PublicActionPage, type PublicActionPageConfig } from './PublicActionPage';

const config: PublicActionPageConfig = {
  requiredParams: REQUIRED_ACTION_PARAMS.action,
  missingParamsKey: 'emailActions.action.missingParams',
  flow: mailActionFlow,
};

/** email-actions/action?type=…&id=…: a generic mail action. */
export function ActionPage() {
  return <PublicActionPage config={config} />;
}
