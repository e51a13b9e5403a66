import { isIP } from 'node:net';
import type { Engine, Finding } from './types.ts';

/** Characters attackers swap for look-alikes, folded to what they imitate. */
function foldHomoglyphs(value: string): string {
  return value
    .toLowerCase()
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w')
    .replace(/[0]/g, 'o')
    .replace(/[1!|]/g, 'l')
    .replace(/[i]/g, 'l')
    .replace(/5/g, 's')
    .replace(/3/g, 'e');
}

/** Edit distance with transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/** Whether `domain` imitates one of `own` without being it: a homoglyph or a typo away. */
export function lookalikeOf(domain: string, own: string[]): string | null {
  const candidate = domain.toLowerCase();
  for (const real of own) {
    if (candidate === real || candidate.endsWith(`.${real}`)) return null;
  }
  for (const real of own) {
    if (foldHomoglyphs(candidate) === foldHomoglyphs(real)) return real;
    const [label] = real.split('.');
    const [candidateLabel] = candidate.split('.');
    if (label && candidateLabel && label.length >= 5 && editDistance(candidateLabel, label) <= 1) {
      if (
        candidate.slice(candidateLabel.length) === real.slice(label.length) ||
        editDistance(candidate, real) <= 2
      ) {
        return real;
      }
    }
  }
  return null;
}

function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** The host a link's text names, when the text looks like an address (www.x.y, https://x.y/…). */
function hostNamedBy(text: string): string | null {
  const trimmed = text.trim();
  const match = /^(?:https?:\/\/)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[/:?#]\S*)?$/i.exec(trimmed);
  return match ? match[1]!.toLowerCase() : null;
}

const sameSite = (a: string, b: string) => a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);

/**
 * Anti-phishing: DMARC failure, display-name impersonation of the tenant's people from outside,
 * sender domains that imitate the tenant's, link text naming another host than the link, links to
 * IP addresses, and a URL blocklist (hosts or URL prefixes).
 */
export function createAntiPhishing(options: { urlBlocklist?: Iterable<string> } = {}): Engine {
  const blocklist = [...(options.urlBlocklist ?? [])].map((u) => u.trim().toLowerCase()).filter(Boolean);

  return {
    name: 'anti_phishing',
    version: '1.0.0',
    status: 'on',
    failClosed: true,
    async scan({ parsed, links, auth, tenant }) {
      const findings: Finding[] = [];
      const add = (verdict: Finding['verdict'], reason: string) =>
        findings.push({ engine: 'anti_phishing', verdict, reason });
      const fromDomain = parsed.fromAddress.split('@')[1] ?? '';
      const internal = tenant.domains.some((d) => fromDomain === d || fromDomain.endsWith(`.${d}`));

      if (auth.dmarc === 'fail') add('phishing', `DMARC failed for ${fromDomain}`);

      const lookalike = fromDomain ? lookalikeOf(fromDomain, tenant.domains) : null;
      if (lookalike) add('phishing', `Lookalike sender domain ${fromDomain} imitates ${lookalike}`);

      const name = parsed.fromName.trim().toLowerCase();
      if (!internal && name.length >= 3) {
        const person = tenant.people.find(
          (p) => p.name.trim().length >= 3 && p.name.trim().toLowerCase() === name,
        );
        if (person)
          add('phishing', `Display name "${parsed.fromName}" impersonates ${person.email} from outside`);
      }

      for (const link of links) {
        const host = hostOf(link.href);
        if (!host) continue;
        const bare = host.replace(/^\[|\]$/g, '');
        if (isIP(bare)) add('suspicious', `Link to an IP address: ${link.href.slice(0, 200)}`);
        const named = hostNamedBy(link.text);
        if (named && !sameSite(named, host))
          add('suspicious', `Link text names ${named} but leads to ${host}`);
        const href = link.href.toLowerCase();
        const listed = blocklist.find((entry) =>
          entry.includes('/') ? href.startsWith(entry) : sameSite(host, entry) && host.endsWith(entry),
        );
        if (listed) add('phishing', `Link to a blocklisted address: ${listed}`);
      }
      return dedupe(findings);
    },
  };
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.verdict}:${f.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
