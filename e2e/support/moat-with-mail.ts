import { runCli, startMoat, tempDataDir } from './server.ts';
import { startSmtpSink } from './smtp-sink.ts';

/**
 * Moat started as `npm start` starts it, relaying its mail to a local SMTP sink, with a first
 * admin admin@acme.test and a quick captcha; `cli` runs commands on its DATA_DIR.
 */
export async function startMoatWithMail(extraEnv: Record<string, string> = {}) {
  const sink = await startSmtpSink();
  const dataDir = tempDataDir();
  const moat = await startMoat({
    dataDir,
    env: {
      SMTP_RELAY_URL: sink.url,
      ADMIN_EMAIL: 'admin@acme.test',
      ADMIN_PASSWORD: 'admin-password-1',
      CAPTCHA_DIFFICULTY: '300',
      ...extraEnv,
    },
  });
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  return {
    sink,
    moat,
    cli,
    async stop() {
      await moat.stop();
      await sink.close();
    },
  };
}
export type MoatWithMail = Awaited<ReturnType<typeof startMoatWithMail>>;
