import { createRspamdEngine } from './rspamd.ts';
import type { Engine } from './types.ts';

/**
 * Anti-spam through rspamd (see rspamd.ts) when RSPAMD_URL is set; otherwise off and shown as off.
 * An unreachable rspamd adds no finding (the message is not held on a guess) and is logged by the
 * caller through the thrown error.
 */
export function createAntiSpam(options: {
  rspamdUrl?: string | undefined;
  controllerUrl?: string | undefined;
  password?: string | undefined;
  timeoutMs?: number;
}): Engine {
  if (!options.rspamdUrl) {
    return {
      name: 'rspamd',
      tool: 'anti_spam',
      version: 'rspamd',
      status: 'off',
      detail: 'RSPAMD_URL is not set',
      failClosed: false,
      scan: async () => [],
    };
  }
  return createRspamdEngine({ ...options, url: options.rspamdUrl });
}
