import type { ExceptionKind, ExceptionScope } from '@moat/contracts/exceptions';
import { ROUTES } from '@moat/contracts/routes';

/** Security Settings → Exceptions and its pages (SPEC §2.4), each showing the entries of one engine. */
export const EXCEPTIONS_PATH = `${ROUTES.configuration}/security-exceptions`;

export const SCOPE_PATHS: Record<Exclude<ExceptionScope, 'all'>, string> = {
  anti_phishing: `${EXCEPTIONS_PATH}/anti-phishing`,
  anti_malware: `${EXCEPTIONS_PATH}/external/anti-malware`,
  anti_spam: `${EXCEPTIONS_PATH}/spam-exceptions`,
  url_reputation: `${EXCEPTIONS_PATH}/external/url-reputation`,
  click_time: `${EXCEPTIONS_PATH}/clicktime-protection-list-management`,
  dlp: `${EXCEPTIONS_PATH}/external/dlp`,
};

/**
 * The page's scope: the Exceptions page itself lists every engine's entries ('all'), and so does
 * an address of a page this edition does not have (an old link to Anomaly).
 */
export function scopeOfPath(pathname: string): ExceptionScope {
  const path = pathname.replace(/\/+$/, '');
  for (const [scope, scopePath] of Object.entries(SCOPE_PATHS)) {
    if (path === scopePath || path.startsWith(`${scopePath}/`)) return scope as ExceptionScope;
  }
  return 'all';
}

/** The kind a page offers first when an entry is added. */
export const DEFAULT_KIND: Record<ExceptionScope, ExceptionKind> = {
  all: 'sender',
  anti_phishing: 'sender',
  anti_malware: 'sha256',
  anti_spam: 'domain',
  url_reputation: 'url',
  click_time: 'domain',
  dlp: 'sender',
};
