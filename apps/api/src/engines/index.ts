import type { Config } from '../config.ts';
import { createAntiMalware } from './anti-malware.ts';
import { createAntiPhishing } from './anti-phishing.ts';
import { createAntiSpam } from './anti-spam.ts';
import { createClamd } from './clamd.ts';
import { createDnsbl, type Dnsbl, type DnsblOptions } from './dnsbl.ts';
import { createScanPool } from './scan-pool.ts';
import { createEmbeddedSpam, type EmbeddedSpamOptions } from './spam/embedded.ts';
import { createSpamd } from './spamd.ts';
import type { Engine } from './types.ts';

/**
 * The gateway's engines, in the order they run, and its DNS blocklists apart (click-time
 * protection asks them about a link when it is clicked).
 */
export function createEngines(
  gateway: Config['gateway'],
  spam: EmbeddedSpamOptions = {},
  deps: Pick<DnsblOptions, 'clock' | 'log'> = {},
): { engines: Engine[]; blocklists: Dnsbl } {
  // One worker: the machine's other core serves the event loop; large archives are rare.
  const pool = createScanPool(1);
  const clamd = createClamd({ url: gateway.clamdUrl });
  // The console lists clamd's own version (its signatures' too) once it answers.
  if (clamd.status === 'on') void clamd.queryVersion().catch(() => undefined);
  const blocklists = createDnsbl({ ...gateway.blocklists, ...deps });
  const engines = [
    createAntiMalware({ blockedSha256: gateway.malwareSha256, offThread: pool.scan }),
    createAntiPhishing({ urlBlocklist: gateway.urlBlocklist }),
    clamd,
    createEmbeddedSpam(spam),
    createAntiSpam({
      rspamdUrl: gateway.rspamd?.url,
      controllerUrl: gateway.rspamd?.controllerUrl,
      password: gateway.rspamd?.password,
    }),
    createSpamd({ url: gateway.spamdUrl }),
    blocklists,
  ];
  return { engines, blocklists };
}
