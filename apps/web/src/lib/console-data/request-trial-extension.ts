import {
  CONSOLE_API,
  type TrialExtensionRequest,
  trialExtensionResponseSchema,
} from '@moat/contracts/console';
import { apiPost } from '../http';

export function requestTrialExtension(body: TrialExtensionRequest) {
  return apiPost(CONSOLE_API.trialStatus, body, { schema: trialExtensionResponseSchema });
}
