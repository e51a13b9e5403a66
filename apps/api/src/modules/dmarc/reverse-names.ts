import { isIP } from 'node:net';

/** Asks DNS one question: the answers, or an error with a c-ares code. */
export type PtrResolver = (name: string, rrtype: 'PTR') => Promise<unknown>;

/** A name is kept this long once found (or found missing); a failed lookup is asked again sooner. */
const KEEP_MS = 60 * 60_000;
const KEEP_FAILED_MS = 5 * 60_000;
const MAX_KEPT = 20_000;
/** Lookups under way at once, and the most one request may wait for them. */
const AT_ONCE = 10;
const WAIT_MS = 2_000;

/** The `in-addr.arpa` / `ip6.arpa` name of an address (RFC 1035 §3.5, RFC 3596 §2.5); null when it is not one. */
export function arpaNameOf(ip: string): string | null {
  const version = isIP(ip);
  if (version === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  if (version !== 6) return null;
  // Expand "::" and each group to four hex digits, then one nibble per label, lowest first.
  const [head = '', tail] = ip.toLowerCase().split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  if (left.some((g) => g.includes('.')) || right.some((g) => g.includes('.'))) return null;
  const full = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const nibbles = full.map((g) => g.padStart(4, '0')).join('');
  return `${[...nibbles].reverse().join('.')}.ip6.arpa`;
}

/**
 * The reverse names of the sources the reports name (the Explorer shows them beside each
 * address): asked of DNS_SERVERS a few at a time, each answer kept an hour. A request waits at
 * most two seconds; a name not known by then is null now and there on the next look.
 */
export function createReverseNames(deps: { resolve: PtrResolver; now?: () => number }) {
  const now = deps.now ?? Date.now;
  const kept = new Map<string, { name: string | null; until: number }>();
  const pending = new Map<string, Promise<void>>();

  const lookUp = (ip: string, arpa: string) => {
    const started = deps.resolve(arpa, 'PTR').then(
      (answer) => {
        const first = Array.isArray(answer) ? answer.find((n) => typeof n === 'string') : undefined;
        remember(ip, typeof first === 'string' ? first.replace(/\.$/, '').toLowerCase() : null, KEEP_MS);
      },
      (error: { code?: string }) => {
        const none = error?.code === 'ENOTFOUND' || error?.code === 'ENODATA';
        remember(ip, null, none ? KEEP_MS : KEEP_FAILED_MS);
      },
    );
    const done = started.finally(() => pending.delete(ip));
    pending.set(ip, done);
    return done;
  };

  const remember = (ip: string, name: string | null, ms: number) => {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(ip, { name, until: now() + ms });
  };

  return {
    async namesOf(ips: readonly string[]): Promise<Record<string, string | null>> {
      const wanted = [...new Set(ips)];
      const asked: Promise<void>[] = [];
      const queue = wanted.filter((ip) => {
        const hit = kept.get(ip);
        if (hit && hit.until > now()) return false;
        const under = pending.get(ip);
        if (under) asked.push(under);
        return !under && arpaNameOf(ip) !== null;
      });
      // A few at a time; what is left when the wait ends keeps going for the next look.
      const run = (async () => {
        for (let at = 0; at < queue.length; at += AT_ONCE)
          await Promise.all(queue.slice(at, at + AT_ONCE).map((ip) => lookUp(ip, arpaNameOf(ip)!)));
      })();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([run, ...asked]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, WAIT_MS);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
      return Object.fromEntries(wanted.map((ip) => [ip, kept.get(ip)?.name ?? null]));
    },
  };
}
export type ReverseNames = ReturnType<typeof createReverseNames>;
