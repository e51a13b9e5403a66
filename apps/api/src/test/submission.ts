import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import { SMTPServer } from 'smtp-server';

/** What one receiving server took: envelope and bytes. */
export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
}

/** A receiving MTA on loopback (what the recipients' MX and the tenant's own server are here). */
export async function startReceiver(refuse: (rcpt: string) => string | null = () => null) {
  const got: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const why = refuse(address.address);
      if (why) return callback(Object.assign(new Error(why), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        got.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as { port: number }).port;
  return { got, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** One SMTP session against the submission port; what each command was answered. */
export async function submit(
  port: number,
  o: { user?: string; pass?: string; from: string; to: string[]; raw: string; tls?: boolean },
): Promise<{ ok: boolean; code?: number; response?: string }> {
  const connection = new SMTPConnection({
    host: '127.0.0.1',
    port,
    ignoreTLS: !o.tls,
    requireTLS: o.tls === true,
    tls: { rejectUnauthorized: false },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      connection.once('error', reject);
      connection.connect(() => resolve());
    });
    if (o.user !== undefined) {
      await new Promise<void>((resolve, reject) =>
        connection.login({ user: o.user!, pass: o.pass ?? '' }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
    }
    const info = await new Promise<{ response: string }>((resolve, reject) =>
      connection.send({ from: o.from, to: o.to }, o.raw, (error, result) =>
        error ? reject(error) : resolve(result as { response: string }),
      ),
    );
    return { ok: true, response: info.response };
  } catch (error) {
    const e = error as { responseCode?: number; response?: string; message: string };
    return { ok: false, code: e.responseCode, response: e.response ?? e.message };
  } finally {
    connection.close();
  }
}
