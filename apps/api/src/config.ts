import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { type BlocklistZone, parseBlocklistZones } from './engines/dnsbl.ts';
import { rspamdControllerUrl } from './engines/rspamd.ts';
import { DEFAULT_WORK_LEASE_MS } from './lib/lease-keeper.ts';
import { nodeNameOf } from './lib/node-name.ts';
import { NEXT_HOP_NETWORKS, type NextHopNetworks } from './mail/next-hop.ts';
import { addressOn, isMailDomain } from './mail/sender.ts';

const port = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((value, ctx) => {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < 0 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from 0 to 65535 (got "${value}")` });
        return z.NEVER;
      }
      return n;
    });

const optionalUrl = (protocols: string[], example: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be a URL such as ${example} (got "${value}")` });
        return z.NEVER;
      }
      if (!protocols.includes(url.protocol)) {
        ctx.addIssue({
          code: 'custom',
          message: `must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${value}")`,
        });
        return z.NEVER;
      }
      return value;
    });

/** A whole number within [min, max], from a string variable. */
const wholeNumber = (fallback: number, min: number, max: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((value, ctx) => {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < min || n > max) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a whole number from ${min} to ${max} (got "${value}")`,
        });
        return z.NEVER;
      }
      return n;
    });

/** A comma-separated list (blank entries dropped). */
const commaList = (check: RegExp, what: string) =>
  z
    .string()
    .default('')
    .transform((value, ctx) => {
      const items = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
      const bad = items.find((item) => !check.test(item));
      if (bad) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a comma-separated list of ${what} (bad: "${bad}")`,
        });
        return z.NEVER;
      }
      return items;
    });

/** DNS blocklist zones, each with an optional `=verdict` (engines/dnsbl.ts). */
const blocklistZones = z
  .string()
  .default('')
  .transform((value, ctx) => {
    try {
      return parseBlocklistZones(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const existingFile = z
  .string()
  .optional()
  .refine((v) => !v || fs.existsSync(v), { message: 'must name a readable file' });

const envSchema = z.object({
  SMTP_HOSTNAME: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a host name')
    .optional(),
  /** The DNS servers Moat asks (SPF, DKIM, DMARC, Onboarding's checks); empty: the system's. */
  NEXT_HOP_NETWORKS: z.enum(NEXT_HOP_NETWORKS).default('public'),
  /** Where outbound mail may be delivered by MX: `public` (no private or loopback address) or `any`. */
  OUTBOUND_MX_NETWORKS: z.enum(NEXT_HOP_NETWORKS).default('public'),
  DNS_SERVERS: commaList(
    /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$|^[0-9a-fA-F:]+$/,
    'IP addresses, each with :port if not 53',
  ),
  /** DNS Change-Log: each domain's DNS records are polled at most this often (minutes). */
  DMARC_DNS_POLL_MINUTES: wholeNumber(60, 5, 10_080),
  SMTP_MAX_MESSAGE_BYTES: wholeNumber(26_214_400, 1_024, 157_286_400),
  SMTP_MAX_CONNECTIONS_PER_IP: wholeNumber(20, 1, 10_000),
  SMTP_MAX_MESSAGES_PER_MINUTE: wholeNumber(3_000, 1, 1_000_000),
  SMTP_PROCESSING_CONCURRENCY: wholeNumber(4, 1, 64),
  SMTP_TLS_KEY: existingFile,
  SMTP_TLS_CERT: existingFile,
  RSPAMD_URL: optionalUrl(['http:', 'https:'], 'http://127.0.0.1:11333'),
  /** rspamd's controller (learning); default: RSPAMD_URL's host on port 11334. */
  RSPAMD_CONTROLLER_URL: optionalUrl(['http:', 'https:'], 'http://127.0.0.1:11334'),
  RSPAMD_PASSWORD: z.string().optional(),
  /** SpamAssassin's spamd (SPAMC protocol) and ClamAV's clamd (INSTREAM): engines/spamd.ts, clamd.ts. */
  SPAMD_URL: optionalUrl(['spamd:', 'tcp:'], 'spamd://127.0.0.1:783'),
  CLAMD_URL: optionalUrl(['clamd:', 'tcp:', 'unix:'], 'clamd://127.0.0.1:3310 or unix:/run/clamav/clamd.ctl'),
  MALWARE_SHA256_BLOCKLIST: commaList(/^[0-9a-fA-F]{64}$/, 'SHA-256 hashes'),
  URL_BLOCKLIST: commaList(/^[^\s,]{3,500}$/, 'hosts or URL prefixes'),
  /** DNS blocklists (engines/dnsbl.ts): `zen.example,other.example=suspicious`; none: not asked. */
  DNSBL_ZONES: blocklistZones,
  URIBL_ZONES: blocklistZones,
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: port(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  SMTP_PORT: port(2525),
  /** Outbound submission (issue 38): 587 in production; `off` turns it off. */
  SUBMISSION_PORT: z
    .string()
    .default('2587')
    .transform((value, ctx) => {
      if (value === 'off') return null;
      const n = Number(value);
      if (!/^\d+$/.test(value) || n > 65535) {
        ctx.addIssue({ code: 'custom', message: `must be a port from 0 to 65535, or off (got "${value}")` });
        return z.NEVER;
      }
      return n;
    }),
  OUTBOUND_RELAY_URL: optionalUrl(['smtp:', 'smtps:'], 'smtp://smarthost.example:587'),
  /** The port of recipients' MX servers (25); only tests point it elsewhere. */
  OUTBOUND_MX_PORT: port(25),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:'], 'postgres://user@127.0.0.1:5432/moat'),
  PUBLIC_URL: optionalUrl(['http:', 'https:'], 'https://moat.example.com'),
  SMTP_RELAY_URL: optionalUrl(['smtp:', 'smtps:'], 'smtp://127.0.0.1:25'),
  ADMIN_EMAIL: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      if (!/^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(value)) {
        ctx.addIssue({ code: 'custom', message: `must be an email address (got "${value}")` });
        return z.NEVER;
      }
      return value.toLowerCase();
    }),
  ADMIN_PASSWORD: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || value.length >= 8, {
      message: 'must be at least 8 characters long',
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST_DIR: z.string().optional(),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, ctx) => {
      if (value === 'false' || value === '') return false;
      if (value === 'true') return true;
      if (/^[0-9a-fA-F.:/, ]+$/.test(value))
        return value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
      ctx.addIssue({
        code: 'custom',
        message: `must be false, true or a comma-separated list of proxy addresses (got "${value}")`,
      });
      return z.NEVER;
    }),
  RECAPTCHA_SITE_KEY: z.string().optional(),
  RECAPTCHA_SECRET_KEY: z.string().optional(),
  TURNSTILE_SITE_KEY: z.string().optional(),
  TURNSTILE_SECRET_KEY: z.string().optional(),
  CAPTCHA_DIFFICULTY: z
    .string()
    .default('1500')
    .transform((value, ctx) => {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < 1 || n > 1_000_000) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a whole number from 1 to 1000000 (got "${value}")`,
        });
        return z.NEVER;
      }
      return n;
    }),
  SECRET_KEY: z
    .string()
    .optional()
    .refine((v) => !v || /^[0-9a-f]{64,}$/i.test(v) || Buffer.from(v, 'base64').length >= 32, {
      message: 'must be at least 32 bytes, as 64 hex characters or base64',
    }),
  PORTAL_LOGIN_SECRET: z
    .string()
    .optional()
    .refine((v) => !v || Buffer.byteLength(v) >= 32, { message: 'must be at least 32 bytes long' }),
  MAINTENANCE_DOMAINS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const domains = value
        .split(',')
        .map((d) => d.trim().toLowerCase())
        .filter(Boolean);
      const bad = domains.find((d) => !/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(d));
      if (bad) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a comma-separated list of domains (bad: "${bad}")`,
        });
        return z.NEVER;
      }
      return domains;
    }),
  SUPPORT_EMAIL: z
    .string()
    .optional()
    .refine((v) => !v || /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+$/.test(v), {
      message: 'must be an email address',
    }),
  MAIL_FROM: z
    .string()
    .optional()
    .refine((v) => !v || /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+$/.test(v), {
      message: 'must be an email address',
    }),
  REDIS_URL: optionalUrl(['redis:', 'rediss:'], 'redis://127.0.0.1:6379'),
  NODE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be letters, digits, ".", "_", ":" or "-" (at most 100)')
    .optional(),
  /**
   * Lets a Prometheus read /metrics with `Authorization: Bearer <token>`. Unset, /metrics answers
   * only a direct loopback caller, and only when HOST is loopback (127.0.0.1, ::1, localhost).
   */
  METRICS_TOKEN: z
    .string()
    .optional()
    .refine((v) => !v || /^[\x21-\x7e]{16,}$/.test(v), {
      message: 'must be at least 16 printable characters without spaces',
    }),
  WORK_LEASE_SECONDS: wholeNumber(DEFAULT_WORK_LEASE_MS / 1_000, 5, 86_400),
  SMTP_RETRY_DAYS: wholeNumber(5, 1, 30),
});

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  smtpPort: number;
  /** Outbound submission's port (SUBMISSION_PORT); null: off. */
  submissionPort: number | null;
  /** The tenants' outbound mail goes through this smarthost instead of to the recipients' MX. */
  outboundRelayUrl: string | undefined;
  outboundMxPort: number;
  dataDir: string;
  databaseUrl: string | undefined;
  publicUrl: string;
  smtpRelayUrl: string | undefined;
  /** NEXT_HOP_NETWORKS: where an organisation's own next hop may be (mail/next-hop.ts). */
  nextHopNetworks: NextHopNetworks;
  /** OUTBOUND_MX_NETWORKS: which addresses MX delivery may connect to. */
  outboundMxNetworks: NextHopNetworks;
  /** DNS_SERVERS: the servers every lookup asks; empty: the system's resolver configuration. */
  dnsServers: string[];
  /** DMARC_DNS_POLL_MINUTES: how often the DNS Change-Log polls each domain's records. */
  dmarcDnsPollMinutes: number;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  logLevel: string;
  /** Whom to believe for the client address (X-Forwarded-For): false, true or proxy addresses. */
  trustProxy: boolean | string[];
  webDistDir: string;
  captcha: {
    provider: 'altcha' | 'recaptcha' | 'turnstile';
    siteKey: string | null;
    /** The server-side secret of reCAPTCHA or Turnstile. */
    secretKey: string | null;
    /** ALTCHA: the average number of tries the browser needs. */
    difficulty: number;
  };
  secretKey: string | undefined;
  /**
   * The secret a parent portal signs its sign-in tokens with (SPEC §3 "Auth tokens", see
   * modules/auth/portal-tokens.ts); without it only tokens issued by `auth:link` work.
   */
  portalLoginSecret: string | undefined;
  /** The provider's and its parent company's domains: the maintenance rule (SPEC §4, §6). */
  maintenanceDomains: string[];
  /** PUBLIC_URL was given (else it is http://localhost:PORT, which only this machine reaches). */
  publicUrlSet: boolean;
  /**
   * The deployment's sender of Moat's own mail: MAIL_FROM, or `no-reply@` PUBLIC_URL's host when
   * that is a mail domain; null when neither is (an IP address, localhost). A tenant's mail comes
   * from its own sender or domain first (mail/sender.ts).
   */
  mailFrom: string | null;
  /** MAIL_FROM was given: it comes before the tenants' domains. */
  mailFromSet: boolean;
  /**
   * Where "Contact support", licence contact and trial-extension requests go: SUPPORT_EMAIL, or
   * `support@` PUBLIC_URL's host when that is a mail domain; null: no support address is set.
   */
  supportEmail: string | null;
  gateway: {
    hostname: string;
    maxMessageBytes: number;
    maxConnectionsPerIp: number;
    maxMessagesPerMinute: number;
    /** Stored messages one node processes at once, each in its own transaction. */
    processingConcurrency: number;
    tls: { key: string; cert: string } | undefined;
    rspamdUrl: string | undefined;
    /** rspamd's workers: scanning (`url`) and learning (`controllerUrl`); undefined: RSPAMD_URL is not set. */
    rspamd: { url: string; controllerUrl: string; password: string | undefined } | undefined;
    spamdUrl: string | undefined;
    clamdUrl: string | undefined;
    malwareSha256: string[];
    urlBlocklist: string[];
    /** DNSBL_ZONES (the client address), URIBL_ZONES (links, sender domains), asked on DNS_SERVERS. */
    blocklists: { clientZones: BlocklistZone[]; uriZones: BlocklistZone[]; servers: string[] };
  };
  /** Cookies get `Secure` when the public URL is https. */
  secureCookies: boolean;
  /** Shared counters (rate limits, SMTP limits) of several nodes; without it, PostgreSQL or memory. */
  redisUrl: string | undefined;
  /** This node's name in work leases and logs: unique per process. */
  nodeName: string;
  /** METRICS_TOKEN: the bearer token a scraper shows for /metrics; undefined: loopback only, with HOST loopback. */
  metricsToken: string | undefined;
  /** How long claimed work (an inbound message, an outbound mail) is a node's before any node may take it over. */
  workLeaseMs: number;
  /** How long outbound mail is retried before it bounces. */
  smtpRetryWindowMs: number;
}

/** A configuration problem, told in one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Read and validate the configuration from the environment. Throws ConfigError on the first bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${variable} ${issue.message}`);
  }
  const e = parsed.data;
  const difficulty = e.CAPTCHA_DIFFICULTY;
  const captcha: Config['captcha'] = e.RECAPTCHA_SITE_KEY
    ? {
        provider: 'recaptcha',
        siteKey: e.RECAPTCHA_SITE_KEY,
        secretKey: e.RECAPTCHA_SECRET_KEY ?? null,
        difficulty,
      }
    : e.TURNSTILE_SITE_KEY
      ? {
          provider: 'turnstile',
          siteKey: e.TURNSTILE_SITE_KEY,
          secretKey: e.TURNSTILE_SECRET_KEY ?? null,
          difficulty,
        }
      : { provider: 'altcha', siteKey: null, secretKey: null, difficulty };
  if (captcha.provider !== 'altcha' && !captcha.secretKey) {
    const variable = captcha.provider === 'recaptcha' ? 'RECAPTCHA_SECRET_KEY' : 'TURNSTILE_SECRET_KEY';
    throw new ConfigError(`Invalid configuration: ${variable} is required with the site key`);
  }
  if (Boolean(e.SMTP_TLS_KEY) !== Boolean(e.SMTP_TLS_CERT)) {
    throw new ConfigError(
      `Invalid configuration: ${e.SMTP_TLS_KEY ? 'SMTP_TLS_CERT' : 'SMTP_TLS_KEY'} is required with the other one (STARTTLS needs both)`,
    );
  }
  if (e.DATABASE_URL && !e.SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration: SECRET_KEY is required with DATABASE_URL (every node of one database must share it: 64 hex characters, e.g. from `openssl rand -hex 32`; a node that ran alone before keeps its key in DATA_DIR/secret.key)',
    );
  }
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const publicHost = new URL(publicUrl).hostname;
  for (const [name, address] of [
    ['MAIL_FROM', e.MAIL_FROM],
    ['SUPPORT_EMAIL', e.SUPPORT_EMAIL],
  ] as const) {
    if (address && !isMailDomain(address.slice(address.lastIndexOf('@') + 1))) {
      throw new ConfigError(
        `Invalid configuration: ${name} must be an address on a mail domain, not an IP address or localhost (got "${address}")`,
      );
    }
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    smtpPort: e.SMTP_PORT,
    submissionPort: e.SUBMISSION_PORT,
    outboundRelayUrl: e.OUTBOUND_RELAY_URL,
    outboundMxPort: e.OUTBOUND_MX_PORT,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    publicUrl,
    publicUrlSet: Boolean(e.PUBLIC_URL),
    smtpRelayUrl: e.SMTP_RELAY_URL,
    dnsServers: e.DNS_SERVERS,
    dmarcDnsPollMinutes: e.DMARC_DNS_POLL_MINUTES,
    nextHopNetworks: e.NEXT_HOP_NETWORKS,
    outboundMxNetworks: e.OUTBOUND_MX_NETWORKS,
    adminEmail: e.ADMIN_EMAIL,
    adminPassword: e.ADMIN_PASSWORD || undefined,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? path.join(repoRoot, 'apps/web/dist')),
    captcha,
    secretKey: e.SECRET_KEY,
    portalLoginSecret: e.PORTAL_LOGIN_SECRET || undefined,
    maintenanceDomains: e.MAINTENANCE_DOMAINS,
    mailFrom: e.MAIL_FROM ?? addressOn('no-reply', publicHost),
    mailFromSet: Boolean(e.MAIL_FROM),
    supportEmail: e.SUPPORT_EMAIL ?? addressOn('support', publicHost),
    gateway: {
      hostname: e.SMTP_HOSTNAME ?? os.hostname(),
      maxMessageBytes: e.SMTP_MAX_MESSAGE_BYTES,
      maxConnectionsPerIp: e.SMTP_MAX_CONNECTIONS_PER_IP,
      maxMessagesPerMinute: e.SMTP_MAX_MESSAGES_PER_MINUTE,
      processingConcurrency: e.SMTP_PROCESSING_CONCURRENCY,
      tls: e.SMTP_TLS_KEY && e.SMTP_TLS_CERT ? { key: e.SMTP_TLS_KEY, cert: e.SMTP_TLS_CERT } : undefined,
      rspamdUrl: e.RSPAMD_URL,
      rspamd: e.RSPAMD_URL
        ? {
            url: e.RSPAMD_URL,
            controllerUrl: e.RSPAMD_CONTROLLER_URL ?? rspamdControllerUrl(e.RSPAMD_URL),
            password: e.RSPAMD_PASSWORD || undefined,
          }
        : undefined,
      spamdUrl: e.SPAMD_URL,
      clamdUrl: e.CLAMD_URL,
      malwareSha256: e.MALWARE_SHA256_BLOCKLIST,
      urlBlocklist: e.URL_BLOCKLIST,
      blocklists: { clientZones: e.DNSBL_ZONES, uriZones: e.URIBL_ZONES, servers: e.DNS_SERVERS },
    },
    secureCookies: publicUrl.startsWith('https:'),
    redisUrl: e.REDIS_URL,
    nodeName: nodeNameOf(e.NODE_NAME),
    metricsToken: e.METRICS_TOKEN || undefined,
    workLeaseMs: e.WORK_LEASE_SECONDS * 1_000,
    smtpRetryWindowMs: e.SMTP_RETRY_DAYS * 86_400_000,
  };
}
