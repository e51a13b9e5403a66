import { createHmac } from 'node:crypto';
import type { ServerKey } from './server-key.ts';
import { safeEqual } from './tokens.ts';

/**
 * A cookie holding a short list of entries, signed with a key derived from the server key for
 * `purpose`: `base64url(JSON).mac`. A forged, damaged or foreign cookie reads as empty; entries
 * `live` says are over are dropped on reading; `write` keeps the newest `max`.
 */
export function signedListCookie<Entry>(
  serverKey: Pick<ServerKey, 'derive'>,
  purpose: string,
  options: { max: number; live: (entry: Entry, now: Date) => boolean },
) {
  const key = serverKey.derive(purpose);
  const mac = (text: string) => createHmac('sha256', key).update(text).digest('base64url');
  return {
    mac,
    read(cookie: string | undefined | null, now: Date): Entry[] {
      if (!cookie) return [];
      const [body, signature] = cookie.split('.');
      if (!body || !signature || !safeEqual(signature, mac(body))) return [];
      try {
        const entries = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Entry[];
        return Array.isArray(entries) ? entries.filter((e) => options.live(e, now)) : [];
      } catch {
        return [];
      }
    },
    write(entries: Entry[]): string {
      const body = Buffer.from(JSON.stringify(entries.slice(-options.max))).toString('base64url');
      return `${body}.${mac(body)}`;
    },
  };
}
