import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/** RFC 6238: SHA-1, 6 digits, 30 s steps; a code is accepted within ±1 step. */
const PERIOD_S = 30;
const WINDOW = 1;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label: string, issuer: string) {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_S,
    secret: Secret.fromBase32(secret),
  });
}

/**
 * The time step of a valid code, or null. The caller refuses a step at or before the last one
 * it accepted for that user, so a code is never accepted twice.
 */
export function matchTotpStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret, 'x', 'x').validate({ token: code, timestamp: now.getTime(), window: WINDOW });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / PERIOD_S) + delta;
}

/** For tests and tools: the code of a secret at a moment. */
export function totpCode(secret: string, now: Date): string {
  return totp(secret, 'x', 'x').generate({ timestamp: now.getTime() });
}

export async function totpEnrolment(secret: string, email: string, issuer: string) {
  const otpauthUrl = totp(secret, email, issuer).toString();
  const qrCodeSrc = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 1, width: 220 });
  return { secret, otpauthUrl, qrCodeSrc };
}
