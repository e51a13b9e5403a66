import { createHmac, randomBytes } from 'node:crypto';
import { PORTAL_BRANDS, PORTAL_TOKEN_MAX_LENGTH } from '@moat/contracts/constants';
import { z } from 'zod';
import { safeEqual } from '../../lib/tokens.ts';

/**
 * A parent portal's signed sign-in token (SPEC §3 "Auth tokens"): the portal, which shares
 * PORTAL_LOGIN_SECRET with Moat, signs in one of its users without asking Moat first.
 *
 *   mpt1.<payload>.<signature>
 *   payload   = base64url of the JSON {"email", "brand", "serial"?, "exp", "jti"}
 *   signature = base64url of HMAC-SHA256(PORTAL_LOGIN_SECRET, "mpt1." + payload)
 *
 * `brand` is the way in the token is for (msp, checkpoint, firewall); a firewall token carries the
 * firewall's `serial` and is good only with it. `exp` (Unix seconds) is at most ten minutes
 * ahead; `jti` is a fresh random id, remembered until `exp` so that a token works once.
 */
export const PORTAL_TOKEN_PREFIX = 'mpt1.';
export const PORTAL_TOKEN_MAX_TTL_MS = 10 * 60_000;
/** How far ahead of Moat's clock a portal's clock may run. */
const CLOCK_SKEW_MS = 60_000;

const claimsSchema = z
  .object({
    email: z.string().trim().toLowerCase().email().max(254),
    brand: z.enum(PORTAL_BRANDS),
    serial: z.string().trim().min(1).max(100).optional(),
    exp: z.number().int().positive(),
    jti: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/),
  })
  .strict()
  .refine((c) => (c.brand === 'firewall') === (c.serial !== undefined), {
    message: 'a firewall token, and only it, names a serial number',
  });
export type PortalClaims = z.infer<typeof claimsSchema>;

const sign = (secret: string, signed: string) =>
  createHmac('sha256', secret).update(signed).digest('base64url');

/** What a parent portal does (and the tests, and the README's example). */
export function signPortalToken(
  secret: string,
  claims: Omit<PortalClaims, 'jti'> & { jti?: string },
): string {
  const payload = Buffer.from(
    JSON.stringify({ ...claims, jti: claims.jti ?? randomBytes(16).toString('base64url') }),
  ).toString('base64url');
  return `${PORTAL_TOKEN_PREFIX}${payload}.${sign(secret, `${PORTAL_TOKEN_PREFIX}${payload}`)}`;
}

/**
 * The claims of a well-signed, live token, or null. The signature is checked over the token's
 * own text before anything in it is read; the caller still has to make the token single-use
 * (by its `jti`, never by its text).
 */
export function readPortalToken(secret: string, token: string, now: Date): PortalClaims | null {
  if (token.length > PORTAL_TOKEN_MAX_LENGTH || !token.startsWith(PORTAL_TOKEN_PREFIX)) return null;
  const [payload, signature, ...rest] = token.slice(PORTAL_TOKEN_PREFIX.length).split('.');
  if (!payload || !signature || rest.length > 0) return null;
  if (!safeEqual(signature, sign(secret, `${PORTAL_TOKEN_PREFIX}${payload}`))) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = claimsSchema.safeParse(json);
  if (!parsed.success) return null;
  const expiresAt = parsed.data.exp * 1000;
  const live = expiresAt > now.getTime();
  const shortLived = expiresAt <= now.getTime() + PORTAL_TOKEN_MAX_TTL_MS + CLOCK_SKEW_MS;
  return live && shortLived ? parsed.data : null;
}
