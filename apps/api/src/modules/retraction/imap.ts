import net from 'node:net';
import type { ImapTlsMode, RetractionAction } from '@moat/contracts/retraction';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';

/** What Moat needs to reach one mailbox: the server, and the master user with its password. */
export interface ImapTarget {
  host: string;
  port: number;
  tlsMode: ImapTlsMode;
  verifyTls: boolean;
  masterUser: string;
  separator: string;
  password: string;
}

/** Time limits of one mailbox session (tests shorten them). */
export interface ImapTimeouts {
  connectMs: number;
  greetingMs: number;
  socketMs: number;
}

export const DEFAULT_IMAP_TIMEOUTS: ImapTimeouts = { connectMs: 10_000, greetingMs: 8_000, socketMs: 60_000 };

/** A master login: `<mailbox><separator><master user>` (Dovecot's `auth_master_user_separator`). */
export const masterLogin = (target: Pick<ImapTarget, 'masterUser' | 'separator'>, mailbox: string) =>
  `${mailbox}${target.separator}${target.masterUser}`;

/** The step a session failed at, and why, in words for an admin. */
export class ImapStepError extends Error {
  constructor(
    readonly stage: 'connect' | 'tls' | 'login' | 'folders',
    message: string,
  ) {
    super(message);
    this.name = 'ImapStepError';
  }
}

interface ImapError extends Error {
  code?: string;
  authenticationFailed?: boolean;
  responseText?: string;
  serverResponseCode?: string;
  reason?: string;
}

const TLS_CODES = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ClosedAfterConnectTLS',
  'EPROTO',
]);

/** Why a session could not start, as the step it failed at and a sentence that says what to check. */
export function explain(error: unknown, target: ImapTarget, mailbox: string): ImapStepError {
  if (error instanceof ImapStepError) return error;
  const e = error as ImapError;
  const where = `${target.host}:${target.port}`;
  const said = (e.responseText || e.reason || '').trim();
  if (e.authenticationFailed) {
    return new ImapStepError(
      'login',
      `The server refused the master login as ${masterLogin(target, mailbox)}: check the master user, its password, the separator and that the mailbox exists${said ? ` (the server said: ${said})` : ''}.`,
    );
  }
  const code = e.code ?? '';
  const text = e.message ?? String(error);
  if (code === 'ECONNREFUSED')
    return new ImapStepError('connect', `Nothing answers on ${where}: check the host and the port.`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ImapStepError('connect', `The host ${target.host} is not known: check its name.`);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return new ImapStepError('connect', `The host ${target.host} cannot be reached from this server.`);
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') {
    return new ImapStepError(
      'tls',
      `${where} did not answer with TLS: it expects plain IMAP with STARTTLS (choose STARTTLS, or the TLS port, usually 993).`,
    );
  }
  if (
    /self[- ]signed|unable to verify|unable to get (local )?issuer/i.test(text) ||
    code.includes('SELF_SIGNED')
  )
    return new ImapStepError(
      'tls',
      `The server's certificate is not trusted (${text}): install a certificate from a trusted authority, or turn off the certificate check for a server you run yourself.`,
    );
  if (code === 'CERT_HAS_EXPIRED') return new ImapStepError('tls', "The server's certificate has expired.");
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return new ImapStepError('tls', `The server's certificate is not for ${target.host}: ${text}`);
  if (/STARTTLS/i.test(text))
    return new ImapStepError(
      'tls',
      `${where} does not offer STARTTLS: choose TLS (usually port 993) instead.`,
    );
  if (
    code === 'GreetingTimeout' ||
    /greeting/i.test(text) ||
    code === 'ETIMEDOUT' ||
    code === 'CONNECT_TIMEOUT'
  ) {
    return new ImapStepError(
      target.tlsMode === 'tls' ? 'connect' : 'tls',
      target.tlsMode === 'tls'
        ? `${where} did not answer in time.`
        : `${where} sent no IMAP greeting: it may expect implicit TLS (choose TLS).`,
    );
  }
  if (TLS_CODES.has(code))
    return new ImapStepError('tls', `The TLS handshake with ${where} failed: ${said || text}`);
  return new ImapStepError('connect', `The session with ${where} failed: ${said || text}`);
}

/** A logged-in session as one mailbox's owner, through the master user. */
export async function openMailbox(
  target: ImapTarget,
  mailbox: string,
  timeouts: ImapTimeouts,
): Promise<ImapFlow> {
  const options: ImapFlowOptions = {
    host: target.host,
    port: target.port,
    secure: target.tlsMode === 'tls',
    doSTARTTLS: target.tlsMode === 'starttls' ? true : target.tlsMode === 'none' ? false : undefined,
    auth: { user: masterLogin(target, mailbox), pass: target.password },
    tls: {
      rejectUnauthorized: target.verifyTls,
      ...(net.isIP(target.host) ? {} : { servername: target.host }),
    },
    logger: false,
    emitLogs: false,
    disableAutoIdle: true,
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    clientInfo: { name: 'Moat' },
  };
  const client = new ImapFlow(options);
  // A dropped socket is reported by the command under way; nothing else listens for it.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    client.close();
    throw explain(error, target, mailbox);
  }
  return client;
}

/** Folders a retraction never looks in: where deleted mail goes, and where it puts what it pulls. */
const SKIPPED_USES = new Set(['\\Trash', '\\Sent', '\\Drafts', '\\All']);

/** The folders of a mailbox worth searching (INBOX first), without the trash and the quarantine folder. */
export async function searchedFolders(client: ImapFlow, quarantineFolder: string): Promise<string[]> {
  const listed = await client.list();
  const folders = listed
    .filter((f) => !f.flags.has('\\Noselect') && !f.flags.has('\\NonExistent'))
    .filter((f) => !(f.specialUse && SKIPPED_USES.has(f.specialUse)))
    .filter((f) => f.path.toLowerCase() !== quarantineFolder.toLowerCase())
    .filter((f) => !/^(?:trash|deleted items|deleted messages)$/i.test(f.path))
    .map((f) => f.path);
  return folders.sort((a, b) => (a === 'INBOX' ? -1 : b === 'INBOX' ? 1 : a.localeCompare(b)));
}

/** The Message-ID as it is searched for: in angle brackets. */
export const bracketed = (messageId: string) => {
  const bare = messageId.trim().replace(/^<|>$/g, '');
  return `<${bare}>`;
};

/**
 * Find every copy of the message (by its Message-ID header) in the mailbox's folders and move
 * them to `folder` (created when missing) or delete them. What was found where, folder by folder,
 * and (with `fetchSource`) the bytes of the first copy found, read before it is moved or deleted.
 */
export async function retractFrom(
  client: ImapFlow,
  messageId: string,
  options: { action: RetractionAction; folder: string; fetchSource?: boolean },
): Promise<{ found: Array<{ folder: string; count: number }>; source: Buffer | null }> {
  const found: Array<{ folder: string; count: number }> = [];
  const wanted = bracketed(messageId);
  let source: Buffer | null = null;
  let folderReady = false;
  for (const path of await searchedFolders(client, options.folder)) {
    const lock = await client.getMailboxLock(path);
    try {
      const uids = (await client.search({ header: { 'message-id': wanted } }, { uid: true })) || [];
      if (uids.length === 0) continue;
      if (options.fetchSource && source === null) {
        const first = await client.fetchOne(String(uids[0]), { source: true }, { uid: true });
        source = first === false ? null : (first.source ?? null);
      }
      if (options.action === 'move') {
        if (!folderReady) {
          await ensureFolder(client, options.folder);
          folderReady = true;
        }
        await client.messageMove(uids, options.folder, { uid: true });
      } else {
        await client.messageDelete(uids, { uid: true });
      }
      found.push({ folder: path, count: uids.length });
    } finally {
      lock.release();
    }
  }
  return { found, source };
}

async function ensureFolder(client: ImapFlow, folder: string): Promise<void> {
  const existing = await client.list();
  if (existing.some((f) => f.path.toLowerCase() === folder.toLowerCase())) return;
  try {
    await client.mailboxCreate(folder);
  } catch (error) {
    // Created meanwhile by another session of the same mailbox.
    if ((error as ImapError).serverResponseCode !== 'ALREADYEXISTS') throw error;
  }
}

/** Log out politely; a session that is already gone is closed. */
export async function closeMailbox(client: ImapFlow): Promise<void> {
  try {
    await client.logout();
  } catch {
    client.close();
  }
}

/** Run `task` over `items` with at most `limit` at once; results in the items' order. */
export async function mapBounded<T, R>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
