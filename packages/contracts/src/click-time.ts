import { z } from 'zod/mini';
import { listQuerySchema } from './list.ts';

/**
 * Click-time protection (issue 36): links of delivered mail go through Moat, which judges each
 * click when it happens. `/l/<token>?u=<url>` is the rewritten link itself; the public calls serve
 * the warning and block pages; the console reads the clicks and sets the tenant's choices.
 */
export const CLICK_TIME_API = {
  /** GET (public) what the warning or block page shows for a link: `?t=<token>&u=<url>`. */
  check: '/api/v1/public/links/check',
  /** POST (public) `{ t, u }`: the reader goes on past a warning; answers the URL to open. */
  proceed: '/api/v1/public/links/continue',
  /** GET (admin) clicks, filtered: by message, recipient, host or URL ("who clicked"). */
  clicks: '/api/v1/clicks',
  /** GET and PUT (admin) the tenant's choices. */
  settings: '/api/v1/click-time/settings',
} as const;

/** The rewritten link's prefix on the public address (`/l/<token>?u=<url>`): a redirect, or the warning or block page. */
export const LINK_PATH_PREFIX = '/l/';

export const CLICK_VERDICTS = ['clean', 'suspicious', 'malicious'] as const;
export type ClickVerdict = (typeof CLICK_VERDICTS)[number];
/** What Moat did: sent the reader on, showed a warning, let the reader go on past it, or blocked it. */
export const CLICK_OUTCOMES = ['redirected', 'warned', 'continued', 'blocked'] as const;
export type ClickOutcome = (typeof CLICK_OUTCOMES)[number];

/** The public pages' question: the token and the URL of a rewritten link. */
export const linkCheckQuerySchema = z.object({
  t: z.string().check(z.minLength(1), z.maxLength(600)),
  u: z.string().check(z.minLength(1), z.maxLength(4_096)),
});
export type LinkCheckQuery = z.infer<typeof linkCheckQuerySchema>;

/** What the warning or block page shows: the real host written out, and why. */
export const linkCheckResponseSchema = z.object({
  verdict: z.enum(CLICK_VERDICTS),
  url: z.string(),
  host: z.string(),
  /** The host as a person reads it (IDN decoded), when that differs from `host`. */
  readableHost: z.string(),
  reasons: z.array(z.string()),
  /** A suspicious link whose tenant lets the reader go on. */
  canContinue: z.boolean(),
});
export type LinkCheckResponse = z.infer<typeof linkCheckResponseSchema>;

export const linkContinueResponseSchema = z.object({ url: z.string() });

export const clickTimeSettingsSchema = z.object({
  /** Links are rewritten in mail delivered with a verdict (a warning banner): on by default. */
  rewriteFlagged: z.boolean(),
  /** Links are rewritten in clean mail too: off by default. */
  rewriteClean: z.boolean(),
  /** A reader may go on past the warning of a suspicious link. */
  allowContinue: z.boolean(),
});
export type ClickTimeSettings = z.infer<typeof clickTimeSettingsSchema>;
export const DEFAULT_CLICK_TIME_SETTINGS: ClickTimeSettings = {
  rewriteFlagged: true,
  rewriteClean: false,
  allowContinue: true,
};

export const CLICK_SORTS = ['clicked_at', 'recipient', 'host'] as const;
export const clicksQuerySchema = z.extend(listQuerySchema(CLICK_SORTS, 'clicked_at'), {
  /** The message's inbound id (its trace). */
  message: z.optional(z.string().check(z.regex(/^[0-9a-f-]{36}$/i))),
  recipient: z.optional(z.string().check(z.maxLength(320))),
  /** A host: clicks on it and on its subdomains. */
  host: z.optional(z.string().check(z.maxLength(253))),
  /** A URL: clicks on links that start with it. */
  url: z.optional(z.string().check(z.maxLength(4_096))),
  outcome: z.optional(z.enum(CLICK_OUTCOMES)),
  /** Link scanners' visits too (they are left out unless asked for). */
  scanners: z.optional(z.enum(['true', 'false'])),
});
export type ClicksQuery = z.input<typeof clicksQuerySchema>;

export const clickSchema = z.object({
  id: z.string(),
  messageId: z.nullable(z.string()),
  recipient: z.string(),
  url: z.string(),
  host: z.string(),
  verdict: z.enum(CLICK_VERDICTS),
  outcome: z.enum(CLICK_OUTCOMES),
  reasons: z.array(z.string()),
  scanner: z.boolean(),
  userAgent: z.string(),
  clickedAt: z.string(),
});
export type Click = z.infer<typeof clickSchema>;

export const clicksResponseSchema = z.object({
  items: z.array(clickSchema),
  total: z.number(),
  /** Distinct people (recipients) among the matching clicks, scanners left out. */
  recipients: z.number(),
});
export type ClicksResponse = z.infer<typeof clicksResponseSchema>;
