import type { Engine } from './types.ts';

const SPAM_ACTIONS = new Set(['reject', 'add header', 'rewrite subject', 'soft reject']);

/**
 * Anti-spam through rspamd's HTTP API (`POST /checkv2`) when RSPAMD_URL is set; otherwise off and
 * shown as off. An unreachable rspamd adds no finding (the message is not held on a guess) and is
 * logged by the caller through the thrown error.
 */
export function createAntiSpam(options: { rspamdUrl?: string | undefined; timeoutMs?: number }): Engine {
  if (!options.rspamdUrl) {
    return {
      name: 'anti_spam',
      tool: 'anti_spam',
      version: 'rspamd',
      status: 'off',
      detail: 'RSPAMD_URL is not set',
      failClosed: false,
      scan: async () => [],
    };
  }
  const url = new URL('/checkv2', options.rspamdUrl).toString();
  return {
    name: 'anti_spam',
    tool: 'anti_spam',
    version: 'rspamd',
    status: 'on',
    failClosed: false,
    async scan({ raw, envelope }) {
      const res = await fetch(url, {
        method: 'POST',
        body: new Uint8Array(raw),
        headers: {
          IP: envelope.clientIp,
          Helo: envelope.helo || 'unknown',
          From: envelope.mailFrom,
          ...Object.fromEntries(envelope.rcptTo.map((r, i) => [`Rcpt${i ? `-${i}` : ''}`, r])),
        },
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      if (!res.ok) throw new Error(`rspamd answered ${res.status}`);
      const body = (await res.json()) as { action?: string; score?: number; required_score?: number };
      if (body.action && SPAM_ACTIONS.has(body.action)) {
        return [
          {
            engine: 'anti_spam',
            verdict: 'spam',
            reason: `rspamd: ${body.action} (score ${body.score ?? '?'} of ${body.required_score ?? '?'})`,
          },
        ];
      }
      return [];
    },
  };
}
