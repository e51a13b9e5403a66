import { CONSOLE_API, licenceContactResponseSchema } from '@moat/contracts/console';
import { apiPost } from '../http';

export function requestLicenceContact() {
  return apiPost(CONSOLE_API.licenceContact, {}, { schema: licenceContactResponseSchema });
}
