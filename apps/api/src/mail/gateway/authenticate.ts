import { authenticate } from 'mailauth';
import type { AuthSummary } from '../../engines/types.ts';
import type { DnsResolver } from './dns-cache.ts';

/** What SPF, DKIM and DMARC are checked against: the SMTP session of the message. */
export interface AuthInput {
  ip: string;
  helo: string;
  sender: string;
  /** This gateway's name in the Authentication-Results header. */
  mta: string;
}

/**
 * mailauth's results as short words, and the Authentication-Results lines to add; any fault is a
 * temperror of all three (the policy then judges without them). Runs on whichever thread.
 */
export async function authSummary(
  raw: Uint8Array,
  input: AuthInput,
  resolver?: DnsResolver,
): Promise<AuthSummary> {
  try {
    const result = (await authenticate(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), {
      ip: input.ip,
      helo: input.helo,
      sender: input.sender,
      mta: input.mta,
      // BIMI (a logo for the mail client) decides nothing here: no DNS question for it per message.
      disableBimi: true,
      ...(resolver ? { resolver } : {}),
    })) as {
      spf?: { status?: { result?: string } } | false;
      dkim?: { results?: Array<{ status?: { result?: string } }> };
      dmarc?: { status?: { result?: string } } | false;
      headers?: string;
    };
    const dkim = result.dkim?.results?.map((r) => r.status?.result ?? 'none') ?? [];
    return {
      spf: (result.spf || undefined)?.status?.result || 'none',
      dkim: dkim.includes('pass') ? 'pass' : (dkim[0] ?? 'none'),
      dmarc: (result.dmarc || undefined)?.status?.result || 'none',
      authenticationResults: result.headers ?? '',
    };
  } catch {
    return temperror(input.mta);
  }
}

export function temperror(mta: string): AuthSummary {
  return {
    spf: 'temperror',
    dkim: 'temperror',
    dmarc: 'temperror',
    authenticationResults: `Authentication-Results: ${mta}; spf=temperror; dkim=temperror; dmarc=temperror\r\n`,
  };
}
