import type { Config } from '../config.ts';
import { createAntiMalware } from './anti-malware.ts';
import { createAntiPhishing } from './anti-phishing.ts';
import { createAntiSpam } from './anti-spam.ts';
import type { Engine } from './types.ts';

/** The gateway's engines, in the order they run. */
export function createEngines(gateway: Config['gateway']): Engine[] {
  return [
    createAntiMalware({ blockedSha256: gateway.malwareSha256 }),
    createAntiPhishing({ urlBlocklist: gateway.urlBlocklist }),
    createAntiSpam({ rspamdUrl: gateway.rspamdUrl }),
  ];
}
