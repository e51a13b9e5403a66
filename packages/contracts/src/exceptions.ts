import { z } from 'zod/mini';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder } from './list.ts';
import { noNul } from './validation.ts';

/**
 * Security Settings → Exceptions (SPEC §2.4, issue 11): a tenant's allow and block entries for
 * senders, domains, IP ranges, URLs and attachment SHA-256, each filed under one engine's page
 * (or all of them). The gateway applies them to every message; an allow entry counts only for a
 * sender whose domain is authenticated.
 */
export const EXCEPTIONS_API = {
  /** GET the list, POST a new entry. */
  entries: '/api/v1/exceptions',
  entry: '/api/v1/exceptions/:id',
  /** The list as CSV (its filters and sort). */
  export: '/api/v1/exceptions/export',
  /** POST a CSV file's text: every row is checked; nothing is imported unless all are good. */
  import: '/api/v1/exceptions/import',
} as const;

export const EXCEPTION_LISTS = ['allow', 'block'] as const;
export type ExceptionList = (typeof EXCEPTION_LISTS)[number];
export const EXCEPTION_KINDS = ['sender', 'domain', 'ip_range', 'url', 'sha256'] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];
/**
 * The Exceptions pages, one per engine this edition has; `all` is an entry for every engine. New
 * entries are filed under one of these only.
 */
export const EXCEPTION_SCOPES = [
  'all',
  'anti_phishing',
  'anti_malware',
  'anti_spam',
  'url_reputation',
  /** Click-Time (issue 36): hosts and URLs never rewritten (allow) or always blocked at the click (block). */
  'click_time',
  /**
   * DLP (issue 38), the tenant's outbound mail only: mail from or to an allowed address or domain
   * is not checked for sensitive data; mail from or to a blocked one is refused.
   */
  'dlp',
] as const;
export type ExceptionScope = (typeof EXCEPTION_SCOPES)[number];
/**
 * Pages of engines this edition does not have (Anomaly). Entries stored under them earlier are
 * kept as they were and still count as they did: listed on the Exceptions page, deletable, never
 * added anew.
 */
export const RETIRED_EXCEPTION_SCOPES = ['anomaly'] as const;
export const STORED_EXCEPTION_SCOPES = [...EXCEPTION_SCOPES, ...RETIRED_EXCEPTION_SCOPES] as const;
export type StoredExceptionScope = (typeof STORED_EXCEPTION_SCOPES)[number];

export const EXCEPTION_COMMENT_MAX = 500;
/**
 * The most IP-range entries an organisation may have: the gateway checks every range against each
 * message's client address, so their number bounds the work per message.
 */
export const EXCEPTION_IP_RANGES_MAX = 1_000;
/** The longest value of an entry, as typed and as stored once normalised. */
export const EXCEPTION_VALUE_MAX = 2_000;
/** Rows one CSV import may hold. */
export const EXCEPTION_IMPORT_MAX_ROWS = 5_000;

/** The CSV columns of export and import, in this order. */
export const EXCEPTION_CSV_HEADER = [
  'list',
  'kind',
  'scope',
  'value',
  'comment',
  'expires_at',
  'created_by',
  'created_at',
] as const;

type Checked = { ok: true; value: string } | { ok: false; message: string };

/** A domain name, IDN turned into punycode (as the URL parser does), lower-case; null if not one. */
function asciiDomain(raw: string): string | null {
  const name = raw.trim().replace(/\.$/, '');
  if (name === '' || name.length > 253 || /[\s/@:?#[\]\\%]/.test(name)) return null;
  let host: string;
  try {
    host = new URL(`http://${name}/`).hostname;
  } catch {
    return null;
  }
  const labels = host.split('.');
  if (labels.length < 2) return null;
  if (!labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) return null;
  // Not an IP address written as a domain.
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? '')) return null;
  return host;
}

function ipv4(raw: string): number[] | null {
  const parts = raw.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^(0|[1-9][0-9]{0,2})$/.test(p) ? Number(p) : Number.NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

/** An IPv6 address in its canonical (compressed, lower-case) form; null if not one. */
function ipv6(raw: string): string | null {
  if (!/^[0-9a-fA-F:.]+$/.test(raw) || !raw.includes(':')) return null;
  try {
    return new URL(`http://[${raw}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

/**
 * The stored form of an entry's value, or why it cannot be one: an address or domain lower-case
 * with its domain in punycode, an IP range as CIDR (a bare address is a range of one), a URL
 * normalised (http or https, lower-case host, no fragment), a SHA-256 as 64 lower-case hex digits.
 * The web checks a value as it is typed with the same function.
 */
export function normalizeExceptionValue(kind: ExceptionKind, raw: string): Checked {
  const value = raw.trim();
  if (value === '') return { ok: false, message: 'Enter a value' };
  if (value.length > EXCEPTION_VALUE_MAX || !noNul(value))
    return { ok: false, message: 'The value is too long' };
  switch (kind) {
    case 'sender': {
      const at = value.lastIndexOf('@');
      const local = value.slice(0, at).toLowerCase();
      const domain = at > 0 ? asciiDomain(value.slice(at + 1)) : null;
      if (!domain || !/^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/.test(local)) {
        return { ok: false, message: 'Enter an email address, such as name@example.com' };
      }
      return { ok: true, value: `${local}@${domain}` };
    }
    case 'domain': {
      const domain = asciiDomain(value.replace(/^\*\./, ''));
      return domain
        ? { ok: true, value: domain }
        : { ok: false, message: 'Enter a domain, such as example.com' };
    }
    case 'ip_range': {
      const [address = '', bits, ...rest] = value.split('/');
      const message = 'Enter an IP address or range in CIDR form, such as 192.0.2.0/24 or 2001:db8::/32';
      if (rest.length > 0 || (bits !== undefined && !/^[0-9]{1,3}$/.test(bits)))
        return { ok: false, message };
      const v4 = ipv4(address);
      if (v4) {
        const prefix = bits === undefined ? 32 : Number(bits);
        return prefix <= 32 ? { ok: true, value: `${v4.join('.')}/${prefix}` } : { ok: false, message };
      }
      const v6 = ipv6(address);
      if (v6) {
        const prefix = bits === undefined ? 128 : Number(bits);
        return prefix <= 128 ? { ok: true, value: `${v6}/${prefix}` } : { ok: false, message };
      }
      return { ok: false, message };
    }
    case 'url': {
      const message = 'Enter a web address starting with http:// or https://';
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return { ok: false, message };
      }
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
        return { ok: false, message };
      }
      url.hash = '';
      url.username = '';
      url.password = '';
      // Normalising can lengthen it (percent-encoding, punycode): the stored form is what counts.
      if (url.href.length > EXCEPTION_VALUE_MAX) return { ok: false, message: 'The web address is too long' };
      return { ok: true, value: url.href };
    }
    case 'sha256':
      return /^[0-9a-fA-F]{64}$/.test(value)
        ? { ok: true, value: value.toLowerCase() }
        : { ok: false, message: 'Enter a SHA-256 hash: 64 hexadecimal digits' };
  }
}

export const EXCEPTION_SORTS = ['created_at', 'value', 'kind', 'expires_at'] as const;
export type ExceptionSort = (typeof EXCEPTION_SORTS)[number];

export const exceptionQuerySchema = z
  .extend(listQuerySchema(EXCEPTION_SORTS, 'created_at'), {
    list: z.optional(z.enum(EXCEPTION_LISTS)),
    kind: z.optional(z.enum(EXCEPTION_KINDS)),
    /** One page's entries: those of that scope and those for every engine (`all`). */
    scope: z.optional(z.enum(EXCEPTION_SCOPES)),
    /** Expired entries are listed too (they count for nothing). */
    include_expired: z.optional(z.enum(['true', 'false'])),
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type ExceptionQuery = z.input<typeof exceptionQuerySchema>;

export const exceptionEntrySchema = z.object({
  id: z.string(),
  list: z.enum(EXCEPTION_LISTS),
  kind: z.enum(EXCEPTION_KINDS),
  scope: z.enum(STORED_EXCEPTION_SCOPES),
  value: z.string(),
  comment: z.string(),
  /** The admin's email, or `cli`. */
  created_by: z.string(),
  created_at: z.string(),
  expires_at: z.nullable(z.string()),
  expired: z.boolean(),
});
export type ExceptionEntry = z.infer<typeof exceptionEntrySchema>;

export const exceptionListSchema = z
  .object({ items: z.array(exceptionEntrySchema), total: z.int() })
  .register(z.globalRegistry, { id: 'ExceptionList' });
export type ExceptionListResponse = z.infer<typeof exceptionListSchema>;

export const createExceptionBodySchema = z.object({
  list: z.enum(EXCEPTION_LISTS),
  kind: z.enum(EXCEPTION_KINDS),
  scope: z._default(z.enum(EXCEPTION_SCOPES), 'all'),
  value: z.string().check(z.maxLength(2_000)),
  comment: z._default(
    z
      .string()
      .check(
        z.trim(),
        z.maxLength(EXCEPTION_COMMENT_MAX),
        z.refine(noNul, 'must not contain a NUL character'),
      ),
    '',
  ),
  /** When the entry stops counting; must be in the future. */
  expires_at: z.optional(z.nullable(z.iso.datetime({ offset: true }))),
});
export type CreateExceptionBody = z.input<typeof createExceptionBodySchema>;

export const exceptionIdParamsSchema = z.object({ id: z.uuid() });

export const importExceptionsBodySchema = z.object({
  /** The file's text, with the header row of EXCEPTION_CSV_HEADER (created_by and created_at are ignored). */
  csv: z.string().check(z.maxLength(2 * 1024 * 1024)),
});
export const importExceptionsResultSchema = z.object({ imported: z.int() });
export type ImportExceptionsResult = z.infer<typeof importExceptionsResultSchema>;

export const deleteExceptionResultSchema = z.object({ deleted: z.literal(true) });
