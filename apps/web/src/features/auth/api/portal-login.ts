import { type AutoLoginRequest, loginStepResponseSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import {
  PORTAL_PACKED_PARAM,
  PORTAL_SERIAL_PARAM,
  PORTAL_TOKEN_PARAM,
  type PortalBrand,
} from '@moat/contracts/constants';
import { apiPost } from '../../../lib/http';

/** A start-up URL's sign-in (SPEC §3 "Auth tokens", §4 "Start-up"): whose token, and the firewall's serial. */
export type PortalSignIn =
  | { brand: Exclude<PortalBrand, 'firewall'>; token: string }
  | { brand: 'firewall'; token: string; serial: string };

/** `spogSrc`: `authtoken=…&domain=…` in base64 (standard or URL-safe); null when it is not that. */
function unpack(packed: string): URLSearchParams | null {
  try {
    const base64 = packed.replace(/-/g, '+').replace(/_/g, '/');
    return new URLSearchParams(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')));
  } catch {
    return null;
  }
}

/**
 * The sign-in a start-up URL asks for: null when it carries no token, 'invalid' when it carries
 * one that cannot be right (a firewall token without its serial number, a `spogSrc` that is not
 * base64 of the two), which goes to error/401 as a refused token does.
 */
export function portalSignInOf(params: URLSearchParams): PortalSignIn | 'invalid' | null {
  const msp = params.get(PORTAL_TOKEN_PARAM.msp);
  if (msp !== null) return { brand: 'msp', token: msp };
  const checkpoint = params.get(PORTAL_TOKEN_PARAM.checkpoint);
  if (checkpoint !== null) return { brand: 'checkpoint', token: checkpoint };
  const packed = params.get(PORTAL_PACKED_PARAM);
  const firewall = packed === null ? params : unpack(packed);
  if (firewall === null) return 'invalid';
  const token = firewall.get(PORTAL_TOKEN_PARAM.firewall);
  if (token === null) return packed === null ? null : 'invalid';
  const serial = firewall.get(PORTAL_SERIAL_PARAM);
  return serial ? { brand: 'firewall', token, serial } : 'invalid';
}

/**
 * Exchange the token for a session through its brand's call (SPEC §7): the msp brand's as a
 * multipart form to server_login (answered with text), the others as JSON to auto_login.
 */
export function portalLogin(signIn: PortalSignIn): Promise<unknown> {
  if (signIn.brand === 'msp') {
    const form = new FormData();
    form.set('token', signIn.token);
    return apiPost(AUTH_API.serverLogin, form, { textAnswer: true });
  }
  const body: AutoLoginRequest =
    signIn.brand === 'firewall'
      ? { session_id: signIn.token, serial_number: signIn.serial }
      : { session_id: signIn.token };
  return apiPost(AUTH_API.autoLogin, body, { schema: loginStepResponseSchema });
}
