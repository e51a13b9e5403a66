import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { selfSignedCertificate } from '../certificates.ts';
import { freePorts } from '../ports.ts';
import { findBinary, watch } from './spamd.ts';

export interface DovecotOptions {
  /** Mailbox owners (`ann@acme.test`) and their own passwords. */
  users: Array<{ user: string; password: string }>;
  /** The master (admin) user that may log in as any mailbox owner: `owner*master`. */
  master: { user: string; password: string };
  /** Between the owner and the master user in a master login; `*` unless told. */
  separator?: string;
}

export interface RunningDovecot {
  host: string;
  /** Plain IMAP (STARTTLS offered). */
  port: number;
  /** Implicit TLS (IMAPS), with a self-signed certificate. */
  tlsPort: number;
  /** Where each owner's maildir lives (`<dir>/<owner>/`). */
  mailDir: string;
  /** Add mailbox owners to the running server (the passwd file is read at each login). */
  addUsers(users: Array<{ user: string; password: string }>): void;
  /** A plain IMAP session as a mailbox's owner through the master user: the test's own hands. */
  asOwner<T>(mailbox: string, fn: (client: ImapFlow) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/** A system user's ids, from /etc/passwd. */
function systemUser(name: string): { uid: number; gid: number } {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error(`no ${name} user (apt-get install dovecot-core)`);
  return { uid: Number(uid), gid: Number(gid) };
}

const usersOf = (users: Array<{ user: string; password: string }>) =>
  users.map(({ user, password }) => `${user}:{PLAIN}${password}::::::\n`).join('');

/**
 * Debian's Dovecot (dovecot-imapd) on two free loopback ports, in the foreground (`-F`), with its
 * own configuration in a temporary directory: owners in a passwd file, one master user in a
 * second passwd file (`owner<separator>master` logs in as the owner with the master's password),
 * every owner's mail in a maildir under the directory, run by the user running the tests. Ready
 * once it greets on the plain port.
 */
export async function startDovecot(options: DovecotOptions): Promise<RunningDovecot> {
  const bin = findBinary('dovecot', 'dovecot-imapd');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dovecot-'));
  fs.chmodSync(dir, 0o755);
  const mailDir = path.join(dir, 'mail');
  for (const sub of ['run', 'state', 'mail']) fs.mkdirSync(path.join(dir, sub), { mode: 0o755 });
  const cert = selfSignedCertificate('localhost');
  const me = os.userInfo().username;
  // As root, Dovecot's own processes run as its Debian users, and the mail is the `dovecot`
  // user's (Dovecot never accesses mail as root); otherwise everything runs as the current user.
  const asRoot = process.getuid?.() === 0;
  const { uid, gid } = asRoot ? systemUser('dovecot') : { uid: os.userInfo().uid, gid: os.userInfo().gid };
  if (asRoot) fs.chownSync(mailDir, uid, gid);
  const loginUser = asRoot ? 'dovenull' : me;
  const internalUser = asRoot ? 'dovecot' : me;
  const usersFile = path.join(dir, 'users');
  const mastersFile = path.join(dir, 'masters');
  fs.writeFileSync(usersFile, usersOf(options.users), { mode: 0o644 });
  fs.writeFileSync(mastersFile, usersOf([options.master]), { mode: 0o644 });
  const [port, tlsPort] = (await freePorts(2)) as [number, number];
  const conf = `
base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = moat-test-${path.basename(dir)}
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
default_internal_group = ${asRoot ? 'dovecot' : me}
first_valid_uid = ${uid}
first_valid_gid = ${gid}
ssl = yes
ssl_cert = <${cert.certFile}
ssl_key = <${cert.keyFile}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_master_user_separator = ${options.separator ?? '*'}
auth_cache_size = 0
mail_location = maildir:${mailDir}/%u
mail_uid = ${uid}
mail_gid = ${gid}
mail_max_userip_connections = 10000
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${mastersFile}
  master = yes
  result_success = continue
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${usersFile}
}
userdb {
  driver = static
  args = uid=${uid} gid=${gid} home=${mailDir}/%u allow_all_users=yes
}
namespace inbox {
  inbox = yes
  separator = /
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${tlsPort}
    ssl = yes
  }
  process_min_avail = 2
  service_count = 0
  client_limit = 1000
  vsz_limit = 512M
}
service imap {
  process_limit = 2048
  client_limit = 1
}
service auth {
  client_limit = 4096
}
service anvil {
  client_limit = 8192
}
service stats {
  client_limit = 4096
  unix_listener stats-writer {
    mode = 0666
  }
}
default_process_limit = 2048
default_client_limit = 4096
`;
  const confFile = path.join(dir, 'dovecot.conf');
  fs.writeFileSync(confFile, conf, { mode: 0o644 });
  const child = spawn(bin, ['-F', '-c', confFile], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const running = watch(child, dir, 'dovecot');
  const greets = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.setTimeout(1_000, () => socket.destroy());
      socket.once('data', (chunk) => {
        socket.destroy();
        resolve(chunk.toString('latin1').startsWith('* OK'));
      });
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
  await running.until(greets, 20_000);
  return {
    host: '127.0.0.1',
    port,
    tlsPort,
    mailDir,
    addUsers(users) {
      fs.appendFileSync(usersFile, usersOf(users));
    },
    async asOwner(mailbox, fn) {
      const client = new ImapFlow({
        host: '127.0.0.1',
        port,
        secure: false,
        doSTARTTLS: false,
        auth: {
          user: `${mailbox}${options.separator ?? '*'}${options.master.user}`,
          pass: options.master.password,
        },
        logger: false,
      });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.logout();
      }
    },
    async stop() {
      await running.stop();
      fs.rmSync(cert.dir, { recursive: true, force: true });
    },
  };
}
