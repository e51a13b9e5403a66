import { REQUIRED_ACTION_PARAMS } from '@moat/contracts/quarantine';
import { restoreOriginalFlow } from '../../features/email-actions/adapters/restore-original';
import { PublicActionPage, type PublicActionPageConfig } from './PublicActionPage';

const config: PublicActionPageConfig = {
  requiredParams: REQUIRED_ACTION_PARAMS.restoreOriginal,
  missingParamsKey: 'emailActions.restoreOriginal.missingParams',
  flow: restoreOriginalFlow,
};

/** email-actions/restore-original?type=…&msg=…[&mode=…]: restore the original attachments. */
export function RestoreOriginalPage() {
  return <PublicActionPage config={config} />;
}
