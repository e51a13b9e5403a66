import { z } from 'zod/mini';

/**
 * Retraction (issue 36 §2, post-delivery remediation): mail Moat delivered and later found bad is
 * pulled back out of the recipients' mailboxes over IMAP, through a master (admin) user of the
 * tenant's mail server, and shown in Moat's quarantine as retracted. Admins only.
 */
export const RETRACTION_API = {
  /** GET the tenant's mailbox connection (never its password), PUT it. */
  connection: '/api/v1/retraction/connection',
  /** POST: log in as one mailbox through the master user and say what failed, if anything. */
  connectionTest: '/api/v1/retraction/connection/test',
  /** GET the latest retractions; POST retracts every delivered copy of one message. */
  retractions: '/api/v1/retractions',
  /** GET one retraction with what was found where, copy by copy. */
  retraction: '/api/v1/retractions/:id',
  /** POST: the delivered mail a search matches (count and the first rows), nothing changed. */
  preview: '/api/v1/retractions/preview',
  /** POST: retract every delivered copy the same search matches. */
  bulk: '/api/v1/retractions/bulk',
} as const;

export const retractionPath = (id: string) =>
  RETRACTION_API.retraction.replace(':id', encodeURIComponent(id));

/** How Moat reaches the IMAP server: implicit TLS (993), STARTTLS (143), or plain (loopback only). */
export const IMAP_TLS_MODES = ['tls', 'starttls', 'none'] as const;
export type ImapTlsMode = (typeof IMAP_TLS_MODES)[number];
/** What becomes of a copy found: moved to the quarantine folder, or deleted (expunged). */
export const RETRACTION_ACTIONS = ['move', 'delete'] as const;
export type RetractionAction = (typeof RETRACTION_ACTIONS)[number];
/** Why a retraction was started. */
export const RETRACTION_TRIGGERS = [
  'admin',
  'report',
  'block_url',
  'block_sha256',
  'block_sender',
  'bulk',
] as const;
export type RetractionTrigger = (typeof RETRACTION_TRIGGERS)[number];
/** The verdicts a retracted message is held with. */
export const RETRACTION_VERDICTS = ['phishing', 'malware', 'spam'] as const;
export type RetractionVerdict = (typeof RETRACTION_VERDICTS)[number];
export const RETRACTION_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type RetractionStatus = (typeof RETRACTION_STATUSES)[number];
/**
 * What became of one delivered copy: pending (not reached yet), retracted (found and moved or
 * deleted), not_found (no copy in any folder), failed (the mailbox could not be reached; retried
 * by a later retraction), skipped (the connection is off or missing: nothing was touched).
 */
export const COPY_STATUSES = ['pending', 'retracted', 'not_found', 'failed', 'skipped'] as const;
export type CopyStatus = (typeof COPY_STATUSES)[number];

export const DEFAULT_QUARANTINE_FOLDER = 'Moat Quarantine';
export const DEFAULT_MASTER_SEPARATOR = '*';
/** The most delivered copies one bulk retraction pulls back (narrow the search for more). */
export const BULK_RETRACTION_MAX = 5_000;
/** The rows a preview lists (its count is of every match). */
export const PREVIEW_ROWS = 100;

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i;
/** Whether a host is this machine (the only place a plain, unencrypted connection is allowed). */
export const isLoopbackHost = (host: string) => LOOPBACK.test(host.trim());
const HOST =
  /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|[0-9a-f:]+)$/i;

export interface ConnectionFieldError {
  field: string;
  message: string;
}

/** The connection's fields checked together (the web's form and the server use the same rules). */
export function checkConnection(input: {
  host: string;
  port: number;
  tls_mode: ImapTlsMode;
  master_user: string;
  separator: string;
  folder: string;
}): ConnectionFieldError[] {
  const errors: ConnectionFieldError[] = [];
  const host = input.host.trim();
  if (host === '') errors.push({ field: 'host', message: 'Enter the IMAP server’s host name' });
  else if (host.length > 253 || !HOST.test(host))
    errors.push({ field: 'host', message: 'Enter a host name or IP address, without a scheme or port' });
  if (!Number.isInteger(input.port) || input.port < 1 || input.port > 65_535)
    errors.push({ field: 'port', message: 'Enter a port from 1 to 65535' });
  if (input.tls_mode === 'none' && host !== '' && !isLoopbackHost(host))
    errors.push({
      field: 'tls_mode',
      message:
        'Without TLS the master password would cross the network in the clear: only a server on this machine (localhost) may be reached so',
    });
  const user = input.master_user.trim();
  if (user === '') errors.push({ field: 'master_user', message: 'Enter the master (admin) user' });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  else if (/[\s\u0000-\u001f"]/.test(user) || user.length > 200)
    errors.push({
      field: 'master_user',
      message: 'The master user has no spaces, quotes or control characters',
    });
  if (input.separator.length < 1 || input.separator.length > 3 || /[\s"@]/.test(input.separator))
    errors.push({
      field: 'separator',
      message: 'Enter the separator of master logins (1 to 3 characters, such as *)',
    });
  else if (user.includes(input.separator))
    errors.push({ field: 'separator', message: 'The separator must not appear in the master user’s name' });
  const folder = input.folder.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (folder === '' || folder.length > 100 || /[\u0000-\u001f*%"\\]/.test(folder))
    errors.push({ field: 'folder', message: 'Enter a folder name (no *, %, quotes or backslashes)' });
  else if (/^inbox$/i.test(folder))
    errors.push({ field: 'folder', message: 'The quarantine folder cannot be INBOX' });
  return errors;
}

export const connectionSchema = z
  .object({
    /** False: nothing is configured yet (the other fields are the defaults). */
    configured: z.boolean(),
    enabled: z.boolean(),
    host: z.string(),
    port: z.int(),
    tls_mode: z.enum(IMAP_TLS_MODES),
    /** Check the server's certificate against the system's trusted authorities. */
    verify_tls: z.boolean(),
    master_user: z.string(),
    separator: z.string(),
    /** Whether a master password is stored (it is never sent back). */
    password_set: z.boolean(),
    action: z.enum(RETRACTION_ACTIONS),
    folder: z.string(),
    last_test: z.nullable(z.object({ at: z.string(), ok: z.boolean(), message: z.string() })),
    updated_at: z.nullable(z.string()),
  })
  .register(z.globalRegistry, { id: 'RetractionConnection' });
export type Connection = z.infer<typeof connectionSchema>;

export const connectionBodySchema = z
  .strictObject({
    enabled: z.boolean(),
    host: z.string().check(z.maxLength(300)),
    port: z.int().check(z.gte(0), z.lte(1_000_000)),
    tls_mode: z.enum(IMAP_TLS_MODES),
    verify_tls: z._default(z.boolean(), true),
    master_user: z.string().check(z.maxLength(300)),
    separator: z._default(z.string().check(z.maxLength(10)), DEFAULT_MASTER_SEPARATOR),
    /** A new master password; left out (or null) keeps the stored one. */
    password: z.optional(z.nullable(z.string().check(z.maxLength(1_000)))),
    action: z._default(z.enum(RETRACTION_ACTIONS), 'move'),
    folder: z._default(z.string().check(z.maxLength(300)), DEFAULT_QUARANTINE_FOLDER),
  })
  .register(z.globalRegistry, { id: 'RetractionConnectionBody' });
export type ConnectionBody = z.input<typeof connectionBodySchema>;

/** Which mailbox the test logs in as (through the master user); the signed-in admin's by default. */
export const connectionTestBodySchema = z
  .strictObject({ mailbox: z.optional(z.string().check(z.maxLength(320))) })
  .register(z.globalRegistry, { id: 'RetractionConnectionTestBody' });

/** The step a test failed at: reaching the server, TLS, the master login, reading the folders. */
export const TEST_STAGES = ['connect', 'tls', 'login', 'folders'] as const;
export const connectionTestResultSchema = z
  .object({
    ok: z.boolean(),
    stage: z.nullable(z.enum(TEST_STAGES)),
    message: z.string(),
    mailbox: z.string(),
    /** The mailbox's folders (on success). */
    folders: z.array(z.string()),
  })
  .register(z.globalRegistry, { id: 'RetractionConnectionTestResult' });
export type ConnectionTestResult = z.infer<typeof connectionTestResultSchema>;

/** Where copies of a message were found in one mailbox. */
export const foundSchema = z.object({ folder: z.string(), count: z.int() });

export const copySchema = z.object({
  id: z.string(),
  mail_log_id: z.string(),
  recipient: z.string(),
  message_id: z.nullable(z.string()),
  subject: z.string(),
  status: z.enum(COPY_STATUSES),
  action: z.nullable(z.enum(RETRACTION_ACTIONS)),
  found: z.array(foundSchema),
  error: z.nullable(z.string()),
  /** The quarantine entry of the retracted copy (its restore paths are the quarantine's). */
  quarantine_message_id: z.nullable(z.string()),
  updated_at: z.string(),
});
export type RetractionCopy = z.infer<typeof copySchema>;

export const retractionSchema = z
  .object({
    id: z.string(),
    trigger: z.enum(RETRACTION_TRIGGERS),
    verdict: z.enum(RETRACTION_VERDICTS),
    reason: z.string(),
    requested_by: z.string(),
    status: z.enum(RETRACTION_STATUSES),
    total: z.int(),
    retracted: z.int(),
    not_found: z.int(),
    failed: z.int(),
    skipped: z.int(),
    created_at: z.string(),
    finished_at: z.nullable(z.string()),
  })
  .register(z.globalRegistry, { id: 'Retraction' });
export type Retraction = z.infer<typeof retractionSchema>;

export const retractionDetailSchema = z
  .extend(retractionSchema, { copies: z.array(copySchema) })
  .register(z.globalRegistry, { id: 'RetractionDetail' });
export type RetractionDetail = z.infer<typeof retractionDetailSchema>;

export const retractionListSchema = z
  .object({ items: z.array(retractionSchema) })
  .register(z.globalRegistry, { id: 'RetractionList' });
export type RetractionList = z.infer<typeof retractionListSchema>;

export const retractionIdParamsSchema = z.object({ id: z.uuid() });

/** POST /api/v1/retractions: every delivered copy of the message of one Mail Explorer row. */
export const retractMessageBodySchema = z
  .strictObject({
    mail_log_id: z.uuid(),
    verdict: z._default(z.enum(RETRACTION_VERDICTS), 'phishing'),
    reason: z._default(z.string().check(z.maxLength(500)), ''),
  })
  .register(z.globalRegistry, { id: 'RetractMessageBody' });

const SHA256 = /^[0-9a-f]{64}$/i;
/** A search of delivered mail: every field given must match (none given is refused). */
export const deliveredSearchSchema = z
  .strictObject({
    /** An address (exact) or a domain (`@acme.example` or `acme.example`: every address of it). */
    sender: z.optional(z.string().check(z.maxLength(320))),
    /** Words in the subject (case-insensitive). */
    subject: z.optional(z.string().check(z.maxLength(500))),
    /** A link in the message: a whole URL (exact), or a host (every link to it). */
    url: z.optional(z.string().check(z.maxLength(2_000))),
    /** An attachment's SHA-256 (64 hex digits). */
    sha256: z.optional(z.string().check(z.regex(SHA256, 'Enter the 64 hexadecimal digits of a SHA-256'))),
    /** Received at or after (ISO 8601). */
    from: z.optional(z.iso.datetime({ offset: true })),
    /** Received before (ISO 8601). */
    to: z.optional(z.iso.datetime({ offset: true })),
  })
  .register(z.globalRegistry, { id: 'DeliveredSearch' });
export type DeliveredSearch = z.input<typeof deliveredSearchSchema>;

export const previewSchema = z
  .object({
    total: z.int(),
    /** Copies among them already retracted (they are not retracted again). */
    already_retracted: z.int(),
    items: z.array(
      z.object({
        mail_log_id: z.string(),
        recipient: z.string(),
        sender: z.string(),
        subject: z.string(),
        received_at: z.string(),
        retracted: z.boolean(),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'RetractionPreview' });
export type RetractionPreview = z.infer<typeof previewSchema>;

export const bulkRetractBodySchema = z
  .strictObject({
    search: deliveredSearchSchema,
    verdict: z._default(z.enum(RETRACTION_VERDICTS), 'phishing'),
    reason: z._default(z.string().check(z.maxLength(500)), ''),
    /** The count the admin saw in the preview: a search that now matches more is refused (409). */
    expected: z.int().check(z.gte(0)),
  })
  .register(z.globalRegistry, { id: 'BulkRetractBody' });

/** The answer of a retraction started: it runs in the background. */
export const retractionStartedSchema = z
  .object({ retraction: z.nullable(retractionSchema), copies: z.int() })
  .register(z.globalRegistry, { id: 'RetractionStarted' });
export type RetractionStarted = z.infer<typeof retractionStartedSchema>;
