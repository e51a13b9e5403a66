/*
 * Link scanners (issue 36): the security gateways and mail services that open every link of a
 * message before its reader does — Microsoft's Safe Links and Exchange Online Protection,
 * Proofpoint URL Defense, Mimecast URL Protect, Barracuda, Cisco, Trend Micro, Sophos, Google's
 * and Apple's link previews — and the chat and social previews a link pasted elsewhere gets.
 * Their visits are recorded as scanners', never as a person's click, and never carry a "continue".
 */

/** Words of the User-Agent only scanners, crawlers, previews and scripts send. */
const SCANNER_AGENT =
  /\b(?:bot|crawler|spider|scan(?:ner)?|preview|prefetch|fetcher|monitor|headless|phantomjs|python|curl|wget|libwww|httpclient|okhttp|go-http-client|java\/|axios|node-fetch|undici|aiohttp|powershell|safelinks|safe links|urldefense|proofpoint|mimecast|barracuda|ironport|cisco|trend ?micro|sophos|fortiguard|forcepoint|symantec|messagelabs|zscaler|paloalto|checkpoint|avanan|microsoft office existence|ms-office|skype|teams|whatsapp|telegram|slack|discord|facebookexternalhit|linkedin|twitter|google-safety|googleimageproxy|apple-?mail-?preview)\b/i;

export interface VisitSignals {
  method: string;
  userAgent: string;
  acceptLanguage: string | undefined;
  accept: string | undefined;
  /** `Sec-Fetch-Mode` / `Purpose` / `X-Purpose` headers a browser's own prefetch sends. */
  purpose: string | undefined;
}

/**
 * Whether a visit is a link scanner's: a HEAD or other non-GET request, a prefetch, no
 * User-Agent, a scanner's or a script's User-Agent, or a visit without the languages and types
 * every browser sends with a navigation.
 */
export function isLinkScanner(visit: VisitSignals): boolean {
  if (visit.method !== 'GET') return true;
  if (visit.purpose && /prefetch|preview|prerender/i.test(visit.purpose)) return true;
  const agent = visit.userAgent.trim();
  if (agent === '' || SCANNER_AGENT.test(agent)) return true;
  if (!/^Mozilla\/5\.0 \(/.test(agent)) return true;
  return !visit.acceptLanguage || !visit.accept;
}
