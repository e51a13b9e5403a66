import type { AuthSummary } from '../../engines/types.ts';
import { packageOnFirstUse } from '../../lib/on-first-use.ts';
import type { DnsResolver } from './dns-cache.ts';

const mailauth = packageOnFirstUse<typeof import('mailauth')>('mailauth');

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
    const { authenticate } = await mailauth();
    const result = (await authenticate(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), {
      ip: input.ip,
      helo: input.helo,
      sender: input.sender,
      mta: input.mta,
      // BIMI (a logo for the mail client) decides nothing here: no DNS question for it per message.
      disableBimi: true,
      ...(resolver ? { resolver } : {}),
    })) as {
      spf?: Checked | false;
      dkim?: { results?: Checked[] };
      dmarc?: Checked | false;
      headers?: string;
    };
    const dkimResults = result.dkim?.results ?? [];
    const dkimChosen = dkimResults.find((r) => r.status?.result === 'pass') ?? dkimResults[0];
    const spf = (result.spf || undefined)?.status?.result || 'none';
    const dkim = dkimChosen?.status?.result ?? 'none';
    const dmarc = (result.dmarc || undefined)?.status?.result || 'none';
    return {
      spf,
      dkim,
      dmarc,
      authenticationResults: result.headers ?? '',
      checks: {
        spf: { result: spf, reason: reasonOf(result.spf || undefined, 'no SPF record checked') },
        dkim: { result: dkim, reason: reasonOf(dkimChosen, 'the message has no DKIM signature') },
        dmarc: { result: dmarc, reason: reasonOf(result.dmarc || undefined, 'no DMARC policy checked') },
      },
    };
  } catch {
    return temperror(input.mta);
  }
}

/** A mailauth result: its word, its comment, and its Authentication-Results clause. */
interface Checked {
  status?: { result?: string; comment?: string };
  info?: string;
}

/** Longest reason kept per check (the Authentication-Results clause with its comment). */
const REASON_MAX = 300;

/** mailauth's words for a result: its Authentication-Results clause, else its comment. */
function reasonOf(checked: Checked | undefined, otherwise: string): string {
  const text = (checked?.info || checked?.status?.comment || '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
  return (text || otherwise).slice(0, REASON_MAX);
}

export function temperror(mta: string): AuthSummary {
  const reason = {
    result: 'temperror',
    reason: 'authentication could not be checked (a DNS or parsing fault)',
  };
  return {
    checks: { spf: reason, dkim: reason, dmarc: reason },
    spf: 'temperror',
    dkim: 'temperror',
    dmarc: 'temperror',
    authenticationResults: `Authentication-Results: ${mta}; spf=temperror; dkim=temperror; dmarc=temperror\r\n`,
  };
}
