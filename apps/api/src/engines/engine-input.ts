import { linksOf } from '../mail/gateway/links.ts';
import { parseMessage } from '../mail/parse.ts';
import { DEFAULT_SPAM_THRESHOLDS, type EngineInput } from './types.ts';

/**
 * What an engine reads of a raw message outside the gateway (the detection benchmark, engine
 * tests): parsed, its links, no authentication results, a neutral SMTP session to one tenant.
 */
export async function engineInputOf(
  raw: Buffer,
  overrides: Partial<Omit<EngineInput, 'raw' | 'parsed' | 'links'>> = {},
): Promise<EngineInput> {
  const parsed = await parseMessage(raw);
  return {
    parsed,
    links: linksOf(parsed.html, parsed.text),
    auth: { spf: 'none', dkim: 'none', dmarc: 'none', authenticationResults: '' },
    raw,
    envelope: {
      mailFrom: parsed.fromAddress || 'bob@outside.example',
      clientIp: '192.0.2.1',
      helo: 'mx.outside.example',
      rcptTo: ['ana@acme.example'],
    },
    tenant: { domains: ['acme.example'], people: [] },
    spamThresholds: DEFAULT_SPAM_THRESHOLDS,
    ...overrides,
  };
}
